package middle
import "lib_common.zap"

struct Segment {
    A common.Point @0
    B common.Point @4
}

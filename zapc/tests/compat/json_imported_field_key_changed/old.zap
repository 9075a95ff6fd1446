package draw
import "old_common.zap"

struct Shape {
    Center common.Point @0
}

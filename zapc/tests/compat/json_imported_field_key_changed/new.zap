package draw
import "new_common.zap"

struct Shape {
    Center common.Point @0
}

package draw
import "common.zap"

struct Shape {
    Center common.Point @0
}

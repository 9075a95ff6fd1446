package draw
import "new_common.zap"

struct Shape {
    Corners list<common.Point> @0
}

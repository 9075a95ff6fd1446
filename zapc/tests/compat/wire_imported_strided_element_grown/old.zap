package draw
import "old_common.zap"

struct Shape {
    Corners list<common.Point> @0
}

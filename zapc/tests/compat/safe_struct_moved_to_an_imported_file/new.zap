package draw
import "common.zap"

struct Shape {
    Id u64 @0
    Corners list<common.Point> @8
    Center common.Point @16
}

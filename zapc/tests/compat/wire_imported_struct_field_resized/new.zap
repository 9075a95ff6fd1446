package draw
import "new_common.zap"

struct Shape {
    Id u64 @0
    Center common.Point @8
}

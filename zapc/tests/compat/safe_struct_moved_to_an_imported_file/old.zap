package draw

struct Point {
    X u32 @0
    Y u32 @4
}

struct Shape {
    Id u64 @0
    Corners list<Point> @8
    Center Point @16
}

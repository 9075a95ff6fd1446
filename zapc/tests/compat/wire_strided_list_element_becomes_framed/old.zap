struct Point {
    X u32 @0
    Y u32 @4
}

struct Polygon {
    Points list<Point> @0
}

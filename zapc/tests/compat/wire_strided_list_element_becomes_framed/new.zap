struct Point {
    X u32 @0
    Y u32 @4
    Label text @8
}

struct Polygon {
    Points list<Point> @0
}

struct Point {
    X u32 @0
    Y u32 @4
    Z u32 @8
}

struct Polygon {
    Points list<Point> @0
}

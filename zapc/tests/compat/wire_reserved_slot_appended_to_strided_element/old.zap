struct Point {
    X i32 @0
    Y i32 @4
}
struct Path {
    Points list<Point> @0
}

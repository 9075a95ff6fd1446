struct Point {
    X u32 @0
    Y u32 @8
}
struct Polygon {
    Points list<ptr<Point>> @0
}

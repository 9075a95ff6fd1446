struct Point {
    X i32 @0
    Y i32 @4
    # Kept for a coordinate a later release may bring back.
    reserved Z i32 @8
}
struct Path {
    Points list<Point> @0
}

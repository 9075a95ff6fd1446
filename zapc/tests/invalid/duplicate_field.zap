package bad

struct Point {
    X u32 @0
    Y u32 @4
    X u32 @8
}

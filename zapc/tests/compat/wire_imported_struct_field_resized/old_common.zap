package common

struct Point {
    X u32 @0
    Y u32 @4
}

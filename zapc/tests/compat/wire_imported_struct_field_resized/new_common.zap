package common

struct Point {
    X u32 @0
    Y u64 @8
}

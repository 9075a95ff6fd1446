package common

struct Point {
    X u32 @0 json(name = "x_coord")
    Y u32 @4
}

package common

# Z appended: a bigger element of every strided list<common.Point>.
struct Point {
    X u32 @0
    Y u32 @4
    Z u32 @8
}

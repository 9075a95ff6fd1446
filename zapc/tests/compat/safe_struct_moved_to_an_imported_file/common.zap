package common

# Moved here from draw, field for field.
struct Point {
    X u32 @0
    Y u32 @4
}

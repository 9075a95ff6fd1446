# A second file that says `package common`.
package common

struct Line {
    From Point @0
}

struct Point {
    X u32 @0
}

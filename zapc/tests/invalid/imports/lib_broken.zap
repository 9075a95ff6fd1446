package broken

struct Shape {
    Size u63 @0
}

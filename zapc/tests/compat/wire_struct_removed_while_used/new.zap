struct Parent {
    Child Other @0
}
struct Other {
    Name text @0
}

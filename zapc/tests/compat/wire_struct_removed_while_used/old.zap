struct Parent {
    Child Leaf @0
}
struct Leaf {
    X u64 @0
}

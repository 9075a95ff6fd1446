struct Parent {
    Child Node @0
}
struct Node {
    X u64 @0
}

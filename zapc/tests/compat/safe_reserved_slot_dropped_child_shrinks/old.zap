struct Leaf {
    Id u64 @0
    reserved Legacy u64 @8
}
struct Tree {
    Root Leaf @0
    Name text @4
}

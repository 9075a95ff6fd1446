struct Leaf {
    Id u64 @0
}
struct Tree {
    Root Leaf @0
    Name text @4
    Count u32 @12
}

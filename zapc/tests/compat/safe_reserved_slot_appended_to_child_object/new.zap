struct Leaf {
    Id u64 @0
    # Kept for the next release.
    reserved Weight u64 @8
}
struct Tree {
    Root Leaf @0
    Name text @4
    Count u32 @12
}

struct Item {
    Id u64 @0
    Count u32 @8
}
struct Extra {
    X u8 @0
}

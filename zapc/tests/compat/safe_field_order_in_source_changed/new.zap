struct Item {
    Count u32 @8
    Id u64 @0
}

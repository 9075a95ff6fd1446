# An item in the store.
struct Item {
    # The id.
    Id u64 @0
    Count u32 @8
}

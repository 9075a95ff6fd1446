type id = u64

struct Item {
    Id id @0
    Count u32 @8
}

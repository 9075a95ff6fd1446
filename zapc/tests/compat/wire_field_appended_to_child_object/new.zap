struct Item {
    Id u64 @0
    Count u32 @8
    Extra u64 @16
}

struct Parent {
    Child Item @0
    Tag   text @8
}

struct Item {
    Ident u64 @0 json(name = "id")
    Count u32 @8
}

struct Item {
    Ident u64 @0 json(quantity)
    Count u32 @8
}

struct Item {
    Ident u64 @0
    Count u32 @8
}

struct Orphan {
    X u8 @0
}

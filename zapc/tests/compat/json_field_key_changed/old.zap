struct Item {
    Id u64 @0 json(name = "id")
}

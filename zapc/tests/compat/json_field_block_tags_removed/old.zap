struct Item {
    Id u64 @0
    Block u64 @8 json(block_tags)
}

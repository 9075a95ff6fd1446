struct Item {
    Id u64 @0
    Count u32 @8
    Name text @16
}

struct Ack {
    Ok bool @0
}

interface Store {
    put(req: Item) returns (resp: Ack)
}

struct Item {
    Id u64 @0
    Small u32 @8
    Count u32 @12
}

struct Ack {
    Ok bool @0
}

interface Store {
    put(req: Item) returns (resp: Ack)
}

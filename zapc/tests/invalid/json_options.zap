package bad

struct Req {
    Id     u64  @0   json(quantity, quantity)
    Signed i64  @8   json(quantity)
    Tag    u32  @16  json(block_tags)
    Note   text @24  json(qunatity)
    Key    u64  @32  json(name = "id")
    Flag   bool @40  json(name = Flag, quantity = "yes")
}

struct Resp {
    Value u64 @0
}

interface Bad {
    get(r: Req) returns (Resp) json(params = [Id, Id, Nope], result = Valeu)
    ping() json(params = [Id], result = Value, name = "")
    two() json(name = "bad_get")
    three() json(name = "bad_get", style = positional)
    prices(r: Req) returns stream Resp json(subscription = priceChanges)
}

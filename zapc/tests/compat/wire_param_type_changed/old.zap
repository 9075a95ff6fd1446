struct Req {
    Id u64 @0
}
struct Resp {
    Value u64 @0
}
struct Other {
    Name text @0
}
interface Store {
    get(req: Req) returns (resp: Resp)
}

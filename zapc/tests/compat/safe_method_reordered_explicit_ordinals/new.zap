struct Req {
    Id u64 @0
}
struct Resp {
    Value u64 @0
}
interface Store {
    delete @3 (req: Req)
    put @2 (req: Req) returns (resp: Resp)
    get @1 (req: Req) returns (resp: Resp)
}

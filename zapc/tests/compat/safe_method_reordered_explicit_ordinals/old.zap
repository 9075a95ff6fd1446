struct Req {
    Id u64 @0
}
struct Resp {
    Value u64 @0
}
interface Store {
    get @1 (req: Req) returns (resp: Resp)
    put @2 (req: Req) returns (resp: Resp)
    delete @3 (req: Req)
}

struct Req {
    Id u64 @0
    Name text @8
}
struct Legacy {
    Id u64 @0
}
interface Store {
    get(req: Req) returns (resp: Req)
    old(req: Legacy)
}

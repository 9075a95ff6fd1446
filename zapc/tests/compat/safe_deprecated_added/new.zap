struct Req {
    Id u64 @0
    Name text @8 deprecated
}
struct Legacy deprecated {
    Id u64 @0
}
interface Store {
    get(req: Req) returns (resp: Req)
    old(req: Legacy) deprecated
}

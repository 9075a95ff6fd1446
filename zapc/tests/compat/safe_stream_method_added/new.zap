struct Req {
    Id u64 @0
}
interface Store {
    get(req: Req) returns (resp: Req)
    watch(req: Req) returns stream Req
}

struct Req {
    Id u64 @0
}
struct Resp {
    Value u64 @0
}
interface Store {
    get(req: Req) returns Resp
    watch(req: Req) returns stream Resp
    feed(stream Req) returns Resp
}

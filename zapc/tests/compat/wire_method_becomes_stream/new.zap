struct Req {
    Id u64 @0
}
struct Resp {
    Value u64 @0
}
interface Store {
    get(req: Req) returns stream Resp
    watch(req: Req) returns Resp
    feed(stream Req) returns stream Resp
}

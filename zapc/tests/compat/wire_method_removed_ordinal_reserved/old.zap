struct Req {
    Id u64 @0
}
interface Store {
    get(req: Req)
    delete(req: Req)
    put(req: Req)
}

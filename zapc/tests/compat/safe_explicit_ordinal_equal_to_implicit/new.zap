struct Req {
    Id u64 @0
}
interface Store {
    get @1 (req: Req)
    put @2 (req: Req)
}

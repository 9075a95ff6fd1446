struct Req {
    Id u64 @0
}
interface Store {
    get @1 (req: Req)
    scan @2 (req: Req)
    put @3 (req: Req)
}

struct Req {
    Id u64 @0
}
interface Store {
    get @1 (req: Req)
    reserved @2
    put @3 (req: Req)
}

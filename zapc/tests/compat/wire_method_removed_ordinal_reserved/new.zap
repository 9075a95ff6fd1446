struct Req {
    Id u64 @0
}
interface Store {
    get(req: Req)
    # `delete` is gone; `put` keeps its ordinal.
    reserved @2
    put @3 (req: Req)
}

struct Req {
    Id u64 @0
}
interface Store {
    get(req: Req)
    put(req: Req)
    # Kept for a method another team ships first.
    reserved @3
    scan @10 (req: Req)
}

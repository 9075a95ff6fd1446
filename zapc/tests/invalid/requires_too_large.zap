struct Req {
    Id u64
}

interface Admin {
    wipe(req: Req) requires 0x1ffffffffffffffff
}

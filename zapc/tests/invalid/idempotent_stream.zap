# A stream is opened once and never retried: marking it safe to repeat is refused.
struct Req {
    Id u64 @0
}

interface Feed {
    watch(req: Req) returns stream Req idempotent
    tail(req: Req, stream Req) no_side_effects
}

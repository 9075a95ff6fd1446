const MAX_LOGS: u32 = 500
const NAME: text = "ledger"
const STRICT: bool = true
struct Req {
    Id u64 @0
}

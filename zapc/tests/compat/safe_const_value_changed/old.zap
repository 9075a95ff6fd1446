const MAX_LOGS: u32 = 1000
const NAME: text = "ledger"
const OLD_LIMIT: u16 = 7
struct Req {
    Id u64 @0
}

package eth                      # one package per file; '#' starts a comment to end of line

type address = bytes_fixed[20]   # alias
type hash32  = bytes_fixed[32]

# Doc comments: the '#' lines directly above a declaration or field
# become documentation on the generated item.
struct BalanceRequest {
    Id      u64     @0
    Block   u64     @8
    Account address @16
}

struct BalanceResponse {
    Id        u64    @0
    Balance   u64    @8
    Nonce     u64    @16
    BlockHash hash32 @24
}

# `requires 0x1`: a server that checks capabilities answers this call only for a
# capability granting permission bit 0x1 (an extension of this project; see README).
interface Eth {
    getBalance(req: BalanceRequest) returns (resp: BalanceResponse) requires 0x1   # ordinal 1
}

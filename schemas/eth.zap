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

interface Eth {
    getBalance(req: BalanceRequest) returns (resp: BalanceResponse)   # ordinal 1
}

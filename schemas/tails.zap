# The Go benchmark layout: the eth messages with variable-length tails instead of
# fixed-size byte arrays (shared/vectors/flat.json).
package tails

struct BalanceRequest {
    Id u64 @0
    Block u64 @8
    Method text @16
    Account bytes @24
}
struct BalanceResponse {
    Id u64 @0
    Balance u64 @8
    Nonce u64 @16
    BlockHash bytes @24
}

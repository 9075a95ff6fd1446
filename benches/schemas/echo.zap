# The echo service measured against the Go runtime's echo server
# (benches/rpc_peers_rounds.sh): method 1 answers its message unchanged, as
# `zapgo-peer serve` does. `Message` has the layout of eth.zap's `BalanceRequest`, so the
# load generator sends both servers the same frames.
package echo

struct Message {
    Id u64 @0
    Block u64 @8
    Account bytes_fixed[20] @16
}

interface Echo {
    echo(m: Message) returns (m: Message)
}

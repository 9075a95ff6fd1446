package wrapped

struct Req {
    Account bytes_fixed[20] @0
    Block u64 @24 json(quantity,
                       block_tags)
}

interface Eth {
    getBalance(req: Req) returns (resp: Req) requires 0x1 json(
      # Ethereum's name and params.
      name = "eth_getBalance",
            params = [Account, Block],
      result = Block
    )
    ping()
}

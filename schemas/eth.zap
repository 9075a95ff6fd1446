package eth  # one package per file; '#' starts a comment to end of line

type address = bytes_fixed[20]  # alias
type hash32 = bytes_fixed[32]

# Doc comments: the '#' lines directly above a declaration or field
# become documentation on the generated item.
struct BalanceRequest {
    Id u64 @0
    # A block number, or a block tag (`latest`, `pending`, `safe`, `finalized`) as a
    # reserved value near u64::MAX; `earliest` is block 0.
    Block u64 @8 json(quantity, block_tags)
    Account address @16
}

struct BalanceResponse {
    Id u64 @0
    # Wei.
    Balance u64 @8 json(quantity)
    Nonce u64 @16 json(quantity)
    BlockHash hash32 @24
}

# The chain id (EIP-155) of this node's chain.
struct ChainIdResponse {
    ChainId u64 @0 json(quantity)
}

# The number of the most recent block.
struct BlockNumberResponse {
    Number u64 @0 json(quantity)
}

# A version string (`net_version`: the network id in decimal; `web3_clientVersion`: the
# client's name and version).
struct VersionResponse {
    Version text @0
}

# `requires 0x1`: a server that checks capabilities answers this call only for a
# capability granting permission bit 0x1 (an extension of this project; see README).
# `json(...)`: how the methods look to Ethereum's JSON-RPC clients (params by position,
# results unwrapped); the ZAP side is unchanged by it.
interface Eth {
    getBalance(req: BalanceRequest) returns (resp: BalanceResponse) requires 0x1 json(
        name = "eth_getBalance", params = [Account, Block], result = Balance)
    chainId() returns (ChainIdResponse) json(name = "eth_chainId", result = ChainId)
    blockNumber() returns (BlockNumberResponse) json(name = "eth_blockNumber", result = Number)
    netVersion() returns (VersionResponse) json(name = "net_version", result = Version)
    clientVersion() returns (VersionResponse) json(name = "web3_clientVersion", result = Version)
}

# The balance lookup of an Ethereum node, and the four calls Ethereum tools make when
# they connect (chain id, block number, network and client versions), in Ethereum's own
# JSON-RPC shapes.
package eth

# The version of this API: the OpenRPC document's `info.version`.
const VERSION: text = "1.0.0"

# A 20-byte account address.
type address = bytes_fixed[20]
# A 32-byte hash.
type hash32 = bytes_fixed[32]

# Which account's balance to read, and at which block.
struct BalanceRequest {
    # The caller's number for this request, echoed in the answer.
    Id u64 @0
    # A block number, or a block tag (`latest`, `pending`, `safe`, `finalized`) as a
    # reserved value near u64::MAX; `earliest` is block 0.
    Block u64 @8 json(quantity, block_tags)
    # The account.
    Account address @16
}

# An account's balance and nonce at a block.
struct BalanceResponse {
    # The request's `Id`.
    Id u64 @0
    # The balance, in wei.
    Balance u64 @8 json(quantity)
    # The number of transactions the account has sent.
    Nonce u64 @16 json(quantity)
    # The hash of the block the balance was read at.
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

# A block header, as `newHeads` sends one for each new block.
struct BlockHeader {
    # The block's number.
    Number u64 @0 json(quantity)
    # When the block was made, in seconds since 1970.
    Timestamp u64 @8 json(quantity)
    # The block's hash.
    Hash hash32 @16
    # The hash of the block before it.
    ParentHash hash32 @48
}

# Which heads to send.
struct HeadsRequest {
    # Send this many heads, then end the stream; 0 sends one per block until the
    # stream is dropped.
    Count u32 @0
}

# Account balances, and what a client asks a node when it connects.
interface Eth {
    # The balance of an account at a block, in wei. A server that checks capabilities
    # answers it only for a capability granting permission 0x1. The reads change
    # nothing: a client may send them again.
    getBalance(req: BalanceRequest) returns (resp: BalanceResponse) no_side_effects requires 0x1 json(
        name = "eth_getBalance", params = [Account, Block], result = Balance)
    # The chain id, for signing transactions (EIP-155).
    chainId() returns (ChainIdResponse) no_side_effects json(name = "eth_chainId", result = ChainId)
    # The number of the most recent block.
    blockNumber() returns (BlockNumberResponse) no_side_effects json(name = "eth_blockNumber", result = Number)
    # The network id, in decimal.
    netVersion() returns (VersionResponse) no_side_effects json(name = "net_version", result = Version)
    # The node software's name and version.
    clientVersion() returns (VersionResponse) no_side_effects json(name = "web3_clientVersion", result = Version)
    # The head of the chain now, then each new head as the chain advances (a server
    # stream; `eth-rpc --block-time` sets how often).
    newHeads(HeadsRequest) returns stream BlockHeader json(subscription = "newHeads")
}

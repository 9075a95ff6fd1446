# The list-heavy record of the codec benches: an eth_getLogs response. Each log has
# pointer fields (its topics and its data), so the logs are a pointer list: element i
# is one 4-byte offset away, whatever the size of the logs before it.
package logs

type address = bytes_fixed[20]
type hash32  = bytes_fixed[32]

struct Log {
    BlockNumber      u64
    TransactionIndex u32
    LogIndex         u32
    Topics           list<hash32>
    Data             bytes
    Address          address
    TransactionHash  hash32
}

struct Logs {
    Logs list<ptr<Log>>
}

package bad

type Hash = bytes_fixed[32]
type hash = bytes_fixed[32]
type hash = bytes_fixed[20]

struct Hash {
    Value u64
}

interface Hash {
    ping()
}

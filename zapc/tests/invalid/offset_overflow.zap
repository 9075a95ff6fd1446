package bad

struct Far {
    Near  u32 @0
    Away  u64 @99999999999999999999
}

struct Edge {
    Start u32 @4294967290
    End   u64
}

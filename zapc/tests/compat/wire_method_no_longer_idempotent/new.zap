struct Put {
    Key u64 @0
}

interface Store {
    put(p: Put) returns (a: Put)
    get(p: Put) returns (a: Put) idempotent
}

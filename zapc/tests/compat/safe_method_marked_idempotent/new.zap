struct Put {
    Key u64 @0
}

interface Store {
    put(p: Put) returns (a: Put) idempotent
    get(p: Put) returns (a: Put) no_side_effects
}

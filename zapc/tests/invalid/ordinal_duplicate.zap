package bad

struct Query { Id u64 }

interface Store {
    # Position 1, but `put` takes ordinal 1 explicitly.
    get(q: Query) returns (r: Query)
    put @1 (q: Query)
    list @4 ()
    scan @4 ()
}

package bad

struct Query { Id u64 }

interface Store {
    get(q: Query) returns (r: Query) json(name = "store_get") deprecated
}

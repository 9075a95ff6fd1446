package bad

struct Query { Id u64 }

interface Store {
    get @ (q: Query)
}

package bad

struct Query { Id u64 }
struct Answer { Id u64 }

interface Store {
    get(q: Query) returns (a: Answer)
    getOwned(q: Query) returns (a: Answer)
    latest() returns Answer
    latest_owned()
    ping()
    pingOwned()
}

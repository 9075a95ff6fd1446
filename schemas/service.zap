# Interfaces: at most one struct parameter and one struct result per method; ordinals
# count from 1 in declaration order.
package service

struct Query {
    Id u64
}
struct Answer {
    Id u64
    Body text
}

interface Store {
    # Full form: named parameter and result.
    get(q: Query) returns (a: Answer)
    # Types only.
    put(Query) returns (Answer)
    # Bare result type.
    latest() returns Answer
    # Parameter only.
    forget(q: Query)
    # Neither.
    ping()
}

package bad

struct A { X u32 }
struct B { Y u32 }

interface Pair {
    join(a: A, b: B) returns (r: A, s: B)
}

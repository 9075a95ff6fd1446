package bad

type blob = bytes
struct Reply { Ok bool }

interface Calc {
    square(n: u64) returns (r: Reply)
    digest(data: blob) returns (list<Reply>)
}

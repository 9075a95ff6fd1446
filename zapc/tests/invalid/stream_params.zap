# Stream parameters: at most one `stream T`, after the opening message; subscriptions.
package bad

struct A {
    X u32
}
struct B {
    Y u32
}

interface Streams {
    twoStreams(stream A, stream B) returns stream A
    openLast(stream A, open: B) returns stream B
    notAStruct(stream u32) returns stream A
}

# A subscription is a server stream: not a call, not a bidirectional stream, and its
# name is given once per interface.
interface Subscriptions {
    unary(A) returns (B) json(subscription = "unary")
    both(stream A) returns stream B json(subscription = "both")
    heads(A) returns stream B json(subscription = "heads")
    moreHeads(A) returns stream B json(name = "more_heads", subscription = "heads")
}

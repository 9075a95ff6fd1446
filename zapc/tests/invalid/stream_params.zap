# Stream parameters: at most one `stream T`, after the opening message.
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

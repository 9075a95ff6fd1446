# Recursive structs: a struct may point at itself, directly or through lists. Decoding
# such a message into owned values is bounded (depth and node budget), so a hostile
# message with a cycle or shared children cannot exhaust the stack or the heap.
package recursive

# A linked chain.
struct Node {
    Value u64
    Next Node
}

# A tree whose children are framed (Label is text), with extra shared references.
struct Tree {
    Label text
    Kids list<Tree>
    Refs list<ptr<Tree>>
}

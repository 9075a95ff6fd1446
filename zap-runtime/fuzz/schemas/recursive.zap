# A self-referential struct through a pointer and through a framed list. Not used by a
# fuzz target yet: decoding a cyclic message overflows the stack (see
# tests/recursive_decode.rs and README.md, "Findings").
package recursive

struct Node { Val u32 @0  Next Node @4 }
struct Tree { Val u32 @0  Kids list<Tree> @8 }

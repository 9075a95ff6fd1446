# Offsets: omitted ones follow the previous slot (no alignment); explicit ones are kept,
# may leave gaps, and move the cursor.
package offsets

struct Packed {
    A u8   # @0
    B u64  # @1, unaligned
    C u16  # @9
}

struct Gapped {
    Head u32 @0
    Tail u32 @16  # bytes 4..16 are a gap
    Next u8       # @20, after Tail
    Back u16 @6   # fills part of the gap
}

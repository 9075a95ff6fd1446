package bad

struct Header {
    Magic   u32 @0
    Length  u64 @4
    Flags   u16 @8
}

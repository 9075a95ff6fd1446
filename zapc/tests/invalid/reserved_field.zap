package bad

struct Account {
    Id u64 @0
    reserved Balance32 u32 @8
    # Over the reserved slot.
    Balance u64 @8
    reserved Note text @16
    # Reserved names stay taken.
    Note text @24
    # Two reserved slots on the same bytes.
    reserved Old u16 @18
}

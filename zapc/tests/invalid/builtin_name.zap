package bad

struct u32 { X u8 }
type text = bytes

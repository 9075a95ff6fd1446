package bad

struct Point { X u32  Y u32 }
struct Point { X u64 }

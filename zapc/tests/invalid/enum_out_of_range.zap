enum Small : u8 { A = 0  B = 256 }

enum Medium : u16
    A = 65535
    B = 65536

enum Large : u32 { A = 4294967296 }

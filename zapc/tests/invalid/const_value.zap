package bad

const SMALL: u8 = 256
const NEGATIVE: u32 = -1
const LOW: i8 = -129
const HUGE: u64 = 18446744073709551616
const HEX: u16 = 0x10000
const FLAG: bool = 1
const NAME: text = true
const LIMIT: u32 = "1000"

package bad

struct Point { X i32 }
type hash = bytes_fixed[32]

const RATIO: f64 = 1
const ORIGIN: Point = 0
const EMPTY: list<u8> = 0
const ZERO: hash = 0
const DATA: bytes = "x"
const TYPO: u33 = 1

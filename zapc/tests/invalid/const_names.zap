package bad

struct Limit { X u32 }

const maxLogs: u32 = 10
const MAX_LOGS: u32 = 20
const Limit: u32 = 1
const _2: u8 = 2
const maxLogs: u32 = 30

package bad

const LIMIT: u32 = ten

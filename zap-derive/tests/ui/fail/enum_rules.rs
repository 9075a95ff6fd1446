use zap_derive::Zap;

// No `Unknown` variant.
#[derive(Zap, Clone, Copy, Debug, PartialEq)]
#[repr(u8)]
enum NoUnknown {
    A = 0,
}

// `Unknown` must hold the representation.
#[derive(Zap, Clone, Copy, Debug, PartialEq)]
#[repr(u8)]
enum WrongUnknown {
    A = 0,
    Unknown(u16),
}

// Values are fieldless.
#[derive(Zap, Clone, Copy, Debug, PartialEq)]
#[repr(u16)]
enum WithFields {
    A(u16),
    Unknown(u16),
}

// 64-bit enums are not supported.
#[derive(Zap, Clone, Copy, Debug, PartialEq)]
#[repr(u64)]
enum Wide {
    A = 0,
    Unknown(u64),
}

// Numbers are integer literals.
const TWO: u8 = 2;
#[derive(Zap, Clone, Copy, Debug, PartialEq)]
#[repr(u8)]
enum Computed {
    A = TWO,
    Unknown(u8),
}

fn main() {}

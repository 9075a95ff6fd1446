use zap_derive::Zap;

#[derive(Zap)]
struct Overlap {
    a: u64,
    #[zap(offset = 4)]
    b: u32,
    c: u16,
    #[zap(offset = 4294967295)]
    d: u64,
}

fn main() {}

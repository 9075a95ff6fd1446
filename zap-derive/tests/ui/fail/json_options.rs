use zap_derive::Zap;

#[derive(Zap)]
#[zap(crate = "::zap_runtime")]
struct Options {
    #[zap(json(quantity))]
    signed: i64,
    #[zap(json(block_tags))]
    narrow: u32,
    #[zap(json(nmae = "x"))]
    misspelt: u64,
    #[zap(json(name = ""))]
    empty: u64,
    #[zap(json(quantity, quantity))]
    twice: u64,
}

fn main() {}

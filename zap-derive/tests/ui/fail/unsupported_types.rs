use zap_derive::Zap;

#[derive(Zap)]
struct Unsupported {
    index: usize,
    big: u128,
    letter: char,
    name: &'static str,
    pair: (u32, u32),
    words: [u32; 4],
    maybe: Option<u32>,
    nested: Vec<Vec<u32>>,
    empty: [u8; 0],
    map: std::collections::HashMap<u32, u32>,
}

fn main() {}

use zap_derive::Zap;

#[derive(Zap)]
struct Pair(u32, u32);

fn main() {}

use zap_derive::Zap;

#[derive(Zap)]
#[zap(crate = "::zap_runtime", packed)]
struct Attrs {
    #[zap(offest = 4)]
    a: u32,
    #[zap(offset = "8")]
    b: u32,
    #[zap(offset = 99999999999)]
    c: u32,
    #[zap(skip, rename = "D")]
    d: u32,
    #[zap(rename = "A")]
    e: u32,
}

fn main() {}

use zap_derive::Zap;

#[derive(Zap)]
struct Inner {
    x: u32,
}

#[derive(Zap)]
struct Outer {
    bare: Inner,
}

fn main() {}

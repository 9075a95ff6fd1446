use zap_derive::Zap;

struct Plain {
    x: u32,
}

#[derive(Zap)]
struct Outer {
    child: Option<Plain>,
}

fn main() {}

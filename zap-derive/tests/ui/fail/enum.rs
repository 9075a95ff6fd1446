use zap_derive::Zap;

#[derive(Zap)]
enum Color {
    Red,
    Green,
}

fn main() {}

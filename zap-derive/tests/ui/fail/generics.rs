use zap_derive::Zap;

#[derive(Zap)]
struct Wrapper<T> {
    value: T,
}

#[derive(Zap)]
struct Borrowed<'a> {
    name: &'a str,
}

fn main() {}

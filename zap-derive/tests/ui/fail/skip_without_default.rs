use zap_derive::Zap;

struct NoDefault;

#[derive(Zap)]
struct Cached {
    id: u64,
    #[zap(skip)]
    cache: NoDefault,
}

fn main() {}

use zap_derive::Zap;

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NotAnEnum;

#[derive(Zap, Clone, Debug, Default, PartialEq)]
pub struct Holder {
    #[zap(enum = u8)]
    pub kind: NotAnEnum,
}

fn main() {}

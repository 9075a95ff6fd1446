//! A derived enum and a struct with enum fields, next to user items that shadow prelude
//! names: the generated code names everything by its full path.
use zap_derive::Zap;
use zap_runtime::{Builder, ZapEnum, ZapStruct};

#[allow(dead_code)]
struct Option;
#[allow(dead_code)]
struct Default;

#[derive(Zap, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u16)]
pub enum Status {
    Active = 1,
    Closed = 2,
    Unknown(u16),
}

#[derive(Zap, Clone, Debug, PartialEq)]
#[zap(rename = "Acct")]
pub struct Account {
    pub id: u64,
    #[zap(enum = u16)]
    pub status: Status,
    #[zap(enum = u16)]
    pub history: Vec<Status>,
}

fn main() {
    assert_eq!(<Status as ZapEnum>::NAME, "Status");
    assert_eq!(<Status as ::core::default::Default>::default(), Status::Unknown(0));
    let account = Account {
        id: 1,
        status: Status::Closed,
        history: vec![Status::Active, Status::Unknown(9)],
    };
    let mut b = Builder::new();
    let bytes = account.encode(&mut b).unwrap().to_vec();
    assert_eq!(Account::decode(&bytes).unwrap(), account);
    assert_eq!(AccountReader::parse(&bytes).unwrap().status(), Status::Closed);
}

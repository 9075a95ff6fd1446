//! Two derived structs that point at each other: the bounds the derive puts on child
//! types must not make a cycle for the trait solver.

use zap_derive::Zap;
use zap_runtime::ZapStruct;

#[derive(Zap, Debug, Default, PartialEq)]
pub struct Ping {
    pub n: u32,
    pub pong: Option<Box<Pong>>,
}

#[derive(Zap, Debug, Default, PartialEq)]
pub struct Pong {
    pub n: u32,
    pub ping: Option<Box<Ping>>,
    pub pings: Vec<Ping>,
}

fn main() {
    let value = Ping {
        n: 1,
        pong: Some(Box::new(Pong {
            n: 2,
            ping: Some(Box::new(Ping { n: 3, pong: None })),
            pings: vec![Ping { n: 4, pong: None }],
        })),
    };
    let wire = value.to_bytes().unwrap();
    assert_eq!(Ping::decode(&wire).unwrap(), value);
    let json = serde_json::to_string(&value).unwrap();
    assert_eq!(serde_json::from_str::<Ping>(&json).unwrap(), value);
    let reader = PingReader::parse(&wire).unwrap();
    assert_eq!(reader.pong().map(|p| p.n()), Some(2));
    assert!(format!("{reader:?}").starts_with("PingReader { n: 1, pong: Object(@"));
}

//! The derive in a module that shadows the names generated code could reach for
//! (`Result`, `Option`, `Vec`, `String`, `Box`, `Default`, `Some`, `Ok`, `core`, `std`)
//! with the default runtime path. The renamed runtime is tested by the crate in
//! `tests/renamed` (a dependency cannot be renamed within one manifest twice).

#![allow(dead_code, non_camel_case_types)]

mod shadowed {
    pub type Result = ();
    pub struct Option;
    pub struct Vec;
    pub struct String;
    pub struct Box;
    pub struct Some;
    pub struct None;
    pub struct Ok;
    pub struct Err;
    pub trait Default {}
    pub trait Clone {}
    pub trait Iterator {}
    pub mod core {}
    pub mod std {}
    pub mod serde {}
    pub mod zap_runtime {}

    use zap_derive::Zap;

    #[derive(Zap, Debug, PartialEq)]
    pub struct Leaf {
        pub tag: u32,
        pub note: ::std::string::String,
    }

    #[derive(Zap, Debug, PartialEq)]
    pub struct Node {
        pub id: u64,
        pub leaves: ::std::vec::Vec<Leaf>,
        pub parent: ::core::option::Option<Leaf>,
        #[zap(skip)]
        pub memo: u8,
    }
}

#[test]
fn shadowed_names_do_not_matter() {
    use zap_runtime::ZapStruct;
    let node = shadowed::Node {
        id: 1,
        leaves: vec![shadowed::Leaf {
            tag: 2,
            note: "x".into(),
        }],
        parent: None,
        memo: 0,
    };
    assert_eq!(
        shadowed::Node::decode(&node.to_bytes().unwrap()).unwrap(),
        node
    );
    let json = serde_json::to_string(&node).unwrap();
    assert_eq!(
        json,
        r#"{"id":1,"leaves":[{"tag":2,"note":"x"}],"parent":null}"#
    );
}

//! Hygiene: `#[derive(Zap)]` in a crate whose runtime dependency is renamed (`zr`), in a
//! module that shadows `Result`, `Option`, `Vec`, `String`, `Box`, `Default` and `Ok`.
//! That this crate compiles is the test; the unit tests check the code also works.

#![allow(dead_code, non_camel_case_types)]

pub mod shadowed {
    // Every name the generated code might reach for unqualified.
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
    pub struct u64_lenient;
    pub mod core {}
    pub mod std {}
    pub mod serde {}

    use zap_derive::Zap;

    #[derive(Zap, Debug, PartialEq)]
    #[zap(crate = "::zr")]
    pub struct Leaf {
        pub tag: u32,
        pub note: ::std::string::String,
    }

    #[derive(Zap, Debug, PartialEq)]
    #[zap(crate = "::zr", rename = "Tree")]
    pub struct Node {
        pub id: u64,
        pub hash: [u8; 40],
        pub leaves: ::std::vec::Vec<Leaf>,
        pub parent: ::core::option::Option<::std::boxed::Box<Leaf>>,
        pub refs: ::std::vec::Vec<::core::option::Option<Leaf>>,
        pub words: ::std::vec::Vec<::std::string::String>,
        #[zap(skip)]
        pub memo: ::std::string::String,
    }
}

#[cfg(test)]
mod tests {
    use super::shadowed::{Leaf, Node, NodeReader};
    use zr::ZapStruct;

    #[test]
    fn the_renamed_runtime_encodes_and_decodes() {
        let node = Node {
            id: 9,
            hash: [7; 40],
            leaves: vec![Leaf {
                tag: 1,
                note: "a".into(),
            }],
            parent: Some(Box::new(Leaf {
                tag: 2,
                note: "b".into(),
            })),
            refs: vec![
                None,
                Some(Leaf {
                    tag: 3,
                    note: "c".into(),
                }),
            ],
            words: vec!["x".into(), "y".into()],
            memo: "not on the wire".into(),
        };
        let bytes = node.to_bytes().unwrap();
        let r = NodeReader::parse(&bytes).unwrap();
        assert_eq!(r.id(), 9);
        assert_eq!(r.leaves().map(|l| l.note()).collect::<Vec<_>>(), ["a"]);
        assert_eq!(r.parent().map(|p| p.tag()), Some(2));
        assert_eq!(r.words().collect::<Vec<_>>(), ["x", "y"]);
        let back = Node::decode(&bytes).unwrap();
        assert_eq!(back.memo, "");
        assert_eq!(back.refs, node.refs);
        assert_eq!(<Node as ZapStruct>::NAME, "Tree");
        const { assert!(!<Node as ZapStruct>::INLINE) };
    }
}

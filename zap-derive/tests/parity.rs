//! Derive twins of `schemas/eth.zap` and `schemas/kitchen.zap` against the code zapc
//! generates for them (the `zapc-generated-tests` crate): byte-identical messages, the
//! same reads of each other's bytes and of the shared vectors (produced by the Python
//! runtime), and the same JSON.

use zap_derive::Zap;
use zap_runtime::{Builder, ZapStruct};
use zapc_generated_tests::{eth, kitchen};

/// The twins, written as a user would (plain `String`, `Vec`, `Option<T>`).
mod twin {
    use zap_derive::Zap;

    #[derive(Zap, Clone, Debug, Default, PartialEq)]
    pub struct BalanceRequest {
        pub id: u64,
        #[zap(json(quantity, block_tags))]
        pub block: u64,
        pub account: [u8; 20],
    }

    #[derive(Zap, Clone, Debug, Default, PartialEq)]
    pub struct BalanceResponse {
        pub id: u64,
        #[zap(json(quantity))]
        pub balance: u64,
        #[zap(json(quantity))]
        pub nonce: u64,
        pub block_hash: [u8; 32],
    }

    #[derive(Zap, Clone, Debug, Default, PartialEq)]
    pub struct Leaf {
        pub tag: u32,
        pub note: String,
    }

    #[derive(Zap, Clone, Debug, Default, PartialEq)]
    pub struct Kitchen {
        pub flag: bool,
        pub a8: u8,
        pub a16: u16,
        pub a32: u32,
        pub a64: u64,
        pub s8: i8,
        #[zap(offset = 18)]
        pub s16: i16,
        pub s32: i32,
        pub s64: i64,
        pub f32: f32,
        #[zap(offset = 40)]
        pub f64: f64,
        pub name: String,
        pub blob: Vec<u8>,
        pub id: [u8; 16],
        pub items: Vec<Leaf>,
        pub inner: Option<Leaf>,
        #[zap(offset = 96)]
        pub nums: Vec<u32>,
    }
}

fn vector(file: &str, name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../zap-runtime/tests/data/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let hex = match doc.get("vectors") {
        Some(vs) => vs
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == name)
            .unwrap()["hex"]
            .clone(),
        None => doc["hex"].clone(),
    };
    hex::decode(hex.as_str().unwrap()).unwrap()
}

const ACCOUNT: [u8; 20] = [
    0xde, 0xad, 0xbe, 0xef, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb,
    0xcc, 0xdd, 0xee, 0xff,
];
const HASH: [u8; 32] = [
    0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10,
    0x0f, 0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x69, 0x78, 0x87, 0x96, 0xa5, 0xb4, 0xc3, 0xd2, 0xe1, 0xf0,
];

#[test]
fn layout_constants_match() {
    assert_eq!(twin::BalanceRequest::SIZE, eth::BalanceRequest::SIZE);
    assert_eq!(twin::BalanceResponse::SIZE, eth::BalanceResponse::SIZE);
    assert_eq!(
        twin::BalanceResponse::BLOCK_HASH_OFFSET,
        eth::BalanceResponse::BLOCK_HASH_OFFSET
    );
    assert_eq!(twin::Kitchen::SIZE, kitchen::Kitchen::SIZE);
    assert_eq!(twin::Kitchen::NUMS_OFFSET, kitchen::Kitchen::NUMS_OFFSET);
    assert_eq!(
        <twin::Kitchen as ZapStruct>::JSON_FIELDS,
        <kitchen::Kitchen as ZapStruct>::JSON_FIELDS
    );
    assert_eq!(
        <twin::Leaf as ZapStruct>::INLINE,
        <kitchen::Leaf as ZapStruct>::INLINE
    );
}

#[test]
fn eth_twins_write_the_flat_vectors() {
    let mut b = Builder::new();
    let mut req = twin::BalanceRequestBuilder::new(&mut b);
    req.set_id(1).set_block(68943).set_account(&ACCOUNT);
    assert_eq!(
        req.finish_message().unwrap(),
        vector("flat.json", "eth_request_fixed")
    );

    let twin = twin::BalanceResponse {
        id: 1,
        balance: 1_000_000_000_000_000_000,
        nonce: 42,
        block_hash: HASH,
    };
    let generated = eth::BalanceResponse {
        id: 1,
        balance: 1_000_000_000_000_000_000,
        nonce: 42,
        block_hash: HASH,
    };
    let fixed = vector("flat.json", "eth_response_fixed");
    assert_eq!(twin.encode(&mut b).unwrap(), fixed);
    assert_eq!(generated.to_bytes().unwrap(), fixed);
    assert_eq!(twin::BalanceResponse::decode(&fixed).unwrap(), twin);
    let r = twin::BalanceResponseReader::parse(&fixed).unwrap();
    assert_eq!(
        (r.balance(), r.nonce(), r.block_hash()),
        (twin.balance, 42, &HASH)
    );
    assert_eq!(
        serde_json::to_value(&twin).unwrap(),
        serde_json::to_value(&generated).unwrap()
    );
}

/// The kitchen values of the nested vector, as the twin.
fn nested_twin() -> twin::Kitchen {
    let leaf = |tag: u32, note: &str| twin::Leaf {
        tag,
        note: note.into(),
    };
    twin::Kitchen {
        flag: true,
        a8: 200,
        a16: 65000,
        a32: 4_000_000_000,
        a64: 9_223_372_036_854_775_813,
        s8: -5,
        s16: -300,
        s32: -70000,
        s64: -1_099_511_627_776,
        f32: 1.5,
        f64: -2.25,
        name: "kitchen éè".into(),
        blob: (0..10).collect(),
        id: *b"defghijklmnopqrs",
        items: vec![leaf(10, "alpha"), leaf(11, ""), leaf(12, "gamma")],
        inner: Some(leaf(77, "inner")),
        nums: vec![1, 2, 3, u32::MAX],
    }
}

#[test]
fn kitchen_twin_reads_the_nested_vector() {
    let wire = vector("nested.json", "");
    let k = twin::KitchenReader::parse(&wire).unwrap();
    assert!(k.flag());
    assert_eq!(k.name(), "kitchen éè");
    let items: Vec<(u32, &str)> = k.items().map(|l| (l.tag(), l.note())).collect();
    assert_eq!(items, [(10, "alpha"), (11, ""), (12, "gamma")]);
    assert_eq!(k.inner().map(|i| (i.tag(), i.note())), Some((77, "inner")));
    assert_eq!(k.nums().collect::<Vec<_>>(), [1, 2, 3, u32::MAX]);
    assert_eq!(twin::Kitchen::decode(&wire).unwrap(), nested_twin());
}

/// Same values through both: the same bytes, each reads the other's, the same JSON.
#[test]
fn kitchen_twin_and_generated_code_agree() {
    let generated = kitchen::Kitchen::decode(&vector("nested.json", "")).unwrap();
    let mut values = vec![(nested_twin(), generated.clone())];
    // Some variations: empty lists, a null child, zero everywhere.
    let mut empty = nested_twin();
    empty.items.clear();
    empty.inner = None;
    empty.nums.clear();
    empty.blob.clear();
    let mut g_empty = generated.clone();
    g_empty.items.clear();
    g_empty.inner = None;
    g_empty.nums.clear();
    g_empty.blob.clear();
    values.push((empty, g_empty));
    values.push((twin::Kitchen::default(), kitchen::Kitchen::default()));

    let mut b = Builder::new();
    for (twin, generated) in values {
        let twin_bytes = twin.encode(&mut b).unwrap().to_vec();
        let generated_bytes = generated.to_bytes().unwrap();
        assert_eq!(twin_bytes, generated_bytes, "byte-identical messages");
        assert_eq!(kitchen::Kitchen::decode(&twin_bytes).unwrap(), generated);
        assert_eq!(twin::Kitchen::decode(&generated_bytes).unwrap(), twin);
        assert_eq!(
            serde_json::to_value(&twin).unwrap(),
            serde_json::to_value(&generated).unwrap(),
            "the same JSON mapping"
        );
        let json = serde_json::to_string(&generated).unwrap();
        assert_eq!(serde_json::from_str::<twin::Kitchen>(&json).unwrap(), twin);
    }
}

/// A strided list of an all-inline derived struct, next to a framed one.
#[test]
fn list_shapes_follow_the_element_struct() {
    #[derive(Zap, Clone, Copy, Debug, Default, PartialEq)]
    struct Point {
        x: u32,
        y: u32,
    }
    #[derive(Zap, Debug, Default, PartialEq)]
    struct Shapes {
        points: Vec<Point>,
        leaves: Vec<twin::Leaf>,
        refs: Vec<Option<Point>>,
    }
    const { assert!(<Point as ZapStruct>::INLINE) };
    const { assert!(!<Shapes as ZapStruct>::INLINE) };
    let v = Shapes {
        points: vec![Point { x: 1, y: 2 }, Point { x: 3, y: 4 }],
        leaves: vec![twin::Leaf {
            tag: 5,
            note: "five".into(),
        }],
        refs: vec![Some(Point { x: 9, y: 9 }), None],
    };
    let bytes = v.to_bytes().unwrap();
    let r = ShapesReader::parse(&bytes).unwrap();
    // Strided: the list's elements are 8 bytes apart, right after the list start.
    let list = r.as_object().list(Shapes::POINTS_OFFSET);
    assert_eq!(
        list.objects(8).map(|o| o.u32(4)).collect::<Vec<_>>(),
        [2, 4]
    );
    assert_eq!(r.points().map(|p| p.x()).collect::<Vec<_>>(), [1, 3]);
    assert_eq!(r.leaves().map(|l| l.note()).collect::<Vec<_>>(), ["five"]);
    assert_eq!(
        r.refs().map(|p| p.map(|p| p.y())).collect::<Vec<_>>(),
        [Some(9), None]
    );
    assert_eq!(Shapes::decode(&bytes).unwrap(), v);
}

/// `#[zap(json(...))]` gives the derive the schema's JSON options: quantities and block
/// tags, read and written as by the generated code.
#[test]
fn json_options_match_the_schema() {
    let json =
        r#"{"id": 3, "block": "latest", "account": "0x0101010101010101010101010101010101010101"}"#;
    let twin: twin::BalanceRequest = serde_json::from_str(json).unwrap();
    let generated: eth::BalanceRequest = serde_json::from_str(json).unwrap();
    assert_eq!(twin.block, u64::MAX);
    assert_eq!(
        twin.encode(&mut Builder::new()).unwrap(),
        generated.to_bytes().unwrap()
    );
    assert_eq!(serde_json::to_value(&twin).unwrap()["block"], "latest");
    let refused = r#"{"block": "0x01"}"#;
    let e = serde_json::from_str::<twin::BalanceRequest>(refused).unwrap_err();
    assert!(e.to_string().contains("leading zero"), "{e}");
    assert!(serde_json::from_str::<eth::BalanceRequest>(refused).is_err());
    let response = twin::BalanceResponse {
        balance: 1024,
        ..Default::default()
    };
    assert_eq!(serde_json::to_value(&response).unwrap()["balance"], "0x400");
}

/// Derive twins of the enums of `schemas/enums.zap` and a struct using them.
mod enum_twins {
    use zap_derive::Zap;

    #[derive(Zap, Clone, Copy, Debug, PartialEq, Eq)]
    #[repr(u8)]
    pub enum Color {
        Red = 0,
        Green = 1,
        Blue = 7,
        Unknown(u8),
    }

    /// Discriminants counted as Rust counts them: `Low` is 1, after `Unknown`'s 0.
    #[derive(Zap, Clone, Copy, Debug, PartialEq, Eq)]
    #[repr(u32)]
    pub enum Flag {
        Unknown(u32),
        Low,
        High = 4_000_000_000,
    }

    #[derive(Zap, Clone, Debug, Default, PartialEq)]
    pub struct Pixel {
        pub x: u16,
        pub y: u16,
        #[zap(enum = u8)]
        pub color: Color,
        #[zap(enum = u8)]
        pub shade: Color,
    }

    /// Not in the schema: a list of an enum, whose JSON shows names and numbers.
    #[derive(Zap, Clone, Debug, Default, PartialEq)]
    pub struct Flags {
        #[zap(enum = u32)]
        pub flags: Vec<Flag>,
        pub note: String,
    }
}

#[test]
fn enum_twins_write_and_read_what_the_schema_code_does() {
    use zap_runtime::ZapEnum;
    use zapc_generated_tests::enums;

    let twin = enum_twins::Pixel {
        x: 3,
        y: 4,
        color: enum_twins::Color::Blue,
        shade: enum_twins::Color::Unknown(9),
    };
    let generated = enums::Pixel {
        x: 3,
        y: 4,
        color: enums::Color::Blue,
        shade: enums::Color::Unknown(9),
    };
    let mut b = Builder::new();
    let bytes = twin.encode(&mut b).unwrap().to_vec();
    assert_eq!(bytes, generated.to_bytes().unwrap());
    assert_eq!(enum_twins::Pixel::decode(&bytes).unwrap(), twin);
    assert_eq!(
        serde_json::to_value(&twin).unwrap(),
        serde_json::to_value(&generated).unwrap()
    );
    assert_eq!(
        serde_json::to_value(&twin).unwrap()["shade"],
        serde_json::json!(9)
    );
    assert_eq!(
        <enum_twins::Color as ZapEnum>::VALUES,
        <enums::Color as ZapEnum>::VALUES
    );
    assert_eq!(
        <enum_twins::Flag as ZapEnum>::VALUES,
        <enums::Flag as ZapEnum>::VALUES
    );
    assert_eq!(enum_twins::Flag::default(), enum_twins::Flag::Unknown(0));
    assert_eq!(u8::from(enum_twins::Color::Blue), 7);
    assert_eq!(enum_twins::Color::from(8u8), enum_twins::Color::Unknown(8));

    let flags = enum_twins::Flags {
        flags: vec![enum_twins::Flag::High, enum_twins::Flag::Unknown(5)],
        note: "n".into(),
    };
    let json = serde_json::to_string(&flags).unwrap();
    assert_eq!(json, r#"{"flags":["High",5],"note":"n"}"#);
    assert_eq!(
        serde_json::from_str::<enum_twins::Flags>(&json).unwrap(),
        flags
    );
    let bytes = flags.encode(&mut b).unwrap().to_vec();
    let r = enum_twins::FlagsReader::parse(&bytes).unwrap();
    assert_eq!(r.flags().collect::<Vec<_>>(), flags.flags);
}

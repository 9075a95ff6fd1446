//! Generated builders reproduce the flat vectors byte for byte; generated readers read
//! the nested vector (both produced by the Python runtime, zap-proto 1.4.1).

use zap_runtime::{Builder, ZapStruct};
use zapc_generated_tests::{eth, golden, kitchen, tails};

fn vector(file: &str, name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../../../zap-runtime/tests/data/{file}",
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
fn eth_fixed_vectors_from_setters_and_from_owned_values() {
    let mut b = Builder::new();
    let mut req = eth::BalanceRequestBuilder::new(&mut b);
    req.set_id(1).set_block(68943).set_account(&ACCOUNT);
    assert_eq!(
        req.finish_message().unwrap(),
        vector("flat.json", "eth_request_fixed")
    );

    let resp = eth::BalanceResponse {
        id: 1,
        balance: 1_000_000_000_000_000_000,
        nonce: 42,
        block_hash: HASH,
    };
    assert_eq!(
        resp.encode(&mut b).unwrap(),
        vector("flat.json", "eth_response_fixed")
    );
    assert_eq!(
        eth::BalanceResponse::decode(&vector("flat.json", "eth_response_fixed")).unwrap(),
        resp
    );
    assert_eq!(eth::BalanceResponse::SIZE, 56);
    assert_eq!(eth::BalanceResponse::BLOCK_HASH_OFFSET, 24);
}

#[test]
fn tails_and_golden_vectors() {
    let req = tails::BalanceRequest {
        id: 1,
        block: 68943,
        method: "eth_getBalance".into(),
        account: ACCOUNT.to_vec(),
    };
    assert_eq!(
        req.to_bytes().unwrap(),
        vector("flat.json", "eth_request_tails")
    );
    let resp = tails::BalanceResponse {
        id: 1,
        balance: 1_000_000_000_000_000_000,
        nonce: 42,
        block_hash: HASH.to_vec(),
    };
    assert_eq!(
        resp.to_bytes().unwrap(),
        vector("flat.json", "eth_response_tails")
    );

    let g = golden::Golden {
        magic: 0xDEAD_BEEF,
        name: "zap".into(),
        blob: vec![1, 2, 3, 4],
    };
    assert_eq!(g.to_bytes().unwrap(), vector("flat.json", "golden_v1"));
    let v2 = vector("flat.json", "golden_v2");
    let r = golden::GoldenReader::parse(&v2).unwrap();
    assert_eq!(
        (r.magic(), r.name(), r.blob()),
        (0xDEAD_BEEF, "zap", &[1u8, 2, 3, 4][..])
    );
    assert_eq!(r.to_value(), g);
}

#[test]
fn nested_vector_through_generated_readers() {
    let wire = vector("nested.json", "");
    let k = kitchen::KitchenReader::parse(&wire).unwrap();
    assert!(k.flag());
    assert_eq!(
        (k.a8(), k.a16(), k.a32(), k.a64()),
        (200, 65000, 4_000_000_000, 9_223_372_036_854_775_813)
    );
    assert_eq!(
        (k.s8(), k.s16(), k.s32(), k.s64()),
        (-5, -300, -70000, -1_099_511_627_776)
    );
    assert_eq!((k.f32(), k.f64()), (1.5, -2.25));
    assert_eq!(k.name(), "kitchen éè");
    assert_eq!(k.blob(), &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert_eq!(k.id(), b"defghijklmnopqrs");
    let items: Vec<(u32, &str)> = k.items().map(|l| (l.tag(), l.note())).collect();
    assert_eq!(items, [(10, "alpha"), (11, ""), (12, "gamma")]);
    let inner = k.inner().expect("Inner is set");
    assert_eq!((inner.tag(), inner.note()), (77, "inner"));
    assert_eq!(k.nums().collect::<Vec<_>>(), [1, 2, 3, u32::MAX]);

    // The owned value and the JSON mapping agree with the vector's listed values.
    let owned = k.to_value();
    let json = serde_json::to_value(&owned).unwrap();
    assert_eq!(json["a64"], serde_json::json!(9_223_372_036_854_775_813u64));
    assert_eq!(json["blob"], "0x00010203040506070809");
    assert_eq!(json["id"], "0x6465666768696a6b6c6d6e6f70717273");
    assert_eq!(
        json["items"][0],
        serde_json::json!({"tag": 10, "note": "alpha"})
    );
    assert_eq!(
        json["inner"],
        serde_json::json!({"tag": 77, "note": "inner"})
    );
    // Re-encoding the owned value reads back the same (byte identity is not required for
    // nested messages, value identity is).
    assert_eq!(
        kitchen::Kitchen::decode(&owned.to_bytes().unwrap()).unwrap(),
        owned
    );
}

/// A generated reader's `Debug` shows its fields by name (values for scalars and bytes,
/// positions for children and lists), not the message buffer.
#[test]
fn readers_debug_their_fields() {
    let wire = vector("flat.json", "eth_request_fixed");
    let r = eth::BalanceRequestReader::parse(&wire).unwrap();
    let shown = format!("{r:?}");
    assert!(
        shown.starts_with("BalanceRequestReader { id: 1, block: 68943, account: ["),
        "{shown}"
    );
    let nested = vector("nested.json", "");
    let k = kitchen::KitchenReader::parse(&nested).unwrap();
    let shown = format!("{k:?}");
    assert!(shown.contains("inner: Object(@"), "{shown}");
    assert!(shown.contains("items: List { at: "), "{shown}");
    assert!(shown.contains("nums: ["), "{shown}");
    let mut b = zap_runtime::Builder::new();
    let builder = eth::BalanceRequestBuilder::new(&mut b);
    assert_eq!(
        format!("{builder:?}"),
        "BalanceRequestBuilder { object: ObjectBuilder { offset: 16, size: 36 } }"
    );
}

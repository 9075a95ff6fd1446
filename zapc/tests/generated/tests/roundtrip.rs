//! Random values through the generated code: owned -> builder -> reader -> owned, and
//! owned -> JSON -> owned, for every field type and list shape. Seeded; the seed is
//! printed and `ZAP_ROUNDTRIP_SEED` reproduces a run.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use zap_runtime::{Builder, ZapStruct};
use zapc_generated_tests::{aliases, eth, kitchen, lists, offsets};

fn rng() -> StdRng {
    let seed = std::env::var("ZAP_ROUNDTRIP_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random);
    eprintln!("seed {seed} (rerun with ZAP_ROUNDTRIP_SEED={seed})");
    StdRng::seed_from_u64(seed)
}

fn text(r: &mut StdRng) -> String {
    const PARTS: &[&str] = &["", "a", "zap", "é", "日本", "🦀", "\u{0}", "longer text "];
    (0..r.gen_range(0..5))
        .map(|_| PARTS[r.gen_range(0..PARTS.len())])
        .collect()
}

fn bytes(r: &mut StdRng) -> Vec<u8> {
    (0..r.gen_range(0..20)).map(|_| r.gen()).collect()
}

/// Finite floats only: JSON has no NaN or infinity.
fn f32_(r: &mut StdRng) -> f32 {
    loop {
        let f = f32::from_bits(r.gen());
        if f.is_finite() {
            return f;
        }
    }
}

fn f64_(r: &mut StdRng) -> f64 {
    loop {
        let f = f64::from_bits(r.gen());
        if f.is_finite() {
            return f;
        }
    }
}

fn leaf(r: &mut StdRng) -> kitchen::Leaf {
    kitchen::Leaf {
        tag: r.gen(),
        note: text(r),
    }
}

fn kitchen(r: &mut StdRng) -> kitchen::Kitchen {
    kitchen::Kitchen {
        flag: r.gen(),
        a8: r.gen(),
        a16: r.gen(),
        a32: r.gen(),
        a64: r.gen(),
        s8: r.gen(),
        s16: r.gen(),
        s32: r.gen(),
        s64: r.gen(),
        f32: f32_(r),
        f64: f64_(r),
        name: text(r),
        blob: bytes(r),
        id: r.gen(),
        items: (0..r.gen_range(0..4)).map(|_| leaf(r)).collect(),
        inner: r.gen_bool(0.7).then(|| Box::new(leaf(r))),
        nums: (0..r.gen_range(0..6)).map(|_| r.gen()).collect(),
    }
}

fn named(r: &mut StdRng) -> lists::Named {
    lists::Named {
        id: r.gen(),
        label: text(r),
    }
}

fn lists(r: &mut StdRng) -> lists::Lists {
    lists::Lists {
        numbers: (0..r.gen_range(0..5)).map(|_| r.gen()).collect(),
        flags: (0..r.gen_range(0..5)).map(|_| r.gen()).collect(),
        hashes: (0..r.gen_range(0..3)).map(|_| r.gen()).collect(),
        points: (0..r.gen_range(0..4))
            .map(|_| lists::Point {
                x: r.gen(),
                y: r.gen(),
            })
            .collect(),
        names: (0..r.gen_range(0..4)).map(|_| named(r)).collect(),
        words: (0..r.gen_range(0..4)).map(|_| text(r)).collect(),
        blobs: (0..r.gen_range(0..4)).map(|_| bytes(r)).collect(),
        refs: (0..r.gen_range(0..4))
            .map(|_| r.gen_bool(0.7).then(|| named(r)))
            .collect(),
    }
}

fn transfer(r: &mut StdRng) -> aliases::Transfer {
    aliases::Transfer {
        from: r.gen(),
        to: r.gen(),
        amounts: (0..r.gen_range(0..4)).map(|_| r.gen()).collect(),
        parent: r.gen(),
        sender: r.gen_bool(0.5).then(|| {
            Box::new(aliases::Account {
                owner: r.gen(),
                root: r.gen(),
            })
        }),
        hashes: (0..r.gen_range(0..3)).map(|_| r.gen()).collect(),
    }
}

/// Binary and JSON round trips of one value, with one reused builder.
fn round_trip<T>(value: &T, b: &mut Builder)
where
    T: ZapStruct + PartialEq + std::fmt::Debug + serde::Serialize + serde::de::DeserializeOwned,
{
    let wire = value.encode(b).unwrap().to_vec();
    assert_eq!(&T::decode(&wire).unwrap(), value, "binary round trip");
    // `encode` may take a fast path (all-inline structs write one stack array); it must
    // give exactly the bytes of the generic path through the builder.
    let mut generic = Builder::new();
    let mut obj = generic.start_object(T::SIZE);
    value.write_fields(&mut obj);
    obj.finish_as_root();
    assert_eq!(
        generic.finish().unwrap(),
        &wire[..],
        "fast and generic encodings agree"
    );
    assert_eq!(
        value.to_bytes().unwrap(),
        wire,
        "a fresh builder gives the reused builder's bytes"
    );
    let json = serde_json::to_string(value).unwrap();
    assert_eq!(
        &serde_json::from_str::<T>(&json).unwrap(),
        value,
        "JSON round trip of {json}"
    );
}

#[test]
fn random_values_round_trip_through_generated_code() {
    let mut r = rng();
    let mut b = Builder::new();
    for _ in 0..300 {
        round_trip(&kitchen(&mut r), &mut b);
        round_trip(&lists(&mut r), &mut b);
        round_trip(&transfer(&mut r), &mut b);
        round_trip(
            &offsets::Gapped {
                head: r.gen(),
                tail: r.gen(),
                next: r.gen(),
                back: r.gen(),
            },
            &mut b,
        );
        let packed = offsets::Packed {
            a: r.gen(),
            b: r.gen(),
            c: r.gen(),
        };
        round_trip(&packed, &mut b);
        round_trip(
            &lists::Point {
                x: r.gen(),
                y: r.gen(),
            },
            &mut b,
        );
        let account = aliases::Account {
            owner: r.gen(),
            root: r.gen(),
        };
        round_trip(&account, &mut b);
        round_trip(
            &eth::BalanceResponse {
                id: r.gen(),
                balance: r.gen(),
                nonce: r.gen(),
                block_hash: r.gen(),
            },
            &mut b,
        );
    }
}

#[test]
fn readers_see_what_owned_values_wrote() {
    let mut r = rng();
    let mut b = Builder::new();
    for _ in 0..100 {
        let l = lists(&mut r);
        let wire = l.encode(&mut b).unwrap().to_vec();
        let reader = lists::ListsReader::parse(&wire).unwrap();
        assert_eq!(reader.numbers().collect::<Vec<_>>(), l.numbers);
        assert_eq!(reader.flags().collect::<Vec<_>>(), l.flags);
        assert_eq!(reader.hashes().copied().collect::<Vec<_>>(), l.hashes);
        let points: Vec<(u32, u32)> = reader.points().map(|p| (p.x(), p.y())).collect();
        assert_eq!(
            points,
            l.points.iter().map(|p| (p.x, p.y)).collect::<Vec<_>>()
        );
        let names: Vec<(u32, &str)> = reader.names().map(|n| (n.id(), n.label())).collect();
        assert_eq!(
            names,
            l.names
                .iter()
                .map(|n| (n.id, n.label.as_str()))
                .collect::<Vec<_>>()
        );
        assert_eq!(reader.words().collect::<Vec<_>>(), l.words);
        assert_eq!(
            reader.blobs().map(<[u8]>::to_vec).collect::<Vec<_>>(),
            l.blobs
        );
        let refs: Vec<Option<u32>> = reader.refs().map(|n| n.map(|n| n.id())).collect();
        assert_eq!(
            refs,
            l.refs
                .iter()
                .map(|n| n.as_ref().map(|n| n.id))
                .collect::<Vec<_>>()
        );
        // Random access to a pointer list (O(1) `nth`) agrees with iterating it, past the
        // end included.
        for i in 0..=refs.len() + 1 {
            let got = reader.refs().nth(i).map(|n| n.map(|n| n.id()));
            assert_eq!(got, refs.get(i).copied(), "refs().nth({i})");
        }
        let mut it = reader.refs();
        if refs.len() >= 3 {
            assert_eq!(it.nth(1).map(|n| n.map(|n| n.id())), Some(refs[1]));
            assert_eq!(it.len(), refs.len() - 2);
            assert_eq!(it.next().map(|n| n.map(|n| n.id())), Some(refs[2]));
        }
    }
}

#[test]
fn json_mapping_follows_the_spec() {
    let t = aliases::Transfer {
        from: [0xab; 20],
        amounts: vec![1, u64::MAX],
        sender: None,
        ..Default::default()
    };
    let json = serde_json::to_value(&t).unwrap();
    assert_eq!(json["from"], format!("0x{}", "ab".repeat(20)));
    assert_eq!(json["amounts"], serde_json::json!([1, u64::MAX]));
    assert_eq!(json["sender"], serde_json::Value::Null);
    assert_eq!(json["hashes"], serde_json::json!([]));
    // 64-bit integers are also accepted as decimal and 0x strings; absent fields are zero.
    let t: aliases::Transfer =
        serde_json::from_str(r#"{"amounts": ["18446744073709551615", "0x10", 3]}"#).unwrap();
    assert_eq!(t.amounts, [u64::MAX, 16, 3]);
    assert_eq!(t.from, [0; 20]);
    let k: kitchen::Kitchen = serde_json::from_str(r#"{"a64": "0xFF", "s64": "-5"}"#).unwrap();
    assert_eq!((k.a64, k.s64), (255, -5));
    // Wrong lengths and bad hex are refused with a message.
    let e = serde_json::from_str::<aliases::Transfer>(r#"{"from": "0x00"}"#).unwrap_err();
    assert!(
        e.to_string().contains("expected 20 bytes of hex, found 1"),
        "{e}"
    );
    let e = serde_json::from_str::<kitchen::Kitchen>(r#"{"blob": "0xzz"}"#).unwrap_err();
    assert!(e.to_string().contains("not a hex digit"), "{e}");
}

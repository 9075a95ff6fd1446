//! Capability interop with the real Python peer, `zap-proto[crypto]` 1.4.1, both ways
//! and for every scheme: caps minted by Python verify here, caps minted here verify in
//! Python, both compute the same canonical bytes, CapIDs and issuer ids, Ed25519 caps
//! are byte-identical, and ML-DSA-65 keys move between the two unchanged.

use crate::python_crypto;

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};
use zap_runtime::cap::*;

const TARGET: [u8; 32] = [0x5a; 32];

fn peer(req: Value) -> Value {
    let py = python_crypto::zap_proto_crypto();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/cap_peer.py");
    let out = py.run(&script, req.to_string().as_bytes());
    serde_json::from_slice(&out).unwrap_or_else(|e| {
        panic!(
            "cap_peer.py answered no JSON ({e}): {}",
            String::from_utf8_lossy(&out)
        )
    })
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970")
        .as_secs()
}

fn unhex(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().unwrap_or_else(|| panic!("not a string: {v}"))).expect("hex")
}

fn scheme_named(name: &str) -> Scheme {
    Scheme::ALL
        .into_iter()
        .find(|s| s.name() == name)
        .expect("a scheme name")
}

/// The canonical bytes and CapID Rust computes equal the ones Python reports.
fn assert_same_view(what: &str, described: &Value) {
    let bytes = unhex(&described["hex"]);
    let cap = Capability::decode(&bytes).unwrap_or_else(|e| panic!("{what}: {e:?}"));
    assert_eq!(
        hex::encode(cap.canonical_bytes()),
        described["canonical"].as_str().unwrap(),
        "{what}: canonical bytes"
    );
    assert_eq!(
        hex::encode(cap.id()),
        described["id"].as_str().unwrap(),
        "{what}: CapID"
    );
}

fn unauthorized(r: Result<(), CapError>) -> Refusal {
    match r {
        Err(CapError::Unauthorized(why)) => why,
        other => panic!("expected Unauthorized, got {other:?}"),
    }
}

#[test]
fn caps_minted_by_python_verify_in_rust_for_every_scheme() {
    let now = now();
    for name in ["ed25519", "mldsa65", "secp256k1"] {
        let scheme = scheme_named(name);
        let r =
            peer(json!({"op": "mint", "scheme": name, "now": now, "target": hex::encode(TARGET)}));
        for cap in ["root", "child", "caveated"] {
            assert_same_view(&format!("{name} {cap}"), &r[cap]);
        }
        let root_pub = PublicKey::from_bytes(scheme, &unhex(&r["root_pub"])).unwrap();
        assert_eq!(hex::encode(root_pub.id()), r["root_id"].as_str().unwrap());
        let delegate_pub = PublicKey::from_bytes(scheme, &unhex(&r["delegate_pub"])).unwrap();
        assert_eq!(
            hex::encode(delegate_pub.id()),
            r["delegate_id"].as_str().unwrap()
        );

        let trust = format!(
            "# the Python peer's root\n{name} {}\n",
            r["root_pub"].as_str().unwrap()
        );
        let policy = Policy::builder(TARGET)
            .trust_all(parse_trust_file(&trust).unwrap())
            .method(1, 0b001)
            .method(3, 0b100)
            .build();
        let root = unhex(&r["root"]["hex"]);
        let child = unhex(&r["child"]["hex"]);
        policy
            .check(&root, 0b111 | PERM_ATTENUATE, now)
            .unwrap_or_else(|e| panic!("{name} root: {e}"));

        let chain = encode_chain(&[
            ChainLink {
                cap: &child,
                issuer_key: delegate_pub.as_bytes(),
            },
            ChainLink {
                cap: &root,
                issuer_key: &[],
            },
        ])
        .unwrap();
        assert_eq!(extend_chain(&root, &child, &delegate_pub).unwrap(), chain);
        policy
            .check_method(&chain, 1, now)
            .unwrap_or_else(|e| panic!("{name} chain: {e}"));
        assert_eq!(
            policy.check_method(&chain, 3, now),
            Err(CapError::Forbidden(Refusal::MissingPermission {
                required: 0b100,
                granted: 0b011
            })),
            "{name}: the child was narrowed to 0b011"
        );
        assert!(matches!(
            unauthorized(policy.check(&child, 0b001, now)),
            Refusal::BrokenChain(_)
        ));
        assert_eq!(
            unauthorized(policy.check(&unhex(&r["caveated"]["hex"]), 0b001, now)),
            Refusal::UnknownCaveat(0x01),
            "{name}: a caveat this runtime does not implement is refused"
        );
        // Not trusted without the trust entry.
        let stranger = Policy::builder(TARGET).build();
        assert_eq!(
            unauthorized(stranger.check(&root, 0b001, now)),
            Refusal::UnknownIssuer
        );
    }
}

#[test]
fn caps_minted_in_rust_verify_in_python_for_every_scheme() {
    let now = now();
    let end_holder = issuer_id(b"end holder");
    for scheme in Scheme::ALL {
        let root_key = SigningKey::generate(scheme).unwrap();
        let delegate = SigningKey::generate(scheme).unwrap();
        let root = issue(
            &Issuance {
                kind: 0x01,
                target: TARGET,
                holder: *delegate.id(),
                permissions: PERM_ATTENUATE | 0b111,
                issued_at: now - 10,
                expires_at: now + 3600,
                ..Default::default()
            },
            &root_key,
        )
        .unwrap();
        let child = attenuate(
            &Capability::decode(&root).unwrap(),
            &Attenuation {
                holder: end_holder,
                permissions: 0b011,
                issued_at: now,
                expires_at: now + 1800,
                caveats: &[],
            },
            &delegate,
        )
        .unwrap();
        let keys = json!([
            hex::encode(root_key.public_key().as_bytes()),
            hex::encode(delegate.public_key().as_bytes())
        ]);
        let ask = |leaf: &[u8], chain: &[&[u8]], op: u64, holder: &[u8; 32]| {
            let mut req = json!({
                "keys": keys, "leaf": hex::encode(leaf),
                "chain": chain.iter().map(hex::encode).collect::<Vec<_>>(),
                "target": hex::encode(TARGET), "holder": hex::encode(holder), "now": now,
            });
            req["op"] = json!("verify");
            req["op_bits"] = json!(op);
            peer(req)
        };
        let ok = ask(&child, &[&root], 0b001, &end_holder);
        assert_eq!(
            ok["ok"],
            json!(true),
            "{scheme}: Python refuses Rust's chain: {ok}"
        );
        let ok = ask(&root, &[], 0b100, delegate.id());
        assert_eq!(
            ok["ok"],
            json!(true),
            "{scheme}: Python refuses Rust's root: {ok}"
        );
        let no = ask(&child, &[&root], 0b100, &end_holder);
        assert_eq!(
            no["error"],
            json!("OpNotPermittedError"),
            "{scheme}: Python must see the narrowed permissions: {no}"
        );

        let described =
            peer(json!({"op": "describe", "caps": [hex::encode(&root), hex::encode(&child)]}));
        for (bytes, d) in [&root, &child]
            .into_iter()
            .zip(described["caps"].as_array().unwrap())
        {
            assert_eq!(&unhex(&d["hex"]), bytes);
            assert_same_view(&format!("{scheme} rust-minted"), d);
        }
    }
}

#[test]
fn ed25519_caps_are_byte_identical_to_pythons() {
    let seed = [0x42u8; 32];
    let key = SigningKey::from_secret(Scheme::Ed25519, &seed).unwrap();
    let value_a = b"\x10\x27\x00".as_slice();
    let caveat_sets: [&[Caveat<'_>]; 2] = [
        &[],
        &[
            Caveat {
                kind: 0x01,
                value: value_a,
            },
            Caveat {
                kind: 0x08,
                value: &[],
            },
            Caveat {
                kind: 0x05,
                value: b"asset-7",
            },
        ],
    ];
    for caveats in caveat_sets {
        let what = Issuance {
            kind: 0x11,
            target: TARGET,
            holder: [0x33; 32],
            permissions: PERM_ATTENUATE | 0xF0F0,
            parent: [0; 32],
            issued_at: 1_700_000_000,
            expires_at: 1_800_000_000,
            caveats,
        };
        let ours = issue(&what, &key).unwrap();
        let theirs = peer(json!({
            "op": "issue", "seed": hex::encode(seed), "kind": what.kind,
            "target": hex::encode(what.target), "holder": hex::encode(what.holder),
            "permissions": what.permissions, "parent": hex::encode(what.parent),
            "issued_at": what.issued_at, "expires_at": what.expires_at,
            "caveats": caveats.iter().map(|c| json!([c.kind, hex::encode(c.value)])).collect::<Vec<_>>(),
        }));
        assert_eq!(
            hex::encode(key.public_key().as_bytes()),
            theirs["pub"].as_str().unwrap()
        );
        assert_eq!(
            hex::encode(&ours),
            theirs["hex"].as_str().unwrap(),
            "the same Ed25519 cap ({} caveats) must be the same bytes",
            caveats.len()
        );
    }
}

#[test]
fn mldsa65_keys_move_between_rust_and_python_unchanged() {
    // A key made in Rust, exported as the (public, expanded secret) pair the Python
    // signer loads; Python (PQClean) signs a root with it; Rust verifies under the
    // public key it derived itself. That needs both encodings to agree byte for byte.
    let key = SigningKey::from_secret(Scheme::MlDsa65, &[0x17; 32]).unwrap();
    let sk = key.mldsa65_expanded_secret().unwrap();
    assert_eq!(sk.len(), 4032);
    let now = now();
    let r = peer(json!({
        "op": "mint", "scheme": "mldsa65", "now": now, "target": hex::encode(TARGET),
        "root_mldsa": {"pk": hex::encode(key.public_key().as_bytes()), "sk": hex::encode(&sk)},
    }));
    assert_eq!(
        r["root_pub"].as_str().unwrap(),
        hex::encode(key.public_key().as_bytes())
    );
    assert_eq!(r["root_id"].as_str().unwrap(), hex::encode(key.id()));
    let policy = Policy::builder(TARGET)
        .trust(key.public_key().clone())
        .build();
    policy
        .check(&unhex(&r["root"]["hex"]), 0b111, now)
        .expect("Python's signature with the Rust-made key verifies in Rust");
}

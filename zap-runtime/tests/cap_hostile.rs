//! Hostile bytes never panic the capability decoder or verifier, and never verify:
//! random buffers up to 3,600 bytes (a header-shaped prefix half the time, so the
//! structural checks are reached), and valid caps and chains with bytes flipped,
//! overwritten, truncated or extended.

use crate::cap_kit;

use std::sync::OnceLock;

use cap_kit::*;
use proptest::prelude::*;
use zap_runtime::cap::*;

struct Fixture {
    policy: Policy,
    valid: Vec<Vec<u8>>,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let mut policy = Policy::builder(TARGET).cache_capacity(64);
        let mut valid = Vec::new();
        for scheme in Scheme::ALL {
            policy = policy.trust(key(scheme, 1).public_key().clone());
            let (chain, root, _) = chain(scheme);
            valid.push(root);
            valid.push(chain);
        }
        Fixture {
            policy: policy.build(),
            valid,
        }
    })
}

/// Everything a server does with a `Cap` field; must not panic.
fn exercise(bytes: &[u8]) -> Result<(), CapError> {
    let f = fixture();
    if let Ok(cap) = Capability::decode(bytes) {
        let _ = (cap.id(), cap.canonical_bytes(), cap.caveats().count());
    }
    if let Ok(p) = Presented::decode(bytes) {
        for (cap, _) in p.links() {
            let _ = cap.id();
        }
    }
    let _ = f.policy.verify(bytes, NOW);
    f.policy.check(bytes, 0b0001, NOW)
}

fn header_shaped() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(any::<u8>(), 0..3600),
        any::<bool>(),
        any::<u16>(),
    )
        .prop_map(|(mut b, shape, flags)| {
            if shape && b.len() >= 16 {
                let len = b.len() as u32;
                b[..4].copy_from_slice(b"ZAP\0");
                b[4..6].copy_from_slice(&1u16.to_le_bytes());
                b[6..8].copy_from_slice(&[0, 0xCA, 0, 0][(flags % 2) as usize * 2..][..2]);
                b[8..12].copy_from_slice(&16u32.to_le_bytes());
                b[12..16].copy_from_slice(&len.to_le_bytes());
            }
            b
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_never_panic_or_verify(bytes in header_shaped()) {
        prop_assert!(exercise(&bytes).is_err());
    }

    #[test]
    fn mutated_caps_never_panic(
        which in 0usize..6,
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in any::<prop::sample::Index>(),
        mode in 0u8..4,
    ) {
        let f = fixture();
        let mut bytes = f.valid[which].clone();
        match mode {
            0 => bytes.truncate(cut.index(bytes.len())),
            1 => bytes.extend(edits.iter().map(|(_, b)| *b)),
            _ => {
                for (at, v) in &edits {
                    let i = at.index(bytes.len());
                    bytes[i] = if mode == 2 { bytes[i] ^ v.max(&1) } else { *v };
                }
            }
        }
        let result = exercise(&bytes);
        if bytes != f.valid[which] && result.is_ok() {
            // Some bytes are outside everything signed and identified: the header's
            // version (1 or 2), the alignment padding before the caveat list. A change
            // there leaves the same capability: every link must keep its CapID.
            let ids = |b: &[u8]| -> Vec<[u8; 32]> {
                Presented::decode(b).unwrap().links().map(|(c, _)| c.id()).collect()
            };
            prop_assert_eq!(ids(&f.valid[which]), ids(&bytes));
        }
    }
}

#[test]
fn valid_fixtures_pass() {
    for v in &fixture().valid {
        exercise(v).unwrap();
    }
}

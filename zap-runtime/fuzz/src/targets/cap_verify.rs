//! The `cap_verify` target: the capability decoder and verifier (`zap_runtime::cap`) on
//! arbitrary bytes, as a server meets them in a request's `Cap` field.
//!
//! Checked: nothing panics; a refusal is always 401 or 403 with a reason; the policy's
//! answer does not depend on its cache (a cached and an uncached policy agree, and asking
//! twice gives the same answer); and only what the policy's issuer signed is ever
//! accepted: an input that passes must present, as its leaf, a capability whose CapID
//! (the hash of everything signed and the signature) is one of the seeds minted here;
//! the fuzzer cannot forge an Ed25519 signature. (Bytes no field points at, such as
//! padding, are not signed: changing them keeps the CapID, which is why the property is
//! the CapID and not the bytes.)

use std::sync::OnceLock;

use zap_runtime::cap::{issue, Capability, Issuance, Policy, Presented, Scheme, SigningKey};

/// The target id of the fuzzed policy.
pub const TARGET: [u8; 32] = [0x5a; 32];
/// "Now" for every check.
pub const NOW: u64 = 1_800_000_000;

/// The issuer the policy trusts (a fixed key).
pub fn issuer() -> SigningKey {
    SigningKey::from_secret(Scheme::Ed25519, &[0x33; 32]).expect("a fixed test key")
}

/// Capabilities the trusted issuer signed: the only inputs that may be accepted.
pub fn minted() -> &'static [Vec<u8>] {
    static MINTED: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    MINTED.get_or_init(|| {
        let key = issuer();
        [(0b1, NOW + 60), (0b11, 0), (0b1, NOW - 1), (0b10, NOW + 60)]
            .into_iter()
            .map(|(permissions, expires_at)| {
                issue(
                    &Issuance {
                        kind: 1,
                        target: TARGET,
                        permissions,
                        issued_at: NOW - 60,
                        expires_at,
                        ..Default::default()
                    },
                    &key,
                )
                .expect("mint a seed capability")
            })
            .collect()
    })
}

fn policy(cache: usize) -> Policy {
    Policy::builder(TARGET)
        .trust(issuer().public_key().clone())
        .method(1, 0b1)
        .method(2, 0b100)
        .cache_capacity(cache)
        .build()
}

/// The body of the `cap_verify` fuzz target.
pub fn run(data: &[u8]) {
    static POLICIES: OnceLock<(Policy, Policy)> = OnceLock::new();
    let (cached, uncached) = POLICIES.get_or_init(|| (policy(64), policy(0)));
    // Decoding alone never panics, and a decoded capability re-encodes its own bytes.
    if let Ok(cap) = Capability::decode(data) {
        assert_eq!(cap.as_bytes(), data, "a decoded capability is its input");
    }
    for ordinal in [1, 2, 3] {
        let first = cached.check_call(data, ordinal, NOW);
        let again = cached.check_call(data, ordinal, NOW);
        let fresh = uncached.check_call(data, ordinal, NOW);
        assert_eq!(first, again, "a second check answers the same");
        assert_eq!(first, fresh, "the cache changes the answer");
        match &first {
            Ok(()) => {
                let leaf = Presented::decode(data)
                    .expect("an accepted capability decodes")
                    .leaf()
                    .id();
                assert!(
                    minted()
                        .iter()
                        .any(|m| Capability::decode(m).map(|c| c.id()) == Ok(leaf)),
                    "accepted a capability the issuer never signed"
                );
            }
            Err(e) => {
                assert!(matches!(e.status(), 401 | 403), "status {}", e.status());
                assert!(!e.to_string().is_empty());
            }
        }
    }
}

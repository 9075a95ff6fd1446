//! Shared fixtures for the capability tests: fixed keys, a root, a delegated chain, and
//! a policy trusting the root. Include with
//! `#[path = "support/cap_kit.rs"] mod cap_kit;` in a test built with feature `cap`.

#![allow(dead_code)]

use zap_runtime::cap::*;

/// The target id of the test server.
pub const TARGET: [u8; 32] = [0x7a; 32];
/// "Now" in the tests (unix seconds).
pub const NOW: u64 = 1_700_000_000;
/// Permission bits the root grants (besides `PERM_ATTENUATE`).
pub const ROOT_BITS: u64 = 0b1111;
/// Permission bits the delegated leaf keeps.
pub const LEAF_BITS: u64 = 0b0011;
/// The end holder of delegated leaves.
pub const END_HOLDER: [u8; 32] = [0xee; 32];

/// A fixed key: the root is `n = 1`, the delegate `n = 2`, strangers other values.
pub fn key(scheme: Scheme, n: u8) -> SigningKey {
    SigningKey::from_secret(scheme, &[n; 32]).expect("a fixed test key")
}

/// A root from `root` to `holder`, valid `[NOW - 10, NOW + 3600]`.
pub fn root_cap(root: &SigningKey, holder: &[u8; 32]) -> Vec<u8> {
    issue(
        &Issuance {
            kind: 0x01,
            target: TARGET,
            holder: *holder,
            permissions: PERM_ATTENUATE | ROOT_BITS,
            issued_at: NOW - 10,
            expires_at: NOW + 3600,
            ..Default::default()
        },
        root,
    )
    .expect("issue")
}

/// The child of `parent` minted by `signer` (the parent's holder) to [`END_HOLDER`].
pub fn child_cap(parent: &[u8], signer: &SigningKey) -> Vec<u8> {
    attenuate(
        &Capability::decode(parent).expect("parent decodes"),
        &Attenuation {
            holder: END_HOLDER,
            permissions: LEAF_BITS,
            issued_at: NOW - 5,
            expires_at: NOW + 1800,
            caveats: &[],
        },
        signer,
    )
    .expect("attenuate")
}

/// A two-link chain (leaf, root) of `scheme`: root key 1 delegates to key 2, which
/// narrows to [`END_HOLDER`] with [`LEAF_BITS`]. Returns (chain bytes, root, leaf).
pub fn chain(scheme: Scheme) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let (root_key, delegate) = (key(scheme, 1), key(scheme, 2));
    let root = root_cap(&root_key, delegate.id());
    let leaf = child_cap(&root, &delegate);
    let chain = extend_chain(&root, &leaf, delegate.public_key()).expect("extend");
    (chain, root, leaf)
}

/// A policy trusting key 1 of `scheme` for [`TARGET`], method 1 = bit 0, method 4 =
/// bit 2 (not in [`LEAF_BITS`]).
pub fn policy(scheme: Scheme) -> Policy {
    Policy::builder(TARGET)
        .trust(key(scheme, 1).public_key().clone())
        .method(1, 0b0001)
        .method(4, 0b0100)
        .build()
}

/// The message with `f` applied to a copy of its bytes.
pub fn mutated(bytes: &[u8], f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut out = bytes.to_vec();
    f(&mut out);
    out
}

/// Absolute position of the `Sig` footer in a single Capability message.
pub fn sig_at(cap: &[u8]) -> usize {
    u32::from_le_bytes([cap[8], cap[9], cap[10], cap[11]]) as usize + offset::SIG
}

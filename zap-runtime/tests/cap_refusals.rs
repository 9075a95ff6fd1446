//! Every way a capability is refused, each with its class: 401 (Unauthorized) when the
//! token proves nothing, 403 (Forbidden) when it is valid but not for this call.

use crate::cap_kit;

use std::collections::HashSet;
use std::sync::{Arc, RwLock};

use cap_kit::*;
use zap_runtime::cap::*;

fn unauthorized(r: Result<(), CapError>) -> Refusal {
    match r {
        Err(e @ CapError::Unauthorized(_)) => {
            assert_eq!(e.status(), 401);
            *e.refusal()
        }
        other => panic!("expected Unauthorized, got {other:?}"),
    }
}

fn forbidden(r: Result<(), CapError>) -> Refusal {
    match r {
        Err(e @ CapError::Forbidden(_)) => {
            assert_eq!(e.status(), 403);
            *e.refusal()
        }
        other => panic!("expected Forbidden, got {other:?}"),
    }
}

/// A cap with every field chosen: for building the caps `attenuate` refuses to mint.
fn forged(signer: &SigningKey, f: impl FnOnce(&mut Issuance<'static>)) -> Vec<u8> {
    let mut what = Issuance {
        kind: 0x01,
        target: TARGET,
        holder: END_HOLDER,
        permissions: LEAF_BITS,
        issued_at: NOW - 5,
        expires_at: NOW + 1800,
        ..Default::default()
    };
    f(&mut what);
    issue(&what, signer).expect("issue")
}

fn two_links(leaf: &[u8], leaf_issuer: &SigningKey, root: &[u8]) -> Vec<u8> {
    encode_chain(&[
        ChainLink {
            cap: leaf,
            issuer_key: leaf_issuer.public_key().as_bytes(),
        },
        ChainLink {
            cap: root,
            issuer_key: &[],
        },
    ])
    .unwrap()
}

#[test]
fn valid_root_and_chain_pass_for_every_scheme() {
    for scheme in Scheme::ALL {
        let p = policy(scheme);
        let root = root_cap(&key(scheme, 1), key(scheme, 2).id());
        p.check(&root, ROOT_BITS, NOW).unwrap();
        let (chain, _, _) = chain(scheme);
        p.check_method(&chain, 1, NOW).unwrap();
        p.check(&chain, 0, NOW).unwrap();
        let grant = p.verify(&chain, NOW).unwrap();
        assert_eq!(grant.permissions, LEAF_BITS);
        assert_eq!(grant.links, 2);
        assert_eq!(grant.expires_at, NOW + 1800);
        assert_eq!(grant.not_before, NOW - 5);
    }
}

#[test]
fn missing_is_unauthorized() {
    let p = policy(Scheme::Ed25519);
    assert_eq!(unauthorized(p.check(&[], 1, NOW)), Refusal::Missing);
    assert_eq!(unauthorized(p.check_method(&[], 1, NOW)), Refusal::Missing);
}

#[test]
fn expired_and_not_yet_valid_are_unauthorized() {
    let p = policy(Scheme::Ed25519);
    let (chain, root, _) = chain(Scheme::Ed25519);
    // The leaf expires first (NOW + 1800), the root later (NOW + 3600).
    assert_eq!(
        unauthorized(p.check(&chain, 1, NOW + 1801)),
        Refusal::Expired {
            expires_at: NOW + 1800,
            now: NOW + 1801
        }
    );
    assert!(matches!(
        unauthorized(p.check(&root, 1, NOW + 3601)),
        Refusal::Expired { .. }
    ));
    p.check(&root, 1, NOW + 3600)
        .expect("valid through its last second");
    // Not before IssuedAt, beyond the default 60 s of skew.
    assert_eq!(
        unauthorized(p.check(&root, 1, NOW - 10 - 61)),
        Refusal::NotYetValid {
            issued_at: NOW - 10,
            now: NOW - 71
        }
    );
    p.check(&root, 1, NOW - 10 - 60).expect("within the skew");
    let strict = Policy::builder(TARGET)
        .trust(key(Scheme::Ed25519, 1).public_key().clone())
        .clock_skew(0)
        .build();
    assert!(matches!(
        unauthorized(strict.check(&root, 1, NOW - 11)),
        Refusal::NotYetValid { .. }
    ));
}

#[test]
fn a_cached_cap_is_refused_once_it_expires_or_is_revoked() {
    let revoked: Arc<RwLock<HashSet<[u8; 32]>>> = Arc::default();
    let list = revoked.clone();
    let p = Policy::builder(TARGET)
        .trust(key(Scheme::Ed25519, 1).public_key().clone())
        .revocation(move |id: &[u8; 32]| list.read().unwrap().contains(id))
        .build();
    let (chain, root, leaf) = chain(Scheme::Ed25519);
    p.check(&chain, 1, NOW).unwrap();
    p.check(&chain, 1, NOW).unwrap(); // now from the cache
    assert!(matches!(
        unauthorized(p.check(&chain, 1, NOW + 1801)),
        Refusal::Expired { .. }
    ));
    // Revoking the root refuses the leaf delegated from it, cached or not.
    let root_id = Capability::decode(&root).unwrap().id();
    revoked.write().unwrap().insert(root_id);
    assert_eq!(unauthorized(p.check(&chain, 1, NOW)), Refusal::Revoked);
    assert_eq!(unauthorized(p.check(&root, 1, NOW)), Refusal::Revoked);
    revoked.write().unwrap().clear();
    p.check(&chain, 1, NOW).unwrap();
    revoked
        .write()
        .unwrap()
        .insert(Capability::decode(&leaf).unwrap().id());
    assert_eq!(unauthorized(p.check(&chain, 1, NOW)), Refusal::Revoked);
    p.check(&root, 1, NOW)
        .expect("the root itself is not revoked");
}

#[test]
fn the_cache_answers_as_a_fresh_check_would() {
    // Once a chain is cached, the same leaf with a tampered parent or carried key is
    // still refused: a hit needs every link's CapID and key to match.
    let p = policy(Scheme::Ed25519);
    let delegate = key(Scheme::Ed25519, 2);
    let (chain, root, leaf) = chain(Scheme::Ed25519);
    p.check(&chain, 1, NOW).unwrap();
    let bad_root = mutated(&root, |b| b[sig_at(&root) + 3] ^= 0x80);
    assert!(matches!(
        unauthorized(p.check(&two_links(&leaf, &delegate, &bad_root), 1, NOW)),
        Refusal::BrokenChain(_)
    ));
    let stranger = key(Scheme::Ed25519, 9);
    assert!(matches!(
        unauthorized(p.check(&two_links(&leaf, &stranger, &root), 1, NOW)),
        Refusal::BrokenChain(_)
    ));
    assert!(matches!(
        unauthorized(p.check(&leaf, 1, NOW)),
        Refusal::BrokenChain(_)
    ));
    p.check(&chain, 1, NOW).unwrap();
}

#[test]
fn a_cached_cap_with_one_byte_changed_is_verified_again() {
    // A hit needs the very bytes that were verified. One byte changed anywhere (a
    // sample of positions, every field and the signature among them) in a cached root
    // or chain is checked afresh: the answer is the one a policy without a cache gives,
    // a refusal wherever the change breaks the token, never the cached grant.
    for scheme in Scheme::ALL {
        let p = policy(scheme);
        let fresh = Policy::builder(TARGET)
            .trust(key(scheme, 1).public_key().clone())
            .method(1, 0b0001)
            .method(4, 0b0100)
            .cache_capacity(0)
            .build();
        let (chain, root, _) = chain(scheme);
        for cap in [&root, &chain] {
            p.check_method(cap, 1, NOW).unwrap();
            let sig = sig_at(&root);
            let positions: Vec<usize> = (0..cap.len())
                .step_by(89)
                .chain(0..16)
                .chain(sig..sig + 8)
                .chain([cap.len() - 1])
                .collect();
            let mut refused = 0;
            for &at in &positions {
                let bad = mutated(cap, |b| b[at] ^= 0x01);
                let answer = p.check_method(&bad, 1, NOW);
                assert_eq!(
                    answer,
                    fresh.check_method(&bad, 1, NOW),
                    "{scheme}: byte {at} of {} changed",
                    cap.len()
                );
                if answer.is_err() {
                    refused += 1;
                    unauthorized(answer);
                }
            }
            // Only framing padding may change without breaking the token.
            assert!(
                refused * 10 >= positions.len() * 9,
                "{scheme}: {refused} of {} refused",
                positions.len()
            );
            // The original is still cached and still accepted.
            p.check_method(cap, 1, NOW).unwrap();
        }
    }
}

#[test]
fn wrong_target_missing_bits_and_unknown_method_are_forbidden() {
    let p = policy(Scheme::Ed25519);
    let (chain, _, _) = chain(Scheme::Ed25519);
    assert_eq!(
        forbidden(p.check_method(&chain, 4, NOW)),
        Refusal::MissingPermission {
            required: 0b0100,
            granted: LEAF_BITS
        }
    );
    assert_eq!(
        forbidden(p.check(&chain, 0b0011 | 0b1000, NOW)),
        Refusal::MissingPermission {
            required: 0b1011,
            granted: LEAF_BITS
        }
    );
    assert_eq!(
        forbidden(p.check_method(&chain, 99, NOW)),
        Refusal::UnknownMethod(99)
    );
    let elsewhere = Policy::builder([0x01; 32])
        .trust(key(Scheme::Ed25519, 1).public_key().clone())
        .build();
    assert_eq!(
        forbidden(elsewhere.check(&chain, 1, NOW)),
        Refusal::WrongTarget
    );
    // An invalid cap is 401 even for a method the table does not know.
    assert_eq!(unauthorized(p.check_method(&[], 99, NOW)), Refusal::Missing);
}

#[test]
fn a_flipped_signature_byte_is_unauthorized_for_every_scheme() {
    for scheme in Scheme::ALL {
        let p = policy(scheme);
        let root = root_cap(&key(scheme, 1), &END_HOLDER);
        for at in [0, 31, scheme.signature_len() - 1] {
            let bad = mutated(&root, |b| b[sig_at(&root) + at] ^= 0x01);
            assert!(
                matches!(
                    unauthorized(p.check(&bad, 1, NOW)),
                    Refusal::BadSignature(_)
                ),
                "{scheme}: byte {at}"
            );
        }
        // A flipped byte in the signed header: the signature no longer matches.
        let bad = mutated(&root, |b| b[16 + offset::PERMISSIONS] ^= 0x10);
        assert!(matches!(
            unauthorized(p.check(&bad, 1, NOW)),
            Refusal::BadSignature(_)
        ));
        // A non-zero byte in the padding between the signature and the tag.
        let bad = mutated(&root, |b| b[sig_at(&root) + scheme.signature_len() + 1] = 1);
        assert!(matches!(
            unauthorized(p.check(&bad, 1, NOW)),
            Refusal::BadSignature(_)
        ));
    }
}

#[test]
fn a_flipped_reserved_hybrid_or_unknown_tag_is_unauthorized() {
    for scheme in Scheme::ALL {
        let p = policy(scheme);
        let root = root_cap(&key(scheme, 1), &END_HOLDER);
        let tag_at = sig_at(&root) + ALG_TAG_OFFSET;
        for other in Scheme::ALL.into_iter().filter(|&s| s != scheme) {
            let bad = mutated(&root, |b| b[tag_at] = other.tag());
            assert_eq!(
                unauthorized(p.check(&bad, 1, NOW)),
                Refusal::SchemeMismatch {
                    tag: other.tag(),
                    key: scheme.tag()
                }
            );
        }
        let tagged = |t: u8| mutated(&root, |b| b[tag_at] = t);
        assert_eq!(
            unauthorized(p.check(&tagged(TAG_RESERVED), 1, NOW)),
            Refusal::ReservedScheme
        );
        assert_eq!(
            unauthorized(p.check(&tagged(TAG_HYBRID), 1, NOW)),
            Refusal::UnsupportedScheme(TAG_HYBRID)
        );
        assert_eq!(
            unauthorized(p.check(&tagged(0x05), 1, NOW)),
            Refusal::UnknownScheme(0x05)
        );
        assert_eq!(
            unauthorized(p.check(&tagged(0xff), 1, NOW)),
            Refusal::UnknownScheme(0xff)
        );
    }
}

#[test]
fn secp256k1_recovery_byte_must_be_zero() {
    let p = policy(Scheme::Secp256k1);
    let root = root_cap(&key(Scheme::Secp256k1, 1), &END_HOLDER);
    let bad = mutated(&root, |b| b[sig_at(&root) + 64] = 1);
    assert!(matches!(
        unauthorized(p.check(&bad, 1, NOW)),
        Refusal::BadSignature(_)
    ));
}

/// `n - s` for the secp256k1 group order n (big-endian).
fn negate_s(s: &mut [u8]) {
    const N: [u8; 32] = [
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xfe, 0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36,
        0x41, 0x41,
    ];
    let mut borrow = 0i16;
    for i in (0..32).rev() {
        let d = N[i] as i16 - s[i] as i16 - borrow;
        s[i] = d.rem_euclid(256) as u8;
        borrow = (d < 0) as i16;
    }
}

#[test]
fn a_secp256k1_high_s_twin_verifies_and_shares_the_revocation() {
    // The Python signer (OpenSSL) emits high-S signatures half the time, so they must
    // verify; the twin has another CapID, so revoking either id must refuse both.
    let root = root_cap(&key(Scheme::Secp256k1, 1), &END_HOLDER);
    let twin = mutated(&root, |b| {
        let at = sig_at(&root);
        negate_s(&mut b[at + 32..at + 64]);
    });
    assert_ne!(
        Capability::decode(&root).unwrap().id(),
        Capability::decode(&twin).unwrap().id()
    );
    policy(Scheme::Secp256k1).check(&twin, 1, NOW).unwrap();
    let revoked_id = Capability::decode(&root).unwrap().id();
    let p = Policy::builder(TARGET)
        .trust(key(Scheme::Secp256k1, 1).public_key().clone())
        .revocation(move |id: &[u8; 32]| id == &revoked_id)
        .build();
    assert_eq!(unauthorized(p.check(&root, 1, NOW)), Refusal::Revoked);
    assert_eq!(unauthorized(p.check(&twin, 1, NOW)), Refusal::Revoked);
}

#[test]
fn unknown_caveats_are_refused_never_ignored() {
    let root_key = key(Scheme::Ed25519, 1);
    let p = policy(Scheme::Ed25519);
    // 0x0A is unknown to every peer; 0x00..=0x09 are named by the peers but have no
    // defined value encoding, so this runtime implements none of them: all refused.
    for kind in [0x0A, 0x00, 0x01, 0x09, u32::MAX] {
        let value = [1u8, 2, 3];
        let caveats = [Caveat {
            kind,
            value: &value,
        }];
        let with = issue(
            &Issuance {
                kind: 0x01,
                target: TARGET,
                holder: END_HOLDER,
                permissions: LEAF_BITS,
                issued_at: NOW,
                expires_at: NOW + 10,
                caveats: &caveats,
                ..Default::default()
            },
            &root_key,
        )
        .unwrap();
        assert_eq!(
            unauthorized(p.check(&with, 1, NOW)),
            Refusal::UnknownCaveat(kind)
        );
    }
    // A caveat on a delegated leaf is refused as well.
    let (_, root, _) = chain(Scheme::Ed25519);
    let delegate = key(Scheme::Ed25519, 2);
    let value = [0u8; 8];
    let caveats = [Caveat {
        kind: 0x00,
        value: &value,
    }];
    let leaf = attenuate(
        &Capability::decode(&root).unwrap(),
        &Attenuation {
            holder: END_HOLDER,
            permissions: LEAF_BITS,
            issued_at: NOW,
            expires_at: 0,
            caveats: &caveats,
        },
        &delegate,
    )
    .unwrap();
    assert_eq!(
        unauthorized(p.check(&two_links(&leaf, &delegate, &root), 1, NOW)),
        Refusal::UnknownCaveat(0)
    );
}

#[test]
fn broken_chains_are_unauthorized() {
    let scheme = Scheme::Ed25519;
    let p = policy(scheme);
    let (root_key, delegate, stranger) = (key(scheme, 1), key(scheme, 2), key(scheme, 9));
    let (chain, root, leaf) = chain(scheme);
    let broken = |r| matches!(unauthorized(r), Refusal::BrokenChain(_));

    // The leaf alone: not a root, and no chain.
    assert!(broken(p.check(&leaf, 1, NOW)));
    // The leaf's Parent names another cap.
    let orphan = forged(&delegate, |w| w.parent = [0x11; 32]);
    assert!(broken(p.check(
        &two_links(&orphan, &delegate, &root),
        1,
        NOW
    )));
    // The issuer key carried for the leaf is not the leaf's issuer.
    assert!(broken(p.check(&two_links(&leaf, &stranger, &root), 1, NOW)));
    // A leaf whose Issuer is not the parent's Holder (signed by a stranger).
    let parent_id = Capability::decode(&root).unwrap().id();
    let intruder = forged(&stranger, |w| w.parent = parent_id);
    assert!(broken(p.check(
        &two_links(&intruder, &stranger, &root),
        1,
        NOW
    )));
    // The last link is not a root.
    let headless = encode_chain(&[ChainLink {
        cap: &leaf,
        issuer_key: &[],
    }])
    .unwrap();
    assert!(broken(p.check(&headless, 1, NOW)));
    // Links out of order.
    let reversed = encode_chain(&[
        ChainLink {
            cap: &root,
            issuer_key: root_key.public_key().as_bytes(),
        },
        ChainLink {
            cap: &leaf,
            issuer_key: &[],
        },
    ])
    .unwrap();
    assert!(broken(p.check(&reversed, 1, NOW)));
    // The root link must not carry a key (its issuer comes from the trust list).
    let keyed_root = encode_chain(&[
        ChainLink {
            cap: &leaf,
            issuer_key: delegate.public_key().as_bytes(),
        },
        ChainLink {
            cap: &root,
            issuer_key: root_key.public_key().as_bytes(),
        },
    ])
    .unwrap();
    assert!(matches!(
        unauthorized(p.check(&keyed_root, 1, NOW)),
        Refusal::Malformed(_)
    ));
    // A chain rooted at an untrusted issuer.
    let alien_root = root_cap(&stranger, delegate.id());
    let alien_leaf = child_cap(&alien_root, &delegate);
    assert_eq!(
        unauthorized(p.check(&two_links(&alien_leaf, &delegate, &alien_root), 1, NOW)),
        Refusal::UnknownIssuer
    );
    // A flipped signature byte in the parent.
    let bad_root = mutated(&root, |b| b[sig_at(&root) + 3] ^= 0x80);
    assert!(matches!(
        unauthorized(p.check(&two_links(&leaf, &delegate, &bad_root), 1, NOW)),
        Refusal::BrokenChain(_)
    ));
    p.check(&chain, 1, NOW)
        .expect("the unbroken chain still passes");
}

#[test]
fn attenuation_that_widens_its_parent_is_unauthorized() {
    let scheme = Scheme::Ed25519;
    let p = policy(scheme);
    let delegate = key(scheme, 2);
    let root_key = key(scheme, 1);
    let root = root_cap(&root_key, delegate.id());
    let parent_id = Capability::decode(&root).unwrap().id();
    let child = |f: &dyn Fn(&mut Issuance<'static>)| {
        forged(&delegate, |w| {
            w.parent = parent_id;
            f(w);
        })
    };
    let widens = |leaf: Vec<u8>| unauthorized(p.check(&two_links(&leaf, &delegate, &root), 1, NOW));

    assert_eq!(
        widens(child(&|w| w.permissions = 0b1_0001)),
        Refusal::WidensParent("permissions")
    );
    assert_eq!(
        widens(child(&|w| w.permissions = LEAF_BITS | PERM_ROOT)),
        Refusal::WidensParent("permissions")
    );
    assert_eq!(
        widens(child(&|w| w.expires_at = NOW + 3601)),
        Refusal::WidensParent("expiry")
    );
    assert_eq!(
        widens(child(&|w| w.expires_at = 0)),
        Refusal::WidensParent("expiry")
    );
    assert_eq!(
        widens(child(&|w| w.target = [0x01; 32])),
        Refusal::WidensParent("target")
    );
    assert_eq!(
        widens(child(&|w| w.kind = KIND_DELEGATE)),
        Refusal::WidensParent("kind")
    );
    // The same forged child, narrowed properly, passes.
    p.check(&two_links(&child(&|_| {}), &delegate, &root), 1, NOW)
        .unwrap();
}

#[test]
fn the_delegation_gate_needs_perm_attenuate_or_a_delegate_kind() {
    let scheme = Scheme::Ed25519;
    let p = policy(scheme);
    let (root_key, delegate) = (key(scheme, 1), key(scheme, 2));
    let closed = |kind: u32| {
        issue(
            &Issuance {
                kind,
                target: TARGET,
                holder: *delegate.id(),
                permissions: ROOT_BITS, // no PERM_ATTENUATE
                issued_at: NOW - 10,
                expires_at: NOW + 3600,
                ..Default::default()
            },
            &root_key,
        )
        .unwrap()
    };
    let root = closed(0x01);
    let parent_id = Capability::decode(&root).unwrap().id();
    let leaf = forged(&delegate, |w| w.parent = parent_id);
    assert_eq!(
        unauthorized(p.check(&two_links(&leaf, &delegate, &root), 1, NOW)),
        Refusal::NotDelegable
    );
    assert_eq!(
        attenuate(
            &Capability::decode(&root).unwrap(),
            &Attenuation::default(),
            &delegate
        ),
        Err(IssueError::NotDelegable)
    );
    // A DELEGATE-kind parent passes the gate without the bit.
    let root = closed(KIND_DELEGATE);
    let leaf = child_cap(&root, &delegate);
    p.check(&two_links(&leaf, &delegate, &root), 1, NOW)
        .unwrap();
}

#[test]
fn attenuate_refuses_at_mint_time() {
    let (root_key, delegate, stranger) = (
        key(Scheme::Ed25519, 1),
        key(Scheme::Ed25519, 2),
        key(Scheme::Ed25519, 9),
    );
    let root = root_cap(&root_key, delegate.id());
    let parent = Capability::decode(&root).unwrap();
    let ask = |a: Attenuation<'_>, k: &SigningKey| attenuate(&parent, &a, k);
    let ok = Attenuation {
        holder: END_HOLDER,
        permissions: LEAF_BITS,
        issued_at: NOW,
        expires_at: 0,
        caveats: &[],
    };
    assert_eq!(ask(ok, &stranger), Err(IssueError::NotHolder));
    assert_eq!(
        ask(
            Attenuation {
                permissions: 0b1_0000,
                ..ok
            },
            &delegate
        ),
        Err(IssueError::WidensPermissions { extra: 0b1_0000 })
    );
    assert_eq!(
        ask(
            Attenuation {
                expires_at: NOW + 3601,
                ..ok
            },
            &delegate
        ),
        Err(IssueError::OutlivesParent {
            child: NOW + 3601,
            parent: NOW + 3600
        })
    );
    // Expiry 0 inherits the parent's.
    let leaf = ask(ok, &delegate).unwrap();
    assert_eq!(Capability::decode(&leaf).unwrap().expires_at(), NOW + 3600);
}

#[test]
fn malformed_bytes_are_unauthorized() {
    let p = policy(Scheme::Ed25519);
    let (chain, root, _) = chain(Scheme::Ed25519);
    let malformed = |b: Vec<u8>| {
        assert!(
            matches!(unauthorized(p.check(&b, 1, NOW)), Refusal::Malformed(_)),
            "{:?}",
            p.check(&b, 1, NOW)
        )
    };
    malformed(b"ZAP".to_vec());
    malformed(root[..root.len() - 1].to_vec());
    malformed(mutated(&root, |b| b.push(0)));
    malformed(mutated(&root, |b| b[6] = 1)); // compressed flag
    malformed(mutated(&root, |b| b[7] = 0xC8)); // an RPC envelope's type
    malformed(mutated(&chain, |b| b[7] = 0xCB));
    malformed(mutated(&root, |b| b[8] = 200)); // root past the fixed section
    malformed(mutated(&root, |b| {
        let at = 16 + offset::CAVEATS + 4;
        b[at] = 1; // a caveat count without a list
    }));
    // A chain with more links than allowed.
    let many: Vec<ChainLink<'_>> = (0..MAX_CHAIN_LINKS + 1)
        .map(|_| ChainLink {
            cap: &root,
            issuer_key: &[],
        })
        .collect();
    malformed(encode_chain(&many).unwrap());
    malformed(encode_chain(&[]).unwrap());
}

#[test]
fn errors_say_why_in_words() {
    let e = CapError::from(Refusal::Expired {
        expires_at: 5,
        now: 6,
    });
    assert_eq!(
        e.to_string(),
        "unauthorized: capability expired at 5 (now 6)"
    );
    let e = CapError::from(Refusal::MissingPermission {
        required: 4,
        granted: 3,
    });
    assert_eq!(
        e.to_string(),
        "forbidden: capability grants 0x3, the call requires 0x4"
    );
    assert_eq!(
        CapError::from(Refusal::UnknownScheme(9)).to_string(),
        "unauthorized: signature scheme tag 0x09 is unknown"
    );
}

#[test]
fn trust_files_parse_and_errors_name_the_line() {
    let keys: Vec<SigningKey> = Scheme::ALL.into_iter().map(|s| key(s, 1)).collect();
    let mut text = String::from("# trusted roots\n\n");
    for k in &keys {
        text.push_str(&trust_file_line(k.public_key()));
        text.push_str("   # a comment\n");
    }
    let parsed = parse_trust_file(&text).unwrap();
    assert_eq!(parsed.len(), 3);
    for (k, p) in keys.iter().zip(&parsed) {
        assert_eq!(k.public_key(), p);
    }
    let ed = hex::encode(keys[0].public_key().as_bytes());
    let line_of = |t: &str| parse_trust_file(t).unwrap_err().line;
    assert_eq!(line_of(&format!("\n# x\nrsa {ed}\n")), 3);
    assert_eq!(line_of(&format!("ed25519 0x{ed}\n")), 1);
    assert_eq!(line_of(&format!("ed25519 {ed}\ned25519 {ed}\n")), 2);
    assert_eq!(line_of(&format!("ed25519 {}\n", &ed[..62])), 1);
    assert_eq!(line_of("ed25519 zz\n"), 1);
    assert_eq!(line_of(&format!("ed25519\n{ed}\n")), 1);
    assert_eq!(line_of(&format!("ed25519 {ed} extra\n")), 1);
    assert_eq!(line_of(&format!("mldsa65 {ed}\n")), 1);
    let e = parse_trust_file(&format!("\nsecp256k1 {ed}\n")).unwrap_err();
    assert!(e.to_string().starts_with("trust file line 2: "), "{e}");
    assert!(parse_trust_file("# nothing\n\n   \n").unwrap().is_empty());
}

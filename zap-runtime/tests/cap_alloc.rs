//! Zero heap allocations on a cache hit: a counting global allocator (this test binary
//! only) shows that checking a remembered capability or chain, straight out of a
//! request envelope, re-checking its expiry and asking the revocation hook about every
//! link, touches the heap zero times, for every scheme, accepted or refused.

#[path = "support/cap_kit.rs"]
mod cap_kit;
#[path = "support/counting_alloc.rs"]
mod counting_alloc;

use std::collections::HashSet;

use cap_kit::*;
use counting_alloc::allocations_of as allocations;
use zap_runtime::cap::*;
use zap_runtime::rpc::Request;
use zap_runtime::Builder;

fn envelope(cap: &[u8], method: u32) -> Vec<u8> {
    let mut b = Builder::new();
    Request {
        method,
        promise_id: 7,
        target: 0,
        cap,
        payload: &[],
    }
    .encode(&mut b)
    .unwrap()
    .to_vec()
}

#[test]
fn a_cache_hit_allocates_nothing() {
    for scheme in Scheme::ALL {
        let revoked: HashSet<[u8; 32]> = (0u8..64).map(|i| [i; 32]).collect();
        let policy = Policy::builder(TARGET)
            .trust(key(scheme, 1).public_key().clone())
            .method(1, 0b0001)
            .method(5, 0b1_0000)
            .revocation(move |id: &[u8; 32]| revoked.contains(id))
            .build();
        let (chain, root, _) = chain(scheme);
        for cap in [&root, &chain] {
            let call = envelope(cap, 1);
            let check = |method: u32, now: u64| {
                let req = Request::parse(&call).unwrap();
                policy.check_method(req.cap, method, now)
            };
            // The first check verifies signatures (and may allocate); it fills the cache.
            check(1, NOW).unwrap();
            let (n, r) = allocations(|| check(1, NOW));
            assert_eq!(r, Ok(()));
            assert_eq!(n, 0, "{scheme}: an accepted hit allocated {n} times");
            let (n, r) = allocations(|| check(5, NOW));
            assert!(matches!(r, Err(CapError::Forbidden(_))), "{r:?}");
            assert_eq!(n, 0, "{scheme}: a forbidden hit allocated {n} times");
            let (n, r) = allocations(|| check(1, NOW + 1_000_000));
            assert!(
                matches!(r, Err(CapError::Unauthorized(Refusal::Expired { .. }))),
                "{r:?}"
            );
            assert_eq!(n, 0, "{scheme}: an expired hit allocated {n} times");
        }
    }
}

#[test]
fn the_cache_is_bounded_and_evicted_entries_verify_again() {
    let scheme = Scheme::Ed25519;
    let root_key = key(scheme, 1);
    let policy = Policy::builder(TARGET)
        .trust(root_key.public_key().clone())
        .cache_capacity(4)
        .build();
    // Twenty distinct caps through a four-entry cache: every one still verifies, and a
    // re-check after eviction verifies again (allocating), never trusting a stale slot.
    let caps: Vec<Vec<u8>> = (0..20u8).map(|i| root_cap(&root_key, &[i; 32])).collect();
    for cap in &caps {
        policy.check(cap, 1, NOW).unwrap();
    }
    for cap in &caps {
        // Evicted since (one set of four ways, least recently used goes first).
        let (n, r) = allocations(|| policy.check(cap, 1, NOW));
        assert_eq!(r, Ok(()));
        assert!(n > 0, "an evicted entry is verified again");
        let (n, r) = allocations(|| policy.check(cap, 1, NOW));
        assert_eq!(r, Ok(()));
        assert_eq!(n, 0, "the entry just checked is cached");
    }
    // With the cache off every check verifies afresh.
    let uncached = Policy::builder(TARGET)
        .trust(root_key.public_key().clone())
        .cache_capacity(0)
        .build();
    uncached.check(&caps[0], 1, NOW).unwrap();
    let (n, _) = allocations(|| uncached.check(&caps[0], 1, NOW));
    assert!(n > 0, "without a cache the signature is verified again");
}

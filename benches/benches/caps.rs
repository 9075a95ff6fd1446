//! What a capability check costs per call, for every signature scheme: cold (the
//! policy's cache off, so every call decodes, hashes and verifies the signature) and
//! cached (the presented bytes found by a fingerprint and compared in full with the
//! verified copy, expiry and revocation re-checked). The aim in the README: a cached
//! check adds under 100 ns to a call.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use zap_runtime::cap::{issue, Issuance, Policy, Scheme, SigningKey};

const TARGET: [u8; 32] = [0x42; 32];
const NOW: u64 = 1_800_000_000;

fn setup(scheme: Scheme, cache: usize) -> (Policy, Vec<u8>) {
    let key = SigningKey::from_secret(scheme, &[9; 32]).expect("a fixed key");
    let cap = issue(
        &Issuance {
            kind: 1,
            target: TARGET,
            permissions: 0b1,
            issued_at: NOW - 60,
            expires_at: NOW + 3600,
            ..Default::default()
        },
        &key,
    )
    .expect("issue");
    let policy = Policy::builder(TARGET)
        .trust(key.public_key().clone())
        .method(1, 0b1)
        .cache_capacity(cache)
        .build();
    assert!(policy.check_call(&cap, 1, NOW).is_ok());
    (policy, cap)
}

fn checks(c: &mut Criterion) {
    let mut g = c.benchmark_group("cap/check");
    g.throughput(Throughput::Elements(1));
    for scheme in [Scheme::Ed25519, Scheme::Secp256k1, Scheme::MlDsa65] {
        for (label, cache) in [("cold", 0), ("cached", 1024)] {
            let (policy, cap) = setup(scheme, cache);
            g.bench_function(format!("{}/{label}", scheme.name()), |b| {
                b.iter(|| black_box(policy.check_call(black_box(&cap), 1, NOW).is_ok()))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, checks);
criterion_main!(benches);

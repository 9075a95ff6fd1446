//! The wire core alone: read every field of `eth_request_fixed`, build
//! `eth_response_fixed` with a pooled builder, against a 72-byte memcpy (the size of
//! that response message) as the floor a builder cannot beat.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use zap_benches::{eth, flat_vector};
use zap_runtime::{BuilderPool, Message};

fn read(c: &mut Criterion) {
    let wire = flat_vector("eth_request_fixed");
    let mut g = c.benchmark_group("wire/read");
    g.throughput(Throughput::Elements(1));
    g.bench_function("eth_request_fixed: parse + every field", |b| {
        b.iter(|| {
            let root = Message::parse(black_box(&wire))
                .map(|m| m.root())
                .unwrap_or_default();
            let account = root.bytes_fixed::<20>(16);
            black_box(
                root.u64(0)
                    ^ root.u64(8)
                    ^ u64::from_le_bytes(account[..8].try_into().unwrap_or_default())
                    ^ u64::from(account[19]),
            )
        })
    });
    g.finish();
}

fn build(c: &mut Criterion) {
    let want = flat_vector("eth_response_fixed");
    let pool = BuilderPool::new();
    let mut g = c.benchmark_group("wire/build");
    g.throughput(Throughput::Elements(1));
    g.bench_function("eth_response_fixed: pooled builder", |b| {
        b.iter(|| {
            let mut builder = pool.get();
            let mut r = builder.start_object(56);
            r.set_u64(0, black_box(eth::ID));
            r.set_u64(8, black_box(eth::BALANCE));
            r.set_u64(16, black_box(eth::NONCE));
            r.set_bytes_fixed(24, black_box(&eth::BLOCK_HASH));
            r.finish_as_root();
            let bytes = builder
                .finish()
                .expect("a 72-byte message is within the limit");
            debug_assert_eq!(bytes, &want[..]);
            black_box(bytes.len())
        })
    });
    let mut reused = zap_runtime::Builder::new();
    g.bench_function("eth_response_fixed: one reused builder (no pool)", |b| {
        b.iter(|| {
            reused.clear();
            let mut r = reused.start_object(56);
            r.set_u64(0, black_box(eth::ID));
            r.set_u64(8, black_box(eth::BALANCE));
            r.set_u64(16, black_box(eth::NONCE));
            r.set_bytes_fixed(24, black_box(&eth::BLOCK_HASH));
            r.finish_as_root();
            black_box(reused.finish().unwrap().len())
        })
    });
    let mut out = vec![0u8; want.len()];
    g.bench_function("baseline: memcpy of the 72-byte message", |b| {
        b.iter(|| {
            out.copy_from_slice(black_box(&want));
            black_box(&out);
        })
    });
    g.finish();
}

criterion_group!(benches, read, build);
criterion_main!(benches);

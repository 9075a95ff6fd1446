//! A client's answer, two ways, for the record of `benches/schemas/records.zap` (a 1 KiB
//! text, a 64-byte blob, 32 items): the owned struct (`get`: every field copied out,
//! a `String` and two `Vec`s) against the owned message (`get_owned`: the frame's bytes
//! kept, the header checked once, every field read in place). Both read every field
//! once, UTF-8 check of the text included (eager in the struct's decode, on access for
//! the reader). Starts from the answer body as the client hands it out (`Bytes` of the
//! read buffer). The paired-rounds binary `owned_rounds` reports the same ratio.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use zap_benches::generated::records::Record;
use zap_benches::records::{fold_owned, fold_value, record};
use zap_runtime::{Bytes, Owned, ZapStruct};

fn answers(c: &mut Criterion) {
    let body = Bytes::from(record(7).to_bytes().unwrap());
    let mut g = c.benchmark_group("owned_answers");
    g.throughput(Throughput::Elements(1));
    g.bench_function("owned struct (decode + fold)", |b| {
        b.iter(|| {
            let r = Record::decode(black_box(&body)).unwrap();
            black_box(fold_value(&r))
        })
    });
    g.bench_function("owned message (Owned::from_bytes + fold)", |b| {
        b.iter(|| {
            let o = Owned::<Record>::from_bytes(black_box(&body).clone()).unwrap();
            black_box(fold_owned(&o))
        })
    });
    g.finish();
}

criterion_group!(benches, answers);
criterion_main!(benches);

//! Which JSON crate reads a JSON-RPC request fastest the way the server needs it: the
//! envelope borrowed from the body, `params` kept raw, then `[address, block]` read from
//! the raw params. serde_json (`RawValue`, what `zap_runtime::http` uses) against
//! sonic-rs (`LazyValue`, its raw-slice type), on the body Ethereum clients send for
//! `eth_getBalance`. Both read into the same borrowed structs; the sink sums lengths.
//!
//!   cargo bench -p zap-benches --bench json_envelope

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use serde::Deserialize;

const BODY: &str = r#"{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x4725818c202ef848d7d3cce765e30646e63cdca1","latest"]}"#;

#[derive(Deserialize)]
struct SerdeEnvelope<'a> {
    #[serde(borrow)]
    jsonrpc: &'a str,
    #[serde(borrow)]
    id: &'a serde_json::value::RawValue,
    #[serde(borrow)]
    method: &'a str,
    #[serde(borrow)]
    params: &'a serde_json::value::RawValue,
}

#[derive(Deserialize)]
struct SonicEnvelope<'a> {
    #[serde(borrow)]
    jsonrpc: &'a str,
    #[serde(borrow)]
    id: sonic_rs::LazyValue<'a>,
    #[serde(borrow)]
    method: &'a str,
    #[serde(borrow)]
    params: sonic_rs::LazyValue<'a>,
}

fn serde_json_read(body: &str) -> usize {
    let e: SerdeEnvelope<'_> = serde_json::from_str(body).unwrap();
    let (account, block): (&str, &str) = serde_json::from_str(e.params.get()).unwrap();
    e.jsonrpc.len() + e.id.get().len() + e.method.len() + account.len() + block.len()
}

fn sonic_read(body: &str) -> usize {
    let e: SonicEnvelope<'_> = sonic_rs::from_str(body).unwrap();
    let (account, block): (&str, &str) = sonic_rs::from_str(e.params.as_raw_str()).unwrap();
    e.jsonrpc.len() + e.id.as_raw_str().len() + e.method.len() + account.len() + block.len()
}

fn envelope(c: &mut Criterion) {
    assert_eq!(serde_json_read(BODY), sonic_read(BODY));
    let mut group = c.benchmark_group("json_envelope");
    group.bench_function("serde_json_raw", |b| {
        b.iter(|| serde_json_read(black_box(BODY)))
    });
    group.bench_function("sonic_rs_lazy", |b| b.iter(|| sonic_read(black_box(BODY))));
    group.finish();
}

criterion_group!(benches, envelope);
criterion_main!(benches);

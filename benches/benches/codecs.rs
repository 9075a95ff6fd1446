//! Every codec on the `eth_getBalance` record, side by side: decode (request, response),
//! encode (request, response), a round trip, and a server's handler (decode request,
//! compute, encode response); and on the list-heavy `eth_getLogs` record: encode, read
//! every field, read one field of the 50th log. Every decoded field is folded into a sink; inputs and
//! results pass through `black_box`. Group and function names are the directories
//! `benches/run.sh` reads under `target/criterion/`.

use std::hint::black_box;

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion};
use zap_benches::codecs::{Codec, LogsCodec, ZapFixed};
use zap_benches::values::{logs, request, response, Sink, PICK};
use zap_benches::{for_each_codec, for_each_logs_codec};
use zap_runtime::{BuilderPool, ZapStruct};

type Group<'a> = BenchmarkGroup<'a, WallTime>;

fn decode_request<C: Codec>(g: &mut Group<'_>) {
    let wire = C::default()
        .encode_request(&C::prepare_request(&request()))
        .to_vec();
    let mut codec = C::default();
    g.bench_function(C::NAME, |b| {
        b.iter(|| {
            let mut sink = Sink::default();
            let ok = codec.decode_request(black_box(&wire), &mut sink).is_ok();
            black_box((sink, ok))
        })
    });
}

fn decode_response<C: Codec>(g: &mut Group<'_>) {
    let wire = C::default()
        .encode_response(&C::prepare_response(&response()))
        .to_vec();
    let mut codec = C::default();
    g.bench_function(C::NAME, |b| {
        b.iter(|| {
            let mut sink = Sink::default();
            let ok = codec.decode_response(black_box(&wire), &mut sink).is_ok();
            black_box((sink, ok))
        })
    });
}

fn encode_request<C: Codec>(g: &mut Group<'_>) {
    let value = C::prepare_request(&request());
    let mut codec = C::default();
    g.bench_function(C::NAME, |b| {
        b.iter(|| black_box(codec.encode_request(black_box(&value)).len()))
    });
}

fn encode_response<C: Codec>(g: &mut Group<'_>) {
    let value = C::prepare_response(&response());
    let mut codec = C::default();
    g.bench_function(C::NAME, |b| {
        b.iter(|| black_box(codec.encode_response(black_box(&value)).len()))
    });
}

/// Client encodes the request, server decodes it and encodes the response, client
/// decodes the response.
fn roundtrip<C: Codec>(g: &mut Group<'_>) {
    let req = C::prepare_request(&request());
    let resp = C::prepare_response(&response());
    let (mut client, mut server) = (C::default(), C::default());
    g.bench_function(C::NAME, |b| {
        b.iter(|| {
            let mut sink = Sink::default();
            let wire = client.encode_request(black_box(&req));
            let ok = server.decode_request(wire, &mut sink).is_ok();
            let wire = server.encode_response(black_box(&resp));
            let ok = ok & client.decode_response(wire, &mut sink).is_ok();
            black_box((sink, ok))
        })
    });
}

fn handler<C: Codec>(g: &mut Group<'_>) {
    let wire = C::default()
        .encode_request(&C::prepare_request(&request()))
        .to_vec();
    let mut codec = C::default();
    g.bench_function(C::NAME, |b| {
        b.iter(|| black_box(codec.handle(black_box(&wire)).map(|out| out.len())))
    });
}

/// The eth_getLogs record: encode it from the codec's own representation.
fn logs_encode<C: LogsCodec>(g: &mut Group<'_>) {
    let value = C::prepare_logs(&logs());
    let mut codec = C::default();
    g.bench_function(C::NAME, |b| {
        b.iter(|| black_box(codec.encode_logs(black_box(&value)).len()))
    });
}

/// Read every field of every log.
fn logs_decode<C: LogsCodec>(g: &mut Group<'_>) {
    let wire = C::default().encode_logs(&C::prepare_logs(&logs())).to_vec();
    let mut codec = C::default();
    g.bench_function(C::NAME, |b| {
        b.iter(|| {
            let mut sink = Sink::default();
            let ok = codec.decode_logs(black_box(&wire), &mut sink).is_ok();
            black_box((sink, ok))
        })
    });
}

/// Read the transaction hash of the 50th log only.
fn logs_field<C: LogsCodec>(g: &mut Group<'_>) {
    let wire = C::default().encode_logs(&C::prepare_logs(&logs())).to_vec();
    let mut codec = C::default();
    g.bench_function(C::NAME, |b| {
        b.iter(|| {
            let mut sink = Sink::default();
            let ok = codec
                .read_log_hash(black_box(&wire), black_box(PICK), &mut sink)
                .is_ok();
            black_box((sink, ok))
        })
    });
}

fn codecs(c: &mut Criterion) {
    let mut g = c.benchmark_group("decode_request");
    for_each_codec!(decode_request(&mut g));
    g.finish();
    let mut g = c.benchmark_group("decode_response");
    for_each_codec!(decode_response(&mut g));
    g.finish();
    let mut g = c.benchmark_group("encode_request");
    for_each_codec!(encode_request(&mut g));
    g.finish();
    let mut g = c.benchmark_group("encode_response");
    for_each_codec!(encode_response(&mut g));
    zap_pooled_encode_response(&mut g);
    zap_direct_encode_response(&mut g);
    g.finish();
    let mut g = c.benchmark_group("roundtrip");
    for_each_codec!(roundtrip(&mut g));
    g.finish();
    let mut g = c.benchmark_group("handler");
    for_each_codec!(handler(&mut g));
    g.finish();
    let mut g = c.benchmark_group("logs_encode");
    for_each_logs_codec!(logs_encode(&mut g));
    g.finish();
    let mut g = c.benchmark_group("logs_decode");
    for_each_logs_codec!(logs_decode(&mut g));
    g.finish();
    let mut g = c.benchmark_group("logs_field");
    for_each_logs_codec!(logs_field(&mut g));
    g.finish();
}

/// The fixed layout through `BuilderPool` (take, encode, give back) instead of one
/// reused builder (what a server connection does): the pool's cost on its own.
fn zap_pooled_encode_response(g: &mut Group<'_>) {
    use zap_benches::generated::eth::BalanceResponse;
    let pool = BuilderPool::new();
    let v = ZapFixed::prepare_response(&response());
    g.bench_function("zap_fixed_pooled", |b| {
        b.iter(|| {
            let v = black_box(&v);
            let resp = BalanceResponse {
                id: v.id,
                balance: v.balance,
                nonce: v.nonce,
                block_hash: v.block_hash,
            };
            let mut builder = pool.get();
            black_box(resp.encode(&mut builder).unwrap().len())
        })
    });
}

/// The floor: the same bytes written at constant offsets into a stack array, copied once.
fn zap_direct_encode_response(g: &mut Group<'_>) {
    let v = response();
    let mut out = Vec::with_capacity(256);
    g.bench_function("zap_fixed_direct", |b| {
        b.iter(|| {
            black_box(zap_benches::codecs::encode_response_direct(&mut out, black_box(&v)).len())
        })
    });
}

criterion_group!(benches, codecs);
criterion_main!(benches);

//! Zero-allocation proof: a counting global allocator (this test binary only) shows that
//! reading every field of a message, and building messages with a warm pooled builder,
//! touch the heap zero times.

use zap_runtime::rpc::{Request, Response, Status};
use zap_runtime::{BuilderPool, Message, Object};

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::allocations_of as allocations;

fn vector(file: &str, name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let hex = match doc.get("vectors") {
        Some(vs) => vs
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == name)
            .unwrap()["hex"]
            .clone(),
        None => doc["hex"].clone(),
    };
    hex::decode(hex.as_str().unwrap()).unwrap()
}

/// Fold every field of the nested Kitchen message (lists and children included).
fn fold_kitchen(root: Object<'_>) -> u64 {
    let leaf = |o: Object<'_>| u64::from(o.u32(0)) ^ o.text(4).len() as u64;
    let mut acc = u64::from(root.bool(0)) ^ u64::from(root.u8(1)) ^ u64::from(root.u16(2));
    acc ^= u64::from(root.u32(4)) ^ root.u64(8);
    acc ^= (root.i8(16) as u64)
        ^ (root.i16(18) as u64)
        ^ (root.i32(20) as u64)
        ^ (root.i64(24) as u64);
    acc ^= root.f32(32).to_bits() as u64 ^ root.f64(40).to_bits();
    acc ^= root.text(48).len() as u64 ^ root.bytes(56).len() as u64;
    acc ^= root
        .bytes_fixed::<16>(64)
        .iter()
        .fold(0, |a, b| a ^ u64::from(*b));
    acc ^= root.list(80).messages().fold(0, |a, o| a ^ leaf(o));
    acc ^= leaf(root.object(88));
    acc ^= root
        .list(96)
        .scalars::<u32>()
        .fold(0, |a, v| a ^ u64::from(v));
    acc
}

#[test]
fn reading_every_field_allocates_nothing() {
    let eth = vector("flat.json", "eth_request_fixed");
    let kitchen = vector("nested.json", "");
    let (n, sum) = allocations(|| {
        let req = Message::parse(&eth).unwrap().root();
        let eth_sum = req.u64(0) ^ req.u64(8) ^ u64::from(req.bytes_fixed::<20>(16)[19]);
        eth_sum ^ fold_kitchen(Message::parse(&kitchen).unwrap().root())
    });
    assert!(sum > 0);
    assert_eq!(n, 0, "reads must not allocate");
}

#[test]
fn warm_pooled_builds_allocate_nothing() {
    let pool = BuilderPool::new();
    let hash = [0xabu8; 32];
    let build_response = |id: u64| {
        let mut b = pool.get();
        let mut r = b.start_object(56);
        r.set_u64(0, id);
        r.set_u64(8, 1_000_000_000_000_000_000);
        r.set_u64(16, 42);
        r.set_bytes_fixed(24, &hash);
        r.finish_as_root();
        b.finish().unwrap().len()
    };
    let build_tails = |id: u64| {
        let mut b = pool.get();
        let mut r = b.start_object(32);
        r.set_u64(0, id);
        r.set_u64(8, 68943);
        r.set_text(16, "eth_getBalance");
        r.set_bytes(24, &hash[..20]);
        r.finish_as_root();
        b.finish().unwrap().len()
    };
    let build_envelope = |id: u32| {
        let mut b = pool.get();
        let body = [1u8; 72];
        let len = Response {
            status: Status::OK,
            promise_id: id,
            body: &body,
        }
        .encode(&mut b)
        .unwrap()
        .len();
        len + Request {
            method: 1,
            promise_id: id,
            target: 0,
            cap: b"",
            payload: &body,
        }
        .encode(&mut b)
        .unwrap()
        .len()
    };
    // Warm-up: the pool creates its builder and the buffers grow to size.
    build_response(0);
    build_tails(0);
    build_envelope(0);
    let (n, total) = allocations(|| {
        (1..=1000)
            .map(|i| build_response(i) + build_tails(i) + build_envelope(i as u32))
            .sum::<usize>()
    });
    assert!(total > 0);
    assert_eq!(n, 0, "a warm pooled builder must not allocate");
}

#[test]
fn the_counter_does_count() {
    // Guards the two tests above against a counter that never moves.
    let (n, v) = allocations(|| vec![1u8; 100]);
    assert_eq!(v.len(), 100);
    assert!(n >= 1);
}

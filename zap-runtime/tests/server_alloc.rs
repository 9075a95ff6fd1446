//! Zero allocations per request on a warm connection, server side: a counting global
//! allocator (this test binary only) counts heap calls on the one thread that runs
//! both the server and a raw client (pre-encoded requests, a fixed read buffer), while
//! calls go through the whole path: read, frame decode, envelope parse, `Service::call`,
//! result recording and Target lookup for pipelining, response framing, write.

mod server_support;

use server_support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use zap_runtime::rpc::Response;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::allocations;

/// One answer to ADD: frame header, envelope header, response object, 24-byte body.
const ANSWER_LEN: usize = 5 + 16 + 20 + 24;

/// Send `frames` (`count` requests) and read `count` answers into `buf`.
async fn round_trip(stream: &mut TcpStream, frames: &[u8], count: usize, buf: &mut [u8]) {
    stream.write_all(frames).await.unwrap();
    stream
        .read_exact(&mut buf[..count * ANSWER_LEN])
        .await
        .unwrap();
}

#[test]
fn warm_connection_allocates_nothing_per_request() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let server = TestServer::start(quick_config()).await;
        let mut stream = TcpStream::connect(server.addr).await.unwrap();
        stream.set_nodelay(true).unwrap();
        let counted_from = allocations();
        // A call and a call pipelined on it (Target = 1: doubles the first result).
        let mut pipelined = request_frame(ADD, 1, 0, &pair(40, 2));
        pipelined.extend(request_frame(DOUBLE, 2, 1, b""));
        let mut batch = Vec::new();
        for i in 0..64 {
            batch.extend(request_frame(ADD, 100 + i, 0, &pair(u64::from(i), 1)));
        }
        let mut answers = vec![0u8; 64 * ANSWER_LEN];

        // Warm up: buffers, builder, the pipelining ring all the way round.
        for _ in 0..200 {
            round_trip(&mut stream, &pipelined, 2, &mut answers).await;
            round_trip(&mut stream, &batch, 64, &mut answers).await;
        }

        assert!(allocations() > counted_from, "the counter sees this thread");
        let before = allocations();
        for _ in 0..500 {
            round_trip(&mut stream, &pipelined, 2, &mut answers).await;
        }
        let doubled = Response::parse(&answers[ANSWER_LEN + 5..2 * ANSWER_LEN]).unwrap();
        assert_eq!((doubled.promise_id, value(doubled.body)), (2, 84));
        for _ in 0..50 {
            round_trip(&mut stream, &batch, 64, &mut answers).await;
        }
        let used = allocations() - before;

        // The answers are right (checked after counting: parsing is not under test).
        let last = Response::parse(&answers[64 * ANSWER_LEN - ANSWER_LEN + 5..]).unwrap();
        assert_eq!((last.promise_id, value(last.body)), (163, 64));
        assert_eq!(used, 0, "heap allocations for 4 200 warm calls");
        drop(stream);
        server.shutdown().await;
    });
}

/// The same with a capability policy on the server: every call carries a valid
/// capability, which after the first check is answered from the policy's cache (expiry
/// and revocation re-checked) without touching the heap.
#[test]
fn capability_checks_from_the_cache_allocate_nothing() {
    use std::time::{SystemTime, UNIX_EPOCH};
    use zap_runtime::cap::{issue, Issuance, Policy, Scheme, SigningKey};

    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let key = SigningKey::from_secret(Scheme::Ed25519, &[3; 32]).unwrap();
    let target = [0x5a; 32];
    let cap = issue(
        &Issuance {
            kind: 1,
            target,
            permissions: 1,
            issued_at: now - 60,
            expires_at: now + 3600,
            ..Default::default()
        },
        &key,
    )
    .unwrap();
    // The table names ADD: a method missing from it would be refused (fail closed).
    let policy = Policy::builder(target)
        .trust(key.public_key().clone())
        .method(ADD, 1)
        .build();
    let config = zap_runtime::server::ServerConfig {
        authorize: Some(zap_runtime::Authorizer::new(policy)),
        ..quick_config()
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let server = TestServer::start(config).await;
        let mut stream = TcpStream::connect(server.addr).await.unwrap();
        stream.set_nodelay(true).unwrap();
        let mut batch = Vec::new();
        for i in 0..16 {
            batch.extend(request_frame_with_cap(
                ADD,
                1 + i,
                0,
                &pair(u64::from(i), 1),
                &cap,
            ));
        }
        let mut answers = vec![0u8; 16 * ANSWER_LEN];
        for _ in 0..100 {
            round_trip(&mut stream, &batch, 16, &mut answers).await;
        }
        let before = allocations();
        for _ in 0..100 {
            round_trip(&mut stream, &batch, 16, &mut answers).await;
        }
        let used = allocations() - before;
        let last = Response::parse(&answers[15 * ANSWER_LEN + 5..]).unwrap();
        assert_eq!((last.status.0, value(last.body)), (200, 16));
        assert_eq!(
            used, 0,
            "heap allocations for 1 600 warm calls with capabilities"
        );
        drop(stream);
        server.shutdown().await;
    });
}

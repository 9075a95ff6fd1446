//! Zero allocations per request on a warm node-transport connection, server side: the
//! same measurement as `server_alloc.rs` (a counting allocator on the one thread that
//! runs the server and a raw client), through the node framing: handshake once, then
//! reqID-correlated frames, detection, reqID bookkeeping, answers framed with the
//! request's reqID, pipelining on Target.

mod server_support;

use server_support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use zap_runtime::frame::node::{encode_handshake, encode_node_frame, Flag, NodeId};
use zap_runtime::rpc::{Request, Response};
use zap_runtime::Builder;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::allocations;

/// One answer to ADD: node frame header, envelope header, response object, 24-byte body.
const ANSWER_LEN: usize = 12 + 16 + 20 + 24;

fn node_request(req_id: u32, method: u32, promise_id: u32, target: u32, payload: &[u8]) -> Vec<u8> {
    let mut b = Builder::new();
    let env = Request {
        method,
        promise_id,
        target,
        cap: b"",
        payload,
    }
    .encode(&mut b)
    .unwrap();
    let mut out = Vec::new();
    encode_node_frame(&mut out, req_id, Flag::Request, env).unwrap();
    out
}

/// Send `frames` (`count` requests) and read `count` answers into `buf`.
async fn round_trip(stream: &mut TcpStream, frames: &[u8], count: usize, buf: &mut [u8]) {
    stream.write_all(frames).await.unwrap();
    stream
        .read_exact(&mut buf[..count * ANSWER_LEN])
        .await
        .unwrap();
}

#[test]
fn warm_node_connection_allocates_nothing_per_request() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let server = TestServer::start(quick_config()).await;
        let mut stream = TcpStream::connect(server.addr).await.unwrap();
        stream.set_nodelay(true).unwrap();
        let mut hello = Vec::new();
        encode_handshake(&mut hello, &NodeId::new("counter").unwrap());
        stream.write_all(&hello).await.unwrap();
        let mut theirs = [0u8; 84];
        stream.read_exact(&mut theirs).await.unwrap();

        let counted_from = allocations();
        // A call and a call pipelined on it (Target = 1: doubles the first result).
        let mut pipelined = node_request(1, ADD, 1, 0, &pair(40, 2));
        pipelined.extend(node_request(2, DOUBLE, 2, 1, b""));
        let mut batch = Vec::new();
        for i in 0..64 {
            batch.extend(node_request(
                1000 + i,
                ADD,
                100 + i,
                0,
                &pair(u64::from(i), 1),
            ));
        }
        let mut answers = vec![0u8; 64 * ANSWER_LEN];

        // Warm up: buffers, builder, the reqID table, the pipelining ring all the way round.
        for _ in 0..200 {
            round_trip(&mut stream, &pipelined, 2, &mut answers).await;
            round_trip(&mut stream, &batch, 64, &mut answers).await;
        }

        assert!(allocations() > counted_from, "the counter sees this thread");
        let before = allocations();
        for _ in 0..500 {
            round_trip(&mut stream, &pipelined, 2, &mut answers).await;
        }
        let second = &answers[ANSWER_LEN..2 * ANSWER_LEN];
        let doubled = Response::parse(&second[12..]).unwrap();
        assert_eq!(
            u32::from_le_bytes(second[4..8].try_into().unwrap()),
            2,
            "reqID"
        );
        assert_eq!((doubled.promise_id, value(doubled.body)), (2, 84));
        for _ in 0..50 {
            round_trip(&mut stream, &batch, 64, &mut answers).await;
        }
        let used = allocations() - before;

        // The answers are right (checked after counting: parsing is not under test).
        let last = &answers[63 * ANSWER_LEN..];
        let resp = Response::parse(&last[12..]).unwrap();
        assert_eq!(
            u32::from_le_bytes(last[4..8].try_into().unwrap()),
            1063,
            "reqID"
        );
        assert_eq!(
            u32::from_le_bytes(last[8..12].try_into().unwrap()),
            2,
            "flag"
        );
        assert_eq!((resp.promise_id, value(resp.body)), (163, 64));
        assert_eq!(used, 0, "heap allocations for 4 200 warm calls");
        drop(stream);
        server.shutdown().await;
    });
}

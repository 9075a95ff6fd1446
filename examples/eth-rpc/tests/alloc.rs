//! Zero heap allocations per `eth_getBalance` on a warm ZAP connection, handler included:
//! a counting global allocator (this test binary only) counts heap calls on the one
//! thread that runs the example's servers and a raw client (pre-encoded frames, a fixed
//! read buffer), while the calls go through frame decoding, envelope parsing, dispatch,
//! the generated reader, the ledger handler, response encoding and framing, and writes.

use std::net::SocketAddr;

use eth_rpc::eth::{BalanceRequest, BalanceResponse};
use eth_rpc::ledger::Ledger;
use eth_rpc::{Config, Servers};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use zap_runtime::frame::{encode_frame, Direction};
use zap_runtime::rpc::{Request, Response, Status};
use zap_runtime::{Builder, ZapStruct};

#[path = "../../../zap-runtime/tests/support/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::allocations;

/// One answer: frame header, envelope header, response object, a 72-byte BalanceResponse.
const ANSWER_LEN: usize = 5 + 16 + 20 + 72;
const BATCH: usize = 32;

/// `BATCH` framed eth_getBalance calls (PromiseIDs 1..=BATCH) for seeded accounts.
fn request_frames(ledger: &Ledger) -> Vec<u8> {
    let mut frames = Vec::new();
    let mut b = Builder::new();
    for i in 0..BATCH {
        let payload = BalanceRequest {
            id: i as u64,
            block: 68943,
            account: *ledger.address(i).unwrap(),
        }
        .to_bytes()
        .unwrap();
        let req = Request {
            method: 1,
            promise_id: i as u32 + 1,
            target: 0,
            cap: b"",
            payload: &payload,
        };
        encode_frame(&mut frames, Direction::Request, req.encode(&mut b).unwrap()).unwrap();
    }
    frames
}

#[test]
fn warm_eth_get_balance_allocates_nothing_per_request() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let at_start = allocations();
        let loopback = SocketAddr::from(([127, 0, 0, 1], 0));
        let servers = Servers::bind(Config {
            zap_addr: loopback,
            http_addr: loopback,
            ..Config::default()
        })
        .await
        .unwrap();
        let addr = servers.zap_addr();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let serving = tokio::spawn(servers.serve(async move {
            let _ = stopped.await;
        }));

        let ledger = Ledger::default();
        let frames = request_frames(&ledger);
        let mut answers = vec![0u8; BATCH * ANSWER_LEN];
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.set_nodelay(true).unwrap();
        let round_trip = async |stream: &mut TcpStream, answers: &mut [u8]| {
            stream.write_all(&frames).await.unwrap();
            stream.read_exact(answers).await.unwrap();
        };
        // Warm up: connection buffers, builder, pipelining ring.
        for _ in 0..100 {
            round_trip(&mut stream, &mut answers).await;
        }
        assert!(
            allocations() > at_start,
            "the counter sees the thread the server runs on"
        );
        let before = allocations();
        for _ in 0..200 {
            round_trip(&mut stream, &mut answers).await;
        }
        let used = allocations() - before;

        // The answers are right (checked after counting).
        for (i, answer) in answers.chunks(ANSWER_LEN).enumerate() {
            let resp = Response::parse(&answer[5..]).unwrap();
            assert_eq!((resp.status, resp.promise_id), (Status::OK, i as u32 + 1));
            let body = BalanceResponse::decode(resp.body).unwrap();
            let want = ledger.account(ledger.address(i).unwrap());
            assert_eq!(
                (body.id, body.balance, body.nonce),
                (i as u64, want.balance, want.nonce)
            );
        }
        assert_eq!(
            used,
            0,
            "heap allocations for {} warm eth_getBalance calls",
            200 * BATCH
        );
        eprintln!(
            "{} warm eth_getBalance calls: {used} heap allocations",
            200 * BATCH
        );

        drop(stream);
        let _ = stop.send(());
        serving.await.unwrap().unwrap();
    });
}

/// Heap allocations per warm JSON-RPC call through the JSON layer (`handle_jsonrpc`:
/// envelope, params into the request message, handler, answer into the body), single
/// and batched. What remains: the response body (one buffer per HTTP answer, which
/// hyper takes over as the response's bytes); a batch adds serde_json's scratch buffer,
/// which it grows once per body to skip its members as raw values, and the list of its
/// members (grown as they are read: one allocation and two reallocations for 10).
#[test]
fn warm_json_rpc_calls_allocate_only_the_answer() {
    use eth_rpc::eth::EthService;
    use eth_rpc::LedgerEth;
    use zap_runtime::http::handle_jsonrpc;
    use zap_runtime::json::to_hex;
    use zap_runtime::BuilderPool;

    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let ledger = Ledger::default();
    let service = EthService::new(LedgerEth::new(ledger.clone()));
    let pool = BuilderPool::new();
    let address = to_hex(ledger.address(3).unwrap());
    let single = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"eth_getBalance","params":["{address}","latest"]}}"#
    );
    let batch = format!("[{}]", [single.as_str(); 10].join(","));
    let want = format!(
        r#"{{"jsonrpc":"2.0","result":"{:#x}","id":7}}"#,
        ledger.account(ledger.address(3).unwrap()).balance
    );
    runtime.block_on(async {
        // Warm the pool.
        for _ in 0..4 {
            let answer = handle_jsonrpc(&service, &pool, single.as_bytes(), 100).await;
            assert_eq!(answer.as_deref(), Some(want.as_bytes()));
            handle_jsonrpc(&service, &pool, batch.as_bytes(), 100).await;
        }
        let calls = 1000;
        let before = allocations();
        for _ in 0..calls {
            std::hint::black_box(handle_jsonrpc(&service, &pool, single.as_bytes(), 100).await);
        }
        let per_single = (allocations() - before) as f64 / calls as f64;
        let before = allocations();
        for _ in 0..calls {
            std::hint::black_box(handle_jsonrpc(&service, &pool, batch.as_bytes(), 100).await);
        }
        let per_batch = (allocations() - before) as f64 / calls as f64;
        eprintln!(
            "warm JSON-RPC: {per_single} heap allocations per call, {per_batch} per batch of 10"
        );
        assert_eq!(per_single, 1.0, "one call: the response body");
        assert_eq!(
            per_batch, 5.0,
            "a batch of 10: the body, the scratch, the member list"
        );
    });
}

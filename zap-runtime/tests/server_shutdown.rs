//! Graceful shutdown: every request the server has read gets exactly one answer, the
//! rest of the callers see the connection close, nobody hangs, and `serve` returns.

use crate::server_support;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use server_support::*;
use zap_runtime::client::Client;
use zap_runtime::rpc::Status;
use zap_runtime::server::ServerConfig;
use zap_runtime::ClientError;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_under_load_answers_or_closes_every_call() {
    let server = TestServer::start(quick_config()).await;
    let answered = Arc::new(AtomicU64::new(0));
    let closed = Arc::new(AtomicU64::new(0));
    let mut callers = tokio::task::JoinSet::new();
    for c in 0..4u64 {
        let client = Client::connect(server.addr).await.unwrap();
        for t in 0..16u64 {
            let (client, answered, closed) = (client.clone(), answered.clone(), closed.clone());
            callers.spawn(async move {
                for i in 0u64.. {
                    let n = (c << 40) | (t << 20) | i;
                    // Every fourth call takes a little while, so some are mid-handler.
                    let result = if i % 4 == 0 {
                        client.call_raw(SLOW, 0, &pair(2, n)).await
                    } else {
                        client.call_raw(ADD, 0, &pair(n, 1)).await
                    };
                    match result {
                        Ok((Status::OK, body)) => {
                            let want = if i % 4 == 0 { n } else { n + 1 };
                            assert_eq!(value(&body), want, "a wrong answer");
                            answered.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(ClientError::Closed(_)) => {
                            closed.fetch_add(1, Ordering::Relaxed);
                            return;
                        }
                        other => panic!("neither an answer nor a close: {other:?}"),
                    }
                }
            });
        }
    }
    // Let the load run until plenty of calls were answered.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while answered.load(Ordering::Relaxed) < 2_000 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.shutdown().await;
    let all_done = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(done) = callers.join_next().await {
            done.expect("caller task");
        }
    })
    .await;
    assert!(all_done.is_ok(), "some caller hangs after shutdown");
    assert!(answered.load(Ordering::Relaxed) > 0);
    assert_eq!(
        closed.load(Ordering::Relaxed),
        64,
        "every caller saw the close"
    );
}

#[tokio::test]
async fn requests_read_before_shutdown_are_answered() {
    // Flush after every answer, so the first answer shows the batch was read.
    let server = TestServer::start(ServerConfig {
        max_in_flight: 1,
        ..quick_config()
    })
    .await;
    let mut raw = Raw::connect(server.addr).await;
    let mut batch = request_frame(ADD, 1, 0, &pair(1, 1));
    batch.extend(request_frame(GATED, 2, 0, &pair(22, 0)));
    batch.extend(request_frame(ADD, 3, 0, &pair(3, 3)));
    raw.send(&batch).await;
    let (status, id, _) = raw.answer().await.expect("first answer");
    assert_eq!((status, id), (Status::OK, 1));

    // Shut down while the gated call is provably inside its handler; only then let it
    // finish. It, and the call read after it, are still answered.
    server.gate.entered().await;
    server.begin_shutdown();
    server.gate.release();
    let (status, id, body) = raw.answer().await.expect("gated call answered");
    assert_eq!((status, id, value(&body)), (Status::OK, 2, 22));
    let (status, id, body) = raw.answer().await.expect("last call answered");
    assert_eq!((status, id, value(&body)), (Status::OK, 3, 6));
    assert!(raw.is_closed_by_server().await);
    server.shutdown().await;
}

#[tokio::test]
async fn idle_connections_do_not_hold_up_shutdown() {
    let server = TestServer::start(quick_config()).await;
    let client = Client::connect(server.addr).await.unwrap();
    client.call_raw(NOTHING, 0, b"").await.unwrap();
    let _silent = Raw::connect(server.addr).await;
    server.shutdown().await;
    // The client learns the connection is gone.
    let closed = tokio::time::timeout(Duration::from_secs(5), async {
        while !client.is_closed() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert!(closed.is_ok());
    assert!(matches!(
        client.call_raw(NOTHING, 0, b"").await,
        Err(ClientError::Closed(_))
    ));
}

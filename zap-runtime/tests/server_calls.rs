//! Calls over a real socket: answers, error statuses that leave the connection usable,
//! many concurrent callers on one client connection.

use crate::server_support;

use server_support::*;
use zap_runtime::client::Client;
use zap_runtime::rpc::Status;
use zap_runtime::{ClientError, Transport};

#[tokio::test]
async fn single_call_and_empty_reply() {
    let server = TestServer::start(quick_config()).await;
    let client = Client::connect(server.addr).await.unwrap();
    let body = client.call(ADD, &pair(2, 40)).await.unwrap();
    assert_eq!(value(&body), 42);
    assert_eq!(client.call(NOTHING, b"").await.unwrap(), Vec::<u8>::new());
    drop(client);
    server.shutdown().await;
}

#[tokio::test]
async fn error_statuses_keep_the_connection_usable() {
    let server = TestServer::start(quick_config()).await;
    let client = Client::connect(server.addr).await.unwrap();
    let (status, body) = client.call_raw(99, 0, b"").await.unwrap();
    assert_eq!(status, Status::NOT_FOUND);
    assert!(
        String::from_utf8_lossy(&body).contains("ordinal 99"),
        "{body:?}"
    );

    let (status, body) = client.call_raw(ADD, 0, b"not a message").await.unwrap();
    assert_eq!(status, Status::BAD_REQUEST);
    assert!(String::from_utf8_lossy(&body).contains("not a Calc message"));

    match client.call(FAIL, b"").await {
        Err(ClientError::Status { status, message }) => {
            assert_eq!(status, Status::INTERNAL);
            assert_eq!(message, "calc: method 2 always fails");
        }
        other => panic!("expected a 500, got {other:?}"),
    }
    // Same connection, still serving.
    assert_eq!(value(&client.call(ADD, &pair(1, 1)).await.unwrap()), 2);
    assert!(!client.is_closed());
    drop(client);
    server.shutdown().await;
}

#[tokio::test]
async fn promise_id_zero_is_refused_and_the_connection_stays() {
    let server = TestServer::start(quick_config()).await;
    let client = Client::connect(server.addr).await.unwrap();
    let (status, body) = client
        .call_raw_with_id(0, ADD, 0, &pair(1, 2))
        .await
        .unwrap();
    assert_eq!(status, Status::BAD_REQUEST);
    assert!(String::from_utf8_lossy(&body).contains("PromiseID 0"));
    assert_eq!(value(&client.call(ADD, &pair(3, 4)).await.unwrap()), 7);
    drop(client);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_concurrent_callers_share_one_connection() {
    let server = TestServer::start(quick_config()).await;
    let client = Client::connect(server.addr).await.unwrap();
    let mut tasks = tokio::task::JoinSet::new();
    for t in 0..200u64 {
        let client = client.clone();
        tasks.spawn(async move {
            for i in 0..50u64 {
                let body = client.call(ADD, &pair(t * 1000, i)).await.unwrap();
                assert_eq!(value(&body), t * 1000 + i, "task {t} call {i}");
            }
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.expect("caller task");
    }
    drop(client);
    server.shutdown().await;
}

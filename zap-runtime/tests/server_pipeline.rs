//! Promise pipelining (spec §5 `Target`): a call runs on an earlier call's result.

use crate::server_support;

use server_support::*;
use zap_runtime::client::Client;
use zap_runtime::rpc::Status;
use zap_runtime::server::ServerConfig;

fn text(body: &[u8]) -> String {
    String::from_utf8_lossy(body).into_owned()
}

#[tokio::test]
async fn result_of_a_feeds_b_sent_back_to_back() {
    let server = TestServer::start(quick_config()).await;
    let client = Client::connect(server.addr).await.unwrap();
    let a = client.next_promise_id();
    let b = client.next_promise_id();
    // B is sent before A is answered: both calls are in flight together.
    let payload = pair(20, 1);
    let (ra, rb) = tokio::join!(
        client.call_raw_with_id(a, ADD, 0, &payload),
        client.call_raw_with_id(b, DOUBLE, a, b""),
    );
    let (sa, ba) = ra.unwrap();
    let (sb, bb) = rb.unwrap();
    assert_eq!((sa, value(&ba)), (Status::OK, 21));
    assert_eq!((sb, value(&bb)), (Status::OK, 42));
    // A chain: C doubles B's result.
    let (sc, bc) = client.call_raw(DOUBLE, b, b"").await.unwrap();
    assert_eq!((sc, value(&bc)), (Status::OK, 84));
    drop(client);
    server.shutdown().await;
}

#[tokio::test]
async fn unknown_and_failed_targets_are_400_and_the_connection_stays() {
    let server = TestServer::start(quick_config()).await;
    let client = Client::connect(server.addr).await.unwrap();
    let (status, body) = client.call_raw(DOUBLE, 777_777, b"").await.unwrap();
    assert_eq!(status, Status::BAD_REQUEST);
    assert!(
        text(&body).contains("target promise 777777 is unknown"),
        "{}",
        text(&body)
    );

    let failing = client.next_promise_id();
    let (status, _) = client
        .call_raw_with_id(failing, FAIL, 0, b"")
        .await
        .unwrap();
    assert_eq!(status, Status::INTERNAL);
    let (status, body) = client.call_raw(DOUBLE, failing, b"").await.unwrap();
    assert_eq!(status, Status::BAD_REQUEST);
    assert!(text(&body).contains("answered 500"), "{}", text(&body));

    // A dependent of a refused dependent is refused too.
    let refused = client.next_promise_id();
    let (status, _) = client
        .call_raw_with_id(refused, DOUBLE, 1_000_000, b"")
        .await
        .unwrap();
    assert_eq!(status, Status::BAD_REQUEST);
    let (status, _) = client.call_raw(DOUBLE, refused, b"").await.unwrap();
    assert_eq!(status, Status::BAD_REQUEST);

    assert_eq!(
        client.call_raw(ADD, 0, &pair(1, 2)).await.unwrap().0,
        Status::OK
    );
    drop(client);
    server.shutdown().await;
}

#[tokio::test]
async fn evicted_results_cannot_be_pipelined_on() {
    let server = TestServer::start(ServerConfig {
        pipeline_results: 4,
        ..quick_config()
    })
    .await;
    let client = Client::connect(server.addr).await.unwrap();
    let first = client.next_promise_id();
    client
        .call_raw_with_id(first, ADD, 0, &pair(1, 1))
        .await
        .unwrap();
    for i in 0..4 {
        client.call_raw(ADD, 0, &pair(i, i)).await.unwrap();
    }
    let (status, body) = client.call_raw(DOUBLE, first, b"").await.unwrap();
    assert_eq!(status, Status::BAD_REQUEST);
    assert!(text(&body).contains("last 4 results"), "{}", text(&body));
    drop(client);
    server.shutdown().await;
}

#[tokio::test]
async fn targets_are_per_connection() {
    let server = TestServer::start(quick_config()).await;
    let one = Client::connect(server.addr).await.unwrap();
    let two = Client::connect(server.addr).await.unwrap();
    let a = one.next_promise_id();
    one.call_raw_with_id(a, ADD, 0, &pair(5, 5)).await.unwrap();
    let (status, _) = two.call_raw(DOUBLE, a, b"").await.unwrap();
    assert_eq!(status, Status::BAD_REQUEST);
    drop((one, two));
    server.shutdown().await;
}

#[tokio::test]
async fn with_no_results_kept_a_target_is_refused_and_says_pipelining_is_off() {
    for config in [
        ServerConfig {
            pipeline_results: 0,
            ..quick_config()
        },
        ServerConfig {
            pipeline_bytes: 0,
            ..quick_config()
        },
    ] {
        let server = TestServer::start(config).await;
        let client = Client::connect(server.addr).await.unwrap();
        let a = client.next_promise_id();
        let (status, body) = client
            .call_raw_with_id(a, ADD, 0, &pair(2, 3))
            .await
            .unwrap();
        assert_eq!((status, value(&body)), (Status::OK, 5));
        let (status, body) = client.call_raw(DOUBLE, a, b"").await.unwrap();
        assert_eq!(status, Status::BAD_REQUEST);
        assert!(
            text(&body).contains("promise pipelining is off on this server"),
            "{}",
            text(&body)
        );
        // The connection goes on.
        let (status, body) = client.call_raw(ADD, 0, &pair(4, 4)).await.unwrap();
        assert_eq!((status, value(&body)), (Status::OK, 8));
        drop(client);
        server.shutdown().await;
    }
}

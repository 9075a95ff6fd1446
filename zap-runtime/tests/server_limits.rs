//! Connection limits: idle timeout, max_connections, and back-pressure from a client
//! that does not read its answers.

mod server_support;

use std::time::Duration;

use server_support::*;
use zap_runtime::client::Client;
use zap_runtime::rpc::Status;
use zap_runtime::server::ServerConfig;
use zap_runtime::Transport;

#[tokio::test]
async fn idle_connections_are_closed() {
    let server = TestServer::start(ServerConfig {
        idle_timeout: Duration::from_millis(200),
        ..quick_config()
    })
    .await;
    // Silent from the start.
    let mut silent = Raw::connect(server.addr).await;
    // Used once, then silent.
    let mut used = Raw::connect(server.addr).await;
    used.send(&request_frame(ADD, 1, 0, &pair(1, 1))).await;
    assert_eq!(used.answer().await.unwrap().0, Status::OK);
    // Sends a partial frame and nothing more: no complete frame, so idle as well.
    let mut dribbling = Raw::connect(server.addr).await;
    dribbling.send(&[10, 0]).await;

    // A call running longer than the idle timeout is still answered.
    let mut slow = Raw::connect(server.addr).await;
    slow.send(&request_frame(SLOW, 9, 0, &pair(500, 99))).await;
    let (status, id, body) = slow.answer().await.expect("slow call answered");
    assert_eq!((status, id, value(&body)), (Status::OK, 9, 99));

    assert!(silent.is_closed_by_server().await);
    assert!(slow.is_closed_by_server().await);
    assert!(used.is_closed_by_server().await);
    assert!(dribbling.is_closed_by_server().await);
    server.shutdown().await;
}

#[tokio::test]
async fn connections_past_the_limit_are_refused() {
    let config = ServerConfig {
        max_connections: 2,
        ..quick_config()
    };
    let server = TestServer::start(config).await;
    let stats = server.stats.clone();
    let one = Client::connect(server.addr).await.unwrap();
    let two = Client::connect(server.addr).await.unwrap();
    // Both accepted (answered) before the third arrives.
    one.call(NOTHING, b"").await.unwrap();
    two.call(NOTHING, b"").await.unwrap();

    let mut third = Raw::connect(server.addr).await;
    third.send(&request_frame(ADD, 1, 0, &pair(1, 1))).await;
    assert!(
        third.is_closed_by_server().await,
        "third connection refused"
    );
    assert_eq!(value(&one.call(ADD, &pair(2, 2)).await.unwrap()), 4);
    assert_eq!((stats.active_connections(), stats.accepted()), (2, 2));
    assert_eq!(stats.refused(), 1);

    // Once one closes, a new connection is served (retry: the close takes a moment).
    drop(one);
    let mut served = false;
    for _ in 0..50 {
        let mut again = Raw::connect(server.addr).await;
        again.send(&request_frame(ADD, 1, 0, &pair(5, 5))).await;
        if let Some((Status::OK, 1, body)) = again.answer().await {
            assert_eq!(value(&body), 10);
            served = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(served, "a slot frees up after a connection closes");
    drop(two);
    // Every connection, refused retries included, is counted and none stays open.
    for _ in 0..100 {
        if stats.active_connections() == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(stats.active_connections(), 0, "no connection left open");
    assert!(stats.accepted() >= 3);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_does_not_read_is_throttled_not_buffered() {
    let server = TestServer::start(ServerConfig {
        write_buffer_limit: 4 << 10,
        ..quick_config()
    })
    .await;
    // 20 000 calls written without reading a single answer (about 1.7 MB of requests,
    // 1.3 MB of answers): the server must stop reading once the socket buffers fill.
    const CALLS: u32 = 20_000;
    let raw = Raw::connect(server.addr).await;
    let mut requests = Vec::new();
    for i in 1..=CALLS {
        requests.extend(request_frame(ADD, i, 0, &pair(u64::from(i), 1)));
    }
    let (mut rd, mut wr) = raw.stream.into_split();
    let writer = tokio::spawn(async move {
        use tokio::io::AsyncWriteExt;
        wr.write_all(&requests).await.map(|()| wr)
    });
    // Meanwhile another client is served normally.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let other = Client::connect(server.addr).await.unwrap();
    assert_eq!(value(&other.call(ADD, &pair(1, 2)).await.unwrap()), 3);

    // Now read: every answer arrives, in order.
    let mut answers = Answers::default();
    for i in 1..=CALLS {
        let (status, id, body) = answers.next(&mut rd).await.expect("answer");
        assert_eq!(
            (status, id, value(&body)),
            (Status::OK, i, u64::from(i) + 1)
        );
    }
    let _wr = writer.await.unwrap().expect("all requests written");
    drop(other);
    server.shutdown().await;
}

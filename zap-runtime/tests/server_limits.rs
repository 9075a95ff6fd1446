//! Connection limits: idle timeout, max_connections, and back-pressure from a client
//! that does not read its answers.

use crate::server_support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use server_support::*;
use tokio::net::TcpSocket;
use zap_runtime::client::Client;
use zap_runtime::rpc::Status;
use zap_runtime::server::ServerConfig;
use zap_runtime::Transport;

#[tokio::test]
async fn idle_connections_are_closed() {
    let server = TestServer::start(ServerConfig {
        idle_timeout: Duration::from_millis(200),
        first_bytes_timeout: Duration::from_millis(200),
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
async fn silent_sockets_are_closed_at_the_first_bytes_deadline() {
    let server = TestServer::start(ServerConfig {
        first_bytes_timeout: Duration::from_millis(300),
        ..quick_config()
    })
    .await;
    let started = std::time::Instant::now();
    let mut silent = Raw::connect(server.addr).await;
    // Two bytes: not enough to tell the framing.
    let mut dribbling = Raw::connect(server.addr).await;
    dribbling.send(&[10, 0]).await;
    // One call, then silent: framing known, so the idle timeout (5 minutes) applies.
    let mut used = Raw::connect(server.addr).await;
    used.send(&request_frame(ADD, 1, 0, &pair(1, 1))).await;
    assert_eq!(used.answer().await.unwrap().0, Status::OK);

    assert!(silent.is_closed_by_server().await);
    assert!(dribbling.is_closed_by_server().await);
    let closed_after = started.elapsed();
    assert!(
        closed_after >= Duration::from_millis(300) && closed_after < Duration::from_secs(5),
        "closed after {closed_after:?}"
    );
    // Still served well past the first-bytes deadline.
    used.send(&request_frame(ADD, 2, 0, &pair(2, 2))).await;
    assert_eq!(used.answer().await.unwrap().0, Status::OK);
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

    // Once one closes and its task has ended (the counter shows it), a new
    // connection is served.
    drop(one);
    until("the closed connection's slot is freed", || {
        stats.active_connections() == 1
    })
    .await;
    let mut again = Raw::connect(server.addr).await;
    again.send(&request_frame(ADD, 1, 0, &pair(5, 5))).await;
    let (status, id, body) = again.answer().await.expect("served once a slot is free");
    assert_eq!((status, id, value(&body)), (Status::OK, 1, 10));
    assert_eq!((stats.accepted(), stats.refused()), (3, 1));
    drop((two, again));
    until("every connection closed", || {
        stats.active_connections() == 0
    })
    .await;
    server.shutdown().await;
}

/// Socket buffer size asked for on every socket of the throttling test (Linux doubles
/// it and reports the doubled figure; the bound below uses what the sockets report).
const SOCKET_BUFFER: u32 = 32 << 10;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_does_not_read_is_throttled_not_buffered() {
    const WRITE_BUFFER_LIMIT: usize = 4 << 10;
    // Small, fixed socket buffers on both ends (accepted sockets inherit the listener's),
    // so that what the kernel can hold is known and small.
    let listen = TcpSocket::new_v4().unwrap();
    listen.set_recv_buffer_size(SOCKET_BUFFER).unwrap();
    listen.set_send_buffer_size(SOCKET_BUFFER).unwrap();
    listen.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let server_kernel =
        (listen.recv_buffer_size().unwrap() + listen.send_buffer_size().unwrap()) as usize;
    let server = TestServer::start_on(
        listen.listen(64).unwrap(),
        ServerConfig {
            write_buffer_limit: WRITE_BUFFER_LIMIT,
            ..quick_config()
        },
    );
    let peer = TcpSocket::new_v4().unwrap();
    peer.set_recv_buffer_size(SOCKET_BUFFER).unwrap();
    peer.set_send_buffer_size(SOCKET_BUFFER).unwrap();
    let peer_kernel =
        (peer.recv_buffer_size().unwrap() + peer.send_buffer_size().unwrap()) as usize;
    let stream = peer.connect(server.addr).await.unwrap();

    // 100 000 pipelined calls (about 8 MiB of requests), written without reading a single
    // answer. Each request frame and its answer frame have a fixed size.
    const CALLS: u32 = 100_000;
    let request_len = request_frame(ADD, 1, 0, &pair(1, 1)).len();
    let mut requests = Vec::with_capacity(request_len * CALLS as usize);
    for i in 1..=CALLS {
        requests.extend(request_frame(ADD, i, 0, &pair(u64::from(i), 1)));
    }
    let total = requests.len();
    // If the server stops reading once its answers are not taken, what the peer can get
    // written is what the kernel buffers of both ends hold (requests on their way in,
    // answers on their way out, each answer standing for one request consumed), plus the
    // server's write buffer and one read buffer of requests: counted generously, in
    // request bytes. A server that buffered instead would take all 8 MiB.
    let bound = 2 * (peer_kernel + server_kernel + WRITE_BUFFER_LIMIT + (64 << 10));
    assert!(
        bound < total / 4,
        "the bound {bound} must be far below {total}"
    );

    let (mut rd, mut wr) = stream.into_split();
    let written = Arc::new(AtomicUsize::new(0));
    let writer = {
        let written = Arc::clone(&written);
        tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            for chunk in requests.chunks(4 << 10) {
                wr.write_all(chunk).await?;
                written.fetch_add(chunk.len(), Ordering::SeqCst);
            }
            Ok::<_, std::io::Error>(wr)
        })
    };
    // Watch the writer until it stalls: every 10 ms, check the bound; stalled once no
    // byte went through for 20 checks in a row. Never more than 2000 checks.
    let mut last = 0;
    let mut unchanged = 0;
    for _ in 0..2000 {
        let now = written.load(Ordering::SeqCst);
        assert!(
            now <= bound,
            "the peer got {now} bytes written without reading: the server buffers (bound {bound})"
        );
        assert!(
            !writer.is_finished(),
            "all {total} bytes were taken: not throttled"
        );
        unchanged = if now == last { unchanged + 1 } else { 0 };
        last = now;
        if unchanged >= 20 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        unchanged >= 20,
        "the writer never stalled ({last} bytes written)"
    );
    assert!(last > 0, "the writer got nothing through");

    // While that peer is throttled, another client is served normally.
    let other = Client::connect(server.addr).await.unwrap();
    assert_eq!(value(&other.call(ADD, &pair(1, 2)).await.unwrap()), 3);

    // Now read: every answer arrives, in order, and the writer finishes.
    let mut answers = Answers::default();
    for i in 1..=CALLS {
        let (status, id, body) = answers.next(&mut rd).await.expect("answer");
        assert_eq!(
            (status, id, value(&body)),
            (Status::OK, i, u64::from(i) + 1)
        );
    }
    let _wr = writer.await.unwrap().expect("all requests written");
    assert_eq!(written.load(Ordering::SeqCst), total);
    drop(other);
    server.shutdown().await;
}

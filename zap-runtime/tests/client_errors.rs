//! The client against misbehaving servers: clear errors, every waiting caller woken,
//! never a hang.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use zap_runtime::client::{Client, ClientConfig};
use zap_runtime::{ClientError, Transport};

/// A server that accepts one connection and hands it to `then`.
async fn fake_server<F, Fut>(then: F) -> std::net::SocketAddr
where
    F: FnOnce(tokio::net::TcpStream) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        then(stream).await;
    });
    addr
}

/// Read until at least `n` bytes arrived (the client's requests).
async fn read_at_least(stream: &mut tokio::net::TcpStream, n: usize) {
    let mut got = 0;
    let mut buf = [0u8; 4096];
    while got < n {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(k) => got += k,
        }
    }
}

async fn bounded<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(5), f)
        .await
        .expect("no hang")
}

#[tokio::test]
async fn server_closing_wakes_every_pending_caller_with_closed() {
    let addr = fake_server(|mut s| async move {
        read_at_least(&mut s, 3 * 49).await; // three requests with an empty payload
        drop(s);
    })
    .await;
    let client = Client::connect(addr).await.unwrap();
    let (a, b, c) = bounded(async {
        tokio::join!(
            client.call(1, b""),
            client.call(2, b""),
            client.call(3, b"")
        )
    })
    .await;
    for r in [a, b, c] {
        assert!(matches!(r, Err(ClientError::Closed(_))), "{r:?}");
    }
    assert!(client.is_closed());
    let later = bounded(client.call(1, b"")).await;
    assert!(matches!(later, Err(ClientError::Closed(_))), "{later:?}");
}

#[tokio::test]
async fn garbage_from_the_server_is_a_protocol_error() {
    let addr = fake_server(|mut s| async move {
        read_at_least(&mut s, 1).await;
        let _ = s.write_all(b"\x05\x00\x00\x00\x02hello").await; // a frame, not an envelope
        tokio::time::sleep(Duration::from_secs(2)).await;
    })
    .await;
    let client = Client::connect(addr).await.unwrap();
    match bounded(client.call(1, b"")).await {
        Err(ClientError::Protocol(msg)) => assert!(msg.contains("bad response envelope"), "{msg}"),
        other => panic!("expected a protocol error, got {other:?}"),
    }
    assert!(client.is_closed());
}

#[tokio::test]
async fn a_silent_server_times_the_call_out() {
    let addr = fake_server(|mut s| async move {
        read_at_least(&mut s, usize::MAX).await;
    })
    .await;
    let config = ClientConfig {
        call_timeout: Duration::from_millis(100),
        ..ClientConfig::default()
    };
    let client = Client::connect_with(addr, config).await.unwrap();
    let r = bounded(client.call(1, b"")).await;
    assert!(matches!(r, Err(ClientError::Timeout(_))), "{r:?}");
    // The connection itself is still open.
    assert!(!client.is_closed());
}

#[tokio::test]
async fn connecting_to_nothing_is_an_io_error() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    assert!(Client::connect(addr).await.is_err());
}

#[tokio::test]
async fn a_client_at_an_http_port_is_told_the_peer_speaks_http() {
    let server = crate::http_support::Server::start(zap_runtime::http::HttpConfig::default()).await;
    let client = Client::connect(server.addr).await.unwrap();
    let err = bounded(client.call(1, b"")).await.unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("does not speak ZAP") && text.contains("HTTP"),
        "{text}"
    );
    server.shutdown().await;
}

//! Hostile clients on their own connections while a good client keeps getting correct
//! answers on another: each bad stream is closed (or answered 400), nobody else notices.

use crate::server_support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use server_support::*;
use tokio::io::AsyncWriteExt;
use zap_runtime::client::Client;
use zap_runtime::frame::Direction;
use zap_runtime::rpc::Status;
use zap_runtime::server::ServerConfig;
use zap_runtime::{Builder, Transport};

/// A good client calling in a loop until told to stop; returns how many calls it made.
fn good_client(client: Client, stop: Arc<AtomicBool>) -> tokio::task::JoinHandle<u64> {
    tokio::spawn(async move {
        let mut i = 0u64;
        while !stop.load(Ordering::Relaxed) {
            let body = client
                .call(ADD, &pair(i, 1))
                .await
                .expect("good client call");
            assert_eq!(value(&body), i + 1);
            i += 1;
        }
        i
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_streams_are_closed_and_do_not_disturb_others() {
    let server = TestServer::start(ServerConfig {
        max_frame: 1 << 16,
        ..quick_config()
    })
    .await;
    let stop = Arc::new(AtomicBool::new(false));
    let good = good_client(Client::connect(server.addr).await.unwrap(), stop.clone());

    // Garbage that is not framing (an HTTP request): its "length" is far too large.
    let mut raw = Raw::connect(server.addr).await;
    raw.send(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n").await;
    assert!(raw.is_closed_by_server().await, "garbage");

    // A length just over the limit.
    let mut raw = Raw::connect(server.addr).await;
    raw.send(&((1u32 << 16) + 1).to_le_bytes()).await;
    assert!(raw.is_closed_by_server().await, "oversized length");

    // An empty frame and an unknown direction.
    let mut raw = Raw::connect(server.addr).await;
    raw.send(&0u32.to_le_bytes()).await;
    assert!(raw.is_closed_by_server().await, "empty frame");
    let mut raw = Raw::connect(server.addr).await;
    raw.send(&[3, 0, 0, 0, 9, 0, 0]).await;
    assert!(raw.is_closed_by_server().await, "unknown direction");

    // A response frame sent to the server.
    let mut raw = Raw::connect(server.addr).await;
    raw.send(&frame(Direction::Response, b"whatever")).await;
    assert!(raw.is_closed_by_server().await, "response frame");

    // A truncated frame, then the client goes away.
    let mut raw = Raw::connect(server.addr).await;
    let whole = request_frame(ADD, 1, 0, &pair(1, 2));
    raw.send(&whole[..whole.len() / 2]).await;
    raw.stream.shutdown().await.unwrap();
    assert!(raw.is_closed_by_server().await, "truncated frame");

    // A frame arriving one byte at a time is still answered.
    let mut raw = Raw::connect(server.addr).await;
    for byte in &whole {
        raw.send(std::slice::from_ref(byte)).await;
    }
    let (status, id, body) = raw.answer().await.expect("answer to a dribbled frame");
    assert_eq!((status, id, value(&body)), (Status::OK, 1, 3));

    stop.store(true, Ordering::Relaxed);
    assert!(good.await.expect("good client") > 0);
    server.shutdown().await;
}

#[tokio::test]
async fn malformed_envelopes_are_answered_400_and_the_connection_stays() {
    let server = TestServer::start(quick_config()).await;
    let mut raw = Raw::connect(server.addr).await;

    // Not a ZAP message at all: answered with PromiseID 0 (unknown).
    raw.send(&frame(Direction::Request, b"junk")).await;
    let (status, id, body) = raw.answer().await.expect("answer to junk");
    assert_eq!((status, id), (Status::BAD_REQUEST, 0));
    assert!(String::from_utf8_lossy(&body).contains("malformed request envelope"));

    // A request whose fixed section is cut short but whose PromiseID is readable.
    let mut b = Builder::new();
    let mut obj = b.start_object(8);
    obj.set_u32(0, ADD);
    obj.set_u32(4, 31);
    obj.finish_message().unwrap();
    raw.send(&frame(Direction::Request, b.as_bytes())).await;
    let (status, id, _) = raw.answer().await.expect("answer to a short envelope");
    assert_eq!((status, id), (Status::BAD_REQUEST, 31));

    // Several requests in one write, one of them bad: each gets its own answer, in order.
    let mut batch = request_frame(ADD, 7, 0, &pair(3, 4));
    batch.extend(frame(Direction::Request, b"ZAP\0rubbish"));
    batch.extend(request_frame(ADD, 8, 0, &pair(10, 20)));
    raw.send(&batch).await;
    let (status, id, body) = raw.answer().await.unwrap();
    assert_eq!((status, id, value(&body)), (Status::OK, 7, 7));
    assert_eq!(raw.answer().await.unwrap().0, Status::BAD_REQUEST);
    let (status, id, body) = raw.answer().await.unwrap();
    assert_eq!((status, id, value(&body)), (Status::OK, 8, 30));
    server.shutdown().await;
}

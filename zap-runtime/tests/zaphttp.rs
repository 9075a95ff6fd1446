//! zaphttp, our server with our client, over real sockets: whole and streamed bodies,
//! trailers both ways, connection reuse, panics, and the limits that hold against a peer
//! that lies, stalls or never reads.

use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use zap_runtime::zaphttp::{self, codec, Body, Client, Server, ServerConfig};

type Chunks = mpsc::Receiver<Result<http_body::Frame<Bytes>, Infallible>>;

/// A body made of what a channel receives: its size is unknown, so it is streamed.
fn channel_body(
    mut rx: Chunks,
) -> http_body_util::StreamBody<
    impl futures_util::Stream<Item = Result<http_body::Frame<Bytes>, Infallible>>,
> {
    http_body_util::StreamBody::new(futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx)))
}

type Reply = http::Response<
    http_body_util::Either<Body, http_body_util::combinators::BoxBody<Bytes, Infallible>>,
>;

/// The test service: `/echo` answers the body, headers and trailers it got; `/stream`
/// streams what the test feeds through the channel `feed` hands out; `/endless` streams
/// 64 KiB chunks forever; `/panic` panics.
fn service(
    feed: mpsc::UnboundedSender<mpsc::Sender<Result<http_body::Frame<Bytes>, Infallible>>>,
) -> impl zaphttp::HttpService<
    http_body_util::Either<Body, http_body_util::combinators::BoxBody<Bytes, Infallible>>,
> {
    tower::service_fn(move |request: http::Request<Body>| {
        let feed = feed.clone();
        async move {
            let (parts, body) = request.into_parts();
            let reply: Reply = match parts.uri.path() {
                "/echo" => {
                    let collected = body.collect().await.unwrap();
                    let trailers = collected.trailers().cloned();
                    let mut response =
                        http::Response::new(Body::whole(collected.to_bytes(), trailers));
                    for (name, value) in &parts.headers {
                        if name.as_str().starts_with("x-") {
                            response.headers_mut().append(name, value.clone());
                        }
                    }
                    response.map(http_body_util::Either::Left)
                }
                "/stream" => {
                    let (tx, rx) = mpsc::channel(1);
                    feed.send(tx).unwrap();
                    http::Response::new(http_body_util::Either::Right(channel_body(rx).boxed()))
                }
                "/endless" => {
                    let chunk = Bytes::from(vec![b'z'; 64 << 10]);
                    let endless = futures_util::stream::repeat_with(move || {
                        Ok(http_body::Frame::data(chunk.clone()))
                    });
                    http::Response::new(http_body_util::Either::Right(
                        http_body_util::StreamBody::new(endless).boxed(),
                    ))
                }
                "/panic" => panic!("the handler panics"),
                _ => {
                    let mut response = http::Response::new(Body::from("no route"));
                    *response.status_mut() = http::StatusCode::NOT_FOUND;
                    response.map(http_body_util::Either::Left)
                }
            };
            Ok::<_, Infallible>(reply)
        }
    })
}

struct Running {
    addr: String,
    stats: zaphttp::ServerStats,
    feeds: mpsc::UnboundedReceiver<mpsc::Sender<Result<http_body::Frame<Bytes>, Infallible>>>,
    shutdown: CancellationToken,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

async fn start(config: ServerConfig) -> Running {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (feed, feeds) = mpsc::unbounded_channel();
    let server = Server::new(listener, std::sync::Arc::new(service(feed)), config);
    let stats = server.stats();
    let shutdown = CancellationToken::new();
    let task = tokio::spawn(server.run(shutdown.clone()));
    Running {
        addr,
        stats,
        feeds,
        shutdown,
        task,
    }
}

fn get(path: &str) -> http::Request<Body> {
    http::Request::get(path).body(Body::empty()).unwrap()
}

#[tokio::test]
async fn bodies_headers_and_trailers_both_ways_on_one_kept_connection() {
    let server = start(ServerConfig::default()).await;
    let client = Client::new(server.addr.as_str());
    let mut trailers = http::HeaderMap::new();
    trailers.insert("x-checksum", "abc".parse().unwrap());
    let request = http::Request::post("/echo")
        .header("x-a", "1")
        .header("x-a", "2")
        .body(Body::whole(Bytes::from_static(b"hello"), Some(trailers)))
        .unwrap();
    let answer = client.send(request).await.unwrap();
    assert_eq!(answer.status(), 200);
    let xa: Vec<_> = answer.headers().get_all("x-a").iter().collect();
    assert_eq!(xa, ["1", "2"]);
    let body = answer.into_body().collect().await.unwrap();
    assert_eq!(body.trailers().unwrap()["x-checksum"], "abc");
    assert_eq!(body.to_bytes(), "hello");

    // A panic is a 500, and the connection stays: every call so far used one.
    assert_eq!(client.send(get("/panic")).await.unwrap().status(), 500);
    assert_eq!(client.send(get("/nope")).await.unwrap().status(), 404);
    assert_eq!(server.stats.accepted(), 1);

    server.shutdown.cancel();
    server.task.await.unwrap().unwrap();
}

#[tokio::test]
async fn a_streamed_body_reaches_the_client_chunk_by_chunk() {
    let mut server = start(ServerConfig::default()).await;
    let client = Client::new(server.addr.as_str());
    let answer = client.send(get("/stream")).await.unwrap();
    assert_eq!(answer.headers()["transfer-encoding"], "chunked");
    let feed = server.feeds.recv().await.unwrap();
    let mut body = answer.into_body();
    // Each chunk is read before the next is made: nothing waits for the whole body.
    for i in 0..3 {
        let chunk = Bytes::from(format!("chunk {i}\n"));
        feed.send(Ok(http_body::Frame::data(chunk.clone())))
            .await
            .unwrap();
        let got = body.frame().await.unwrap().unwrap().into_data().unwrap();
        assert_eq!(got, chunk);
    }
    let mut trailers = http::HeaderMap::new();
    trailers.insert("x-sum", "3".parse().unwrap());
    feed.send(Ok(http_body::Frame::trailers(trailers)))
        .await
        .unwrap();
    drop(feed);
    let end = body
        .frame()
        .await
        .unwrap()
        .unwrap()
        .into_trailers()
        .unwrap();
    assert_eq!(end["x-sum"], "3");
    assert!(body.frame().await.is_none());
    // The connection went back to the pool with the end frame.
    assert_eq!(client.send(get("/nope")).await.unwrap().status(), 404);
    assert_eq!(server.stats.accepted(), 1);
}

#[cfg(unix)]
#[tokio::test]
async fn over_a_unix_socket() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("zaphttp.sock");
    let (feed, _feeds) = mpsc::unbounded_channel();
    let server = zaphttp::UnixServer::bind(&path, service(feed), ServerConfig::default()).unwrap();
    let shutdown = CancellationToken::new();
    let task = tokio::spawn(server.run(shutdown.clone()));
    let client = Client::new(format!("unix:{}", path.display()).as_str());
    let answer = client
        .send(
            http::Request::post("/echo")
                .body(Body::from("over unix"))
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(
        answer.into_body().collect().await.unwrap().to_bytes(),
        "over unix"
    );
    shutdown.cancel();
    task.await.unwrap().unwrap();
    assert!(!path.exists(), "the socket file is removed at shutdown");
}

/// A request frame with `body`, as the encoder writes it (prefix included).
fn request_frame(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut e = codec::Encoder::begin(&mut out, codec::FrameKind::Request);
    e.bytes(codec::request::METHOD, b"POST")
        .bytes(codec::request::TARGET, b"/echo")
        .bytes(codec::request::PROTO, b"HTTP/1.1")
        .pairs(codec::request::HEADERS, [(&b"x-a"[..], &b"1"[..])], true)
        .bytes(codec::request::BODY, body);
    e.finish();
    out
}

/// Send `bytes`, then read until the server closes: the answer it sent, if any.
async fn send_raw(addr: &str, bytes: &[u8]) -> Vec<u8> {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(bytes).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("the server closes the connection")
        .unwrap_or_default();
    answer
}

/// The status and body of the one response frame in `answer`.
fn status_of(answer: &[u8]) -> (u16, String) {
    let len = u32::from_be_bytes(answer[..4].try_into().unwrap()) as usize;
    assert_eq!(
        answer.len(),
        4 + len,
        "one frame, then the connection closed"
    );
    match codec::Frame::parse(&answer[4..]).unwrap() {
        codec::Frame::Response(r) => (r.status, String::from_utf8_lossy(r.body).into_owned()),
        other => panic!("not a response: {other:?}"),
    }
}

#[tokio::test]
async fn lies_get_a_400_and_the_connection_closes_while_others_are_served() {
    let server = start(ServerConfig {
        max_frame: 1 << 20,
        ..ServerConfig::default()
    })
    .await;
    let client = Client::new(server.addr.as_str());
    let good = request_frame(b"hello");
    let body_slot = 4 + 16 + codec::request::BODY;
    let headers_block = {
        let codec::Frame::Request(r) = codec::Frame::parse(&good[4..]).unwrap() else {
            panic!()
        };
        let at = r.headers.iter().next().unwrap().0.as_ptr() as usize - good.as_ptr() as usize;
        at - 8 // the count, then the name's length, precede the name
    };
    let mut cases: Vec<(&str, Vec<u8>, &str)> = Vec::new();
    let mut lying = good.clone();
    lying[body_slot + 4..body_slot + 8].copy_from_slice(&1_000_000u32.to_le_bytes());
    cases.push((
        "a body slot past the end",
        lying,
        "field `body` points at bytes",
    ));
    let mut lying = good.clone();
    lying[headers_block..headers_block + 4].copy_from_slice(&3u32.to_le_bytes());
    cases.push((
        "a header block shorter than its count",
        lying,
        "headers block",
    ));
    let mut lying = good.clone();
    lying[4 + 12..4 + 16].copy_from_slice(&9999u32.to_le_bytes());
    cases.push((
        "a size that is not the frame's",
        lying,
        "the header says the message is 9999 bytes",
    ));
    let mut lying = good.clone();
    lying[4 + 7] = 3;
    cases.push((
        "a response head where a request goes",
        lying,
        "expected a request frame, got a response head",
    ));
    let mut lying = good.clone();
    lying[4 + 16..4 + 20].copy_from_slice(&0xfff0u32.to_le_bytes());
    cases.push(("a method slot out of bounds", lying, "field `method`"));
    let mut bad_name = Vec::new();
    let mut e = codec::Encoder::begin(&mut bad_name, codec::FrameKind::Request);
    e.bytes(codec::request::TARGET, b"/echo").pairs(
        codec::request::HEADERS,
        [(&b"bad name"[..], &b"v"[..])],
        false,
    );
    e.finish();
    cases.push((
        "a header name with a space",
        bad_name,
        "not a valid HTTP header name",
    ));
    for (what, frame, reason) in cases {
        let answer = send_raw(&server.addr, &frame).await;
        let (status, body) = status_of(&answer);
        assert_eq!(status, 400, "{what}");
        assert!(body.contains(reason), "{what}: {body}");
        // Other connections are served meanwhile.
        assert_eq!(
            client.send(get("/nope")).await.unwrap().status(),
            404,
            "{what}"
        );
    }
    // A length prefix over the bound, or of 0: closed without an answer, nothing read.
    for prefix in [
        (2u32 << 20).to_be_bytes(),
        u32::MAX.to_be_bytes(),
        0u32.to_be_bytes(),
    ] {
        assert_eq!(send_raw(&server.addr, &prefix).await, b"");
    }
    assert_eq!(client.send(get("/nope")).await.unwrap().status(), 404);
}

#[tokio::test]
async fn a_peer_that_stalls_or_never_reads_is_let_go() {
    let server = start(ServerConfig {
        idle_timeout: Duration::from_millis(300),
        read_timeout: Duration::from_millis(300),
        write_stall_timeout: Duration::from_millis(300),
        ..ServerConfig::default()
    })
    .await;
    // Connected, silent: closed at the idle timeout.
    assert_eq!(send_raw(&server.addr, b"").await, b"");
    // Half a frame, then nothing: closed at the read timeout, no answer.
    let frame = request_frame(b"x");
    assert_eq!(send_raw(&server.addr, &frame[..frame.len() / 2]).await, b"");

    // Asks for an endless stream and reads none of it: the server stops writing when the
    // socket buffers are full, and closes the connection at the stall timeout.
    let mut stream = TcpStream::connect(&server.addr).await.unwrap();
    let mut endless = Vec::new();
    let mut e = codec::Encoder::begin(&mut endless, codec::FrameKind::Request);
    e.bytes(codec::request::TARGET, b"/endless");
    e.finish();
    stream.write_all(&endless).await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while server.stats.active_connections() > 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the stalled connection is still open"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // What the server wrote before it gave up is bounded by the socket buffers.
    assert!(
        server.stats.bytes_out() < 64 << 20,
        "{} bytes out",
        server.stats.bytes_out()
    );
    drop(stream);
    let client = Client::new(server.addr.as_str());
    assert_eq!(client.send(get("/nope")).await.unwrap().status(), 404);
}

#[tokio::test]
async fn an_axum_router_runs_unchanged() {
    use axum::routing::post;
    let app = axum::Router::new()
        .route(
            "/hello/{name}",
            axum::routing::get(
                |axum::extract::Path(name): axum::extract::Path<String>| async move {
                    format!("hello, {name}")
                },
            ),
        )
        .route("/echo", post(|body: Bytes| async move { body }));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let shutdown = CancellationToken::new();
    let server = tokio::spawn(zaphttp::serve(
        listener,
        app,
        ServerConfig::default(),
        shutdown.clone(),
    ));
    let client = Client::new(addr.as_str());
    let hello = client.send(get("/hello/ada")).await.unwrap();
    assert_eq!(
        hello.into_body().collect().await.unwrap().to_bytes(),
        "hello, ada"
    );
    let echo = http::Request::post("/echo")
        .body(Body::from("bytes"))
        .unwrap();
    let echo = client.send(echo).await.unwrap();
    assert_eq!(
        echo.into_body().collect().await.unwrap().to_bytes(),
        "bytes"
    );
    let wrong = client
        .send(http::Request::delete("/echo").body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(wrong.status(), 405);
    assert_eq!(wrong.headers()["allow"], "POST");
    shutdown.cancel();
    server.await.unwrap().unwrap();
}

#[tokio::test]
async fn shutdown_finishes_the_exchange_in_flight() {
    let mut server = start(ServerConfig::default()).await;
    let client = Client::new(server.addr.as_str());
    let answer = client.send(get("/stream")).await.unwrap();
    let feed = server.feeds.recv().await.unwrap();
    server.shutdown.cancel();
    // The stream in flight goes on to its end after shutdown began.
    feed.send(Ok(http_body::Frame::data(Bytes::from_static(b"late"))))
        .await
        .unwrap();
    drop(feed);
    let body = answer.into_body().collect().await.unwrap().to_bytes();
    assert_eq!(body, "late");
    server.task.await.unwrap().unwrap();
    // And the listener is closed.
    assert!(TcpStream::connect(&server.addr).await.is_err());
}

#[tokio::test]
async fn a_pooled_connection_the_server_closed_is_replaced() {
    let server = start(ServerConfig {
        idle_timeout: Duration::from_millis(100),
        ..ServerConfig::default()
    })
    .await;
    let client = Client::new(server.addr.as_str());
    assert_eq!(client.send(get("/nope")).await.unwrap().status(), 404);
    // The server closes the idle connection; the client's next call finds it closed.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while server.stats.active_connections() > 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the idle connection stays open"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // A GET is safe to send again: it is, on a new connection.
    assert_eq!(client.send(get("/nope")).await.unwrap().status(), 404);
    assert_eq!(server.stats.accepted(), 2);
}

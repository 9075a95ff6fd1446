//! zaphttp against the canonical Go implementation (`zaphttp-peer`, built by
//! `../shared/peers/zap-http/build.sh target/zaphttp`): the frames its client and server
//! write, captured on the wire into the goldens `src/zaphttp/goldens.rs` checks; our
//! client against its server; its client against our server.

use std::path::PathBuf;

use http_body_util::BodyExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::process::Command;
use zap_runtime::zaphttp::{self, Body, Client};

use crate::zaphttp_peer::{self, GoServer};

/// `zaphttp-peer call` with `args`; its output (it must succeed).
async fn go_call(args: &[&str]) -> String {
    let out = Command::new(zaphttp_peer::path())
        .arg("call")
        .args(args)
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "zaphttp-peer call {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// One length-prefixed frame from `from`, or `None` at its end.
async fn frame(from: &mut TcpStream) -> Option<Vec<u8>> {
    let mut len = [0u8; 4];
    from.read_exact(&mut len).await.ok()?;
    let mut frame = vec![0u8; u32::from_be_bytes(len) as usize];
    from.read_exact(&mut frame).await.ok()?;
    Some(frame)
}

/// The exchanges the goldens hold: a name and the arguments of `zaphttp-peer call`.
const EXCHANGES: &[(&str, &[&str])] = &[
    (
        "echo",
        &[
            "--method",
            "POST",
            "--path",
            "/echo",
            "--header",
            "Content-Type: text/plain",
            "--body",
            "hello",
        ],
    ),
    ("query", &["--path", "/echo?a=1&b=2"]),
    (
        "headers",
        &[
            "--path",
            "/headers",
            "--header",
            "X-A: 1",
            "--header",
            "X-A: 2",
            "--header",
            "Host: example.com",
        ],
    ),
    (
        "request-trailer",
        &[
            "--method",
            "PUT",
            "--path",
            "/headers",
            "--trailer",
            "X-T: v",
            "--body",
            "abc",
        ],
    ),
    ("status-418", &["--path", "/status/418"]),
    ("status-204", &["--path", "/status/204"]),
    ("not-found", &["--path", "/nope"]),
    ("multi", &["--path", "/multi"]),
    ("trailer", &["--path", "/trailer"]),
    ("stream", &["--path", "/stream?n=3&size=12"]),
    ("panic", &["--path", "/panic"]),
    ("big", &["--path", "/big?n=300"]),
];

/// Run each exchange through a proxy that records every frame, both ways.
async fn capture(server: &str) -> String {
    let proxy = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let proxy_addr = proxy.local_addr().unwrap().to_string();
    let mut out = String::from(
        "# zaphttp frames as the Go implementation (zap-proto/http a7896ad) writes them, captured\n\
         # on the wire between `zaphttp-peer call` and `zaphttp-peer serve`: one exchange per\n\
         # section, one frame per line (its type, then the message in hex, without the length\n\
         # prefix). Regenerate: ZAPHTTP_WRITE_GOLDENS=1 cargo test -p zap-runtime --test\n\
         # integration zaphttp_go::goldens -- --ignored\n",
    );
    for (name, args) in EXCHANGES {
        let relay = async {
            let mut frames = Vec::new();
            let (mut client, _) = proxy.accept().await.unwrap();
            let mut upstream = TcpStream::connect(server).await.unwrap();
            let request = frame(&mut client).await.unwrap();
            write_frame(&mut upstream, &request).await;
            frames.push(request);
            loop {
                let answer = frame(&mut upstream).await.unwrap();
                write_frame(&mut client, &answer).await;
                let kind = answer[7];
                frames.push(answer);
                if kind == 2 || kind == 5 {
                    break frames;
                }
            }
        };
        let mut call = vec!["--addr", proxy_addr.as_str()];
        call.extend_from_slice(args);
        let (_, frames) = tokio::join!(go_call(&call), relay);
        out.push_str(&format!(
            "\n[{name}] zaphttp-peer call {}\n",
            args.join(" ")
        ));
        for f in &frames {
            let kind =
                ["?", "request", "response", "head", "data", "end"][usize::from(f[7]).min(5)];
            out.push_str(&format!("{kind} {}\n", hex::encode(f)));
        }
    }
    out
}

async fn write_frame(to: &mut TcpStream, frame: &[u8]) {
    to.write_all(&(frame.len() as u32).to_be_bytes())
        .await
        .unwrap();
    to.write_all(frame).await.unwrap();
}

fn goldens_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/zaphttp/go-frames.txt")
}

#[tokio::test]
#[ignore = "needs zaphttp-peer: ../shared/peers/zap-http/build.sh target/zaphttp, then cargo test -p zap-runtime --test integration zaphttp_go:: -- --ignored"]
async fn goldens() {
    let server = GoServer::start("tcp");
    let captured = capture(&server.addr).await;
    if std::env::var_os("ZAPHTTP_WRITE_GOLDENS").is_some() {
        std::fs::create_dir_all(goldens_path().parent().unwrap()).unwrap();
        std::fs::write(goldens_path(), &captured).unwrap();
    }
    let committed = std::fs::read_to_string(goldens_path()).unwrap();
    assert_eq!(
        committed, captured,
        "the Go peer writes other frames than the committed goldens: regenerate them \
         (ZAPHTTP_WRITE_GOLDENS=1) and see what changed"
    );
}

/// Our client against the Go server, over TCP and a unix socket.
#[tokio::test]
#[ignore = "needs zaphttp-peer: ../shared/peers/zap-http/build.sh target/zaphttp, then cargo test -p zap-runtime --test integration zaphttp_go:: -- --ignored"]
async fn our_client_calls_the_go_server() {
    for network in ["tcp", "unix"] {
        let server = GoServer::start(network);
        let address = server.address();
        let client = Client::new(address.as_str());
        let send = |request: http::Request<Body>| {
            let client = client.clone();
            async move { client.send(request).await.unwrap() }
        };
        let echo = send(
            http::Request::post("/echo?x=1")
                .body(Body::from("hello"))
                .unwrap(),
        )
        .await;
        assert_eq!(echo.status(), 200);
        assert_eq!(echo.headers()["x-method"], "POST");
        assert_eq!(echo.headers()["x-uri"], "/echo?x=1");
        assert_eq!(
            echo.into_body().collect().await.unwrap().to_bytes(),
            "hello"
        );

        let multi = send(http::Request::get("/multi").body(Body::empty()).unwrap()).await;
        let cookies: Vec<_> = multi.headers().get_all("set-cookie").iter().collect();
        assert_eq!(cookies, ["a=1", "b=2"]);

        let trailer = send(http::Request::get("/trailer").body(Body::empty()).unwrap()).await;
        let collected = trailer.into_body().collect().await.unwrap();
        assert_eq!(collected.trailers().unwrap()["x-checksum"], "abc123");
        assert_eq!(collected.to_bytes(), "body with a trailer");

        // A streamed body (head, data frames, end): the Go server coalesces what its
        // handler flushes back to back into fewer frames; the bytes arrive in order.
        let stream = send(
            http::Request::get("/stream?n=4&size=10")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
        assert!(stream.headers().get("content-length").is_none());
        let mut body = stream.into_body();
        let mut chunks = Vec::new();
        while let Some(frame) = body.frame().await {
            chunks.extend_from_slice(&frame.unwrap().into_data().unwrap());
        }
        let want: String = (0..4).map(|i| format!("chunk {i}\nxx")).collect();
        assert_eq!(chunks, want.as_bytes());

        let teapot = send(
            http::Request::get("/status/418")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
        assert_eq!(teapot.status(), 418);
        let panicked = send(http::Request::get("/panic").body(Body::empty()).unwrap()).await;
        assert_eq!(panicked.status(), 500);
        // The Go server keeps the connection after a panic: the next call reuses it.
        let big = send(
            http::Request::get("/big?n=2000000")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
        assert_eq!(
            big.into_body().collect().await.unwrap().to_bytes().len(),
            2_000_000
        );

        // Many calls in flight, each answered with its own body.
        let calls = (0..200).map(|i| {
            let client = client.clone();
            async move {
                let body = format!("call {i}");
                let request = http::Request::post("/echo")
                    .body(Body::from(body.clone()))
                    .unwrap();
                let answer = client.send(request).await.unwrap();
                assert_eq!(answer.into_body().collect().await.unwrap().to_bytes(), body);
            }
        });
        futures_util::future::join_all(calls).await;
    }
}

/// The Go client against our server: an HTTP service written for hyper or axum, served
/// over zaphttp unchanged.
#[tokio::test]
#[ignore = "needs zaphttp-peer: ../shared/peers/zap-http/build.sh target/zaphttp, then cargo test -p zap-runtime --test integration zaphttp_go:: -- --ignored"]
async fn the_go_client_calls_our_server() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let shutdown = tokio_util::sync::CancellationToken::new();
    let service = tower::service_fn(|request: http::Request<Body>| async move {
        let (parts, body) = request.into_parts();
        let collected = body.collect().await?;
        let trailers = collected.trailers().cloned();
        let body = collected.to_bytes();
        let mut response = http::Response::new(Body::from(body.clone()));
        if parts.uri.path() == "/stream" {
            // Three chunks and a trailer: streamed, as its size is not known.
            let (tx, rx) = tokio::sync::mpsc::channel(4);
            tokio::spawn(async move {
                for i in 0..3 {
                    let _ = tx
                        .send(Ok::<_, zaphttp::Error>(http_body::Frame::data(
                            bytes::Bytes::from(format!("part {i}\n")),
                        )))
                        .await;
                }
                let mut t = http::HeaderMap::new();
                t.insert("x-sum", "42".parse().unwrap());
                let _ = tx.send(Ok(http_body::Frame::trailers(t))).await;
            });
            let body = http_body_util::StreamBody::new(tokio_stream_of(rx));
            return Ok::<_, zaphttp::Error>(http::Response::new(http_body_util::Either::Right(
                body,
            )));
        }
        let headers = response.headers_mut();
        headers.insert("x-method", parts.method.as_str().parse().unwrap());
        headers.insert("x-uri", parts.uri.to_string().parse().unwrap());
        if let Some(host) = parts.headers.get("host") {
            headers.insert("x-host", host.clone());
        }
        for value in parts.headers.get_all("x-a") {
            headers.append("x-a-echo", value.clone());
        }
        if let Some(t) = trailers.as_ref().and_then(|t| t.get("x-t")) {
            headers.insert("x-trailer-echo", t.clone());
        }
        Ok(response.map(http_body_util::Either::Left))
    });
    let server = tokio::spawn(zaphttp::serve(
        listener,
        service,
        zaphttp::ServerConfig::default(),
        shutdown.clone(),
    ));

    let out = go_call(&[
        "--addr",
        &addr,
        "--method",
        "POST",
        "--path",
        "/echo?q=1",
        "--body",
        "hi",
        "--header",
        "X-A: 1",
        "--header",
        "X-A: 2",
        "--header",
        "Host: example.com",
        "--trailer",
        "X-T: v",
    ])
    .await;
    assert!(out.contains("status=200\n"), "{out}");
    assert!(out.contains("header=X-Method: POST\n"), "{out}");
    assert!(out.contains("header=X-Uri: /echo?q=1\n"), "{out}");
    assert!(out.contains("header=X-Host: example.com\n"), "{out}");
    assert!(
        out.contains("header=X-A-Echo: 1\nheader=X-A-Echo: 2\n"),
        "{out}"
    );
    assert!(out.contains("header=X-Trailer-Echo: v\n"), "{out}");
    assert!(
        out.contains(&format!("body={}\n", hex::encode("hi"))),
        "{out}"
    );

    let out = go_call(&["--addr", &addr, "--path", "/stream"]).await;
    let chunks: Vec<_> = out.lines().filter(|l| l.starts_with("chunk=")).collect();
    assert!(!chunks.is_empty(), "{out}");
    assert!(
        out.contains(&format!(
            "body={}\n",
            hex::encode("part 0\npart 1\npart 2\n")
        )),
        "{out}"
    );

    let out = go_call(&[
        "--addr",
        &addr,
        "--method",
        "POST",
        "--path",
        "/echo",
        "--body",
        "x",
        "--count",
        "200",
        "--concurrency",
        "8",
    ])
    .await;
    assert_eq!(out.matches("status=200\n").count(), 200, "{out}");

    shutdown.cancel();
    server.await.unwrap().unwrap();
}

/// A stream of the items a channel receives.
fn tokio_stream_of<T: Send + 'static>(
    mut rx: tokio::sync::mpsc::Receiver<T>,
) -> impl futures_util::Stream<Item = T> + Send {
    futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx))
}

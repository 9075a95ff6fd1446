//! `zapc http`, the real binary: against zap-runtime's zaphttp server (a streamed body
//! printed chunk by chunk as it arrives, headers, trailers, exit statuses), and against
//! the Go implementation's server, every route of its README over TCP and a unix socket.

use std::convert::Infallible;
use std::io::Read as _;
use std::process::{Command, Stdio};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use zap_runtime::zaphttp::{self, Body};

#[path = "../../zap-runtime/tests/support/zaphttp_peer.rs"]
mod zaphttp_peer;
use zaphttp_peer::GoServer;

fn zapc(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_zapc"))
        .args(["http"])
        .args(args)
        .output()
        .expect("run zapc")
}

fn stdout(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "zapc http failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

type Feed = mpsc::Sender<Result<http_body::Frame<Bytes>, Infallible>>;

/// `/stream`: a body fed by the test, through the channel handed to `feeds`; anything
/// else: 201 with the method, target, headers and trailers received, as text.
async fn serve(feeds: mpsc::UnboundedSender<Feed>) -> (String, CancellationToken) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let shutdown = CancellationToken::new();
    let service = tower::service_fn(move |request: http::Request<Body>| {
        let feeds = feeds.clone();
        async move {
            let (parts, body) = request.into_parts();
            if parts.uri.path() == "/stream" {
                let (tx, mut rx) = mpsc::channel(1);
                feeds.send(tx).unwrap();
                let stream = futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx));
                let body = http_body_util::StreamBody::new(stream);
                return Ok::<_, Infallible>(http::Response::new(body.boxed()));
            }
            let body = body.collect().await.unwrap();
            let mut text = format!("{} {}\n", parts.method, parts.uri);
            for (name, value) in &parts.headers {
                text.push_str(&format!("{name}: {}\n", value.to_str().unwrap()));
            }
            for (name, value) in body.trailers().into_iter().flatten() {
                text.push_str(&format!("trailer {name}: {}\n", value.to_str().unwrap()));
            }
            text.push_str(&String::from_utf8_lossy(&body.to_bytes()));
            let mut answer =
                http::Response::new(http_body_util::Full::new(Bytes::from(text)).boxed());
            *answer.status_mut() = http::StatusCode::CREATED;
            answer
                .headers_mut()
                .insert("x-answer", "yes".parse().unwrap());
            Ok(answer)
        }
    });
    let config = zaphttp::ServerConfig::default();
    tokio::spawn(zaphttp::serve(listener, service, config, shutdown.clone()));
    (addr, shutdown)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sends_what_it_is_told_and_prints_the_answer() {
    let (feeds, _) = mpsc::unbounded_channel();
    let (addr, _shutdown) = serve(feeds).await;
    let a = addr.clone();
    let out = tokio::task::spawn_blocking(move || {
        zapc(&[
            "-i",
            "-H",
            "X-A: 1",
            "-H",
            "X-A: 2",
            "--trailer",
            "X-T: v",
            "-d",
            "hello",
            &a,
            "/echo?q=1",
        ])
    })
    .await
    .unwrap();
    let out = stdout(&out);
    assert!(out.starts_with("HTTP/1.1 201 Created\n"), "{out}");
    assert!(out.contains("x-answer: yes\n"), "{out}");
    let body = out.split_once("\n\n").unwrap().1;
    assert!(body.starts_with("POST /echo?q=1\n"), "{out}");
    assert!(body.contains("x-a: 1\nx-a: 2\n"), "{out}");
    assert!(body.contains(&format!("host: {addr}\n")), "{out}");
    assert!(body.contains("trailer x-t: v\n"), "{out}");
    assert!(body.ends_with("hello"), "{out}");

    let a = addr.clone();
    let fail = tokio::task::spawn_blocking(move || zapc(&["-f", &a, "/x"]))
        .await
        .unwrap();
    assert_eq!(fail.status.code(), Some(0), "201 is no failure");
    let usage = tokio::task::spawn_blocking(move || zapc(&[&addr, "no-slash"]))
        .await
        .unwrap();
    assert_eq!(usage.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&usage.stderr).contains("starting with `/`"));
    let refused = tokio::task::spawn_blocking(|| zapc(&["127.0.0.1:1", "/"]))
        .await
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prints_a_streamed_body_as_each_chunk_arrives() {
    let (feeds, mut fed) = mpsc::unbounded_channel();
    let (addr, _shutdown) = serve(feeds).await;
    let mut child = Command::new(env!("CARGO_BIN_EXE_zapc"))
        .args(["http", &addr, "/stream"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let feed = fed.recv().await.unwrap();
    // Each chunk is on zapc's stdout before the next one is made.
    for i in 0..3 {
        let chunk = format!("chunk {i}\n");
        feed.send(Ok(http_body::Frame::data(Bytes::from(chunk.clone()))))
            .await
            .unwrap();
        let read = tokio::task::spawn_blocking(move || {
            let mut buf = vec![0u8; chunk.len()];
            out.read_exact(&mut buf).unwrap();
            (out, String::from_utf8(buf).unwrap(), chunk)
        });
        let (back, got, want) = tokio::time::timeout(Duration::from_secs(10), read)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(got, want);
        out = back;
    }
    drop(feed);
    let status = tokio::task::spawn_blocking(move || child.wait().unwrap())
        .await
        .unwrap();
    assert!(status.success());
}

#[test]
#[ignore = "needs zaphttp-peer: ../shared/peers/zap-http/build.sh target/zaphttp, then cargo test -p zapc --test cli_http -- --ignored"]
fn every_route_of_the_go_server() {
    for network in ["tcp", "unix"] {
        let server = GoServer::start(network);
        let address = server.address();
        let addr = address.as_str();
        let run = |args: &[&str]| {
            let mut all = args.to_vec();
            all.insert(all.len() - 1, addr);
            stdout(&zapc(&all))
        };
        let echo = run(&[
            "-i",
            "-X",
            "PUT",
            "-H",
            "Content-Type: text/csv",
            "-d",
            "a,b",
            "/echo?x=1",
        ]);
        assert!(echo.starts_with("HTTP/1.1 200 OK\n"), "{echo}");
        for want in [
            "x-method: PUT\n",
            "x-uri: /echo?x=1\n",
            "content-type: text/csv\n",
        ] {
            assert!(echo.contains(want), "{want} in {echo}");
        }
        assert!(echo.ends_with("\n\na,b"), "{echo}");

        let headers = run(&[
            "-H",
            "X-A: 1",
            "-H",
            "X-A: 2",
            "--trailer",
            "X-T: v",
            "-d",
            "abc",
            "/headers",
        ]);
        let json: serde_json::Value = serde_json::from_str(&headers).unwrap();
        let pairs = json["headers"].as_array().unwrap();
        let xa: Vec<_> = pairs
            .iter()
            .filter(|p| p[0] == "X-A")
            .map(|p| p[1].as_str().unwrap())
            .collect();
        assert_eq!(xa, ["1", "2"], "{headers}");
        assert_eq!(json["trailers"], serde_json::json!([["X-T", "v"]]));
        assert_eq!(json["body_len"], 3);

        let teapot = run(&["-i", "/status/418"]);
        assert!(
            teapot.starts_with("HTTP/1.1 418 I'm a teapot\n") && teapot.ends_with("status 418"),
            "{teapot}"
        );
        let empty = run(&["-i", "/status/204"]);
        assert!(
            empty.starts_with("HTTP/1.1 204 No Content\n") && empty.ends_with("\n\n"),
            "{empty}"
        );

        let multi = run(&["-i", "/multi"]);
        assert!(
            multi.contains("set-cookie: a=1\nset-cookie: b=2\n"),
            "{multi}"
        );
        assert!(multi.contains("x-multi: one\nx-multi: two\n"), "{multi}");

        let trailer = run(&["-i", "/trailer"]);
        assert!(
            trailer.ends_with("body with a trailer\nx-checksum: abc123\n"),
            "{trailer}"
        );

        let stream = run(&["/stream?n=5&size=10"]);
        let want: String = (0..5).map(|i| format!("chunk {i}\nxx")).collect();
        assert_eq!(stream, want);

        let big = run(&["/big?n=3000000"]);
        assert_eq!(big.len(), 3_000_000);
        assert!(big.starts_with("abcdefghijklmnopqrstuvwxyzabc"));

        let panic = run(&["-i", "/panic"]);
        assert!(
            panic.starts_with("HTTP/1.1 500 Internal Server Error\n"),
            "{panic}"
        );
        let missing = zapc(&["-f", addr, "/nope"]);
        assert_eq!(missing.status.code(), Some(22));
        assert_eq!(String::from_utf8_lossy(&missing.stdout), "no route /nope");
    }
}

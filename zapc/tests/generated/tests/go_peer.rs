//! Streams and calls against the canonical Go runtime (`zap-proto/go`), through its test
//! peer `zapgo-peer`: its `stream` and `call` clients against our server, and our
//! generated and raw clients against its server. Built by
//! `../shared/peers/zap-go/build.sh target/zapgo` (a Go toolchain from PyPI); the tests
//! find it at `target/zapgo/zapgo-peer` or at `$ZAPGO_PEER`.

use crate::notes;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use notes::{note, Impl};
use zap_runtime::client::Client;
use zap_runtime::rpc::Status;
use zap_runtime::server::{CancellationToken, Server, ServerConfig};
use zap_runtime::ZapStruct;
use zapc_generated_tests::streams::{CountRequest, NotesClient, NotesService, Total};

const NEEDS: &str = "needs the Go peer: ../shared/peers/zap-go/build.sh target/zapgo";

fn peer() -> PathBuf {
    let path = std::env::var_os("ZAPGO_PEER").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../target/zapgo/zapgo-peer"),
        PathBuf::from,
    );
    assert!(path.exists(), "{} not found; {NEEDS}", path.display());
    path
}

/// `zapgo-peer serve --tcp`, killed when dropped.
struct GoServer {
    child: Child,
    addr: SocketAddr,
}

impl GoServer {
    fn start() -> GoServer {
        let mut child = Command::new(peer())
            .args(["serve", "--tcp", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .spawn()
            .expect("start zapgo-peer");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        // `ready tcp=IP:PORT`
        let addr = line
            .trim()
            .strip_prefix("ready tcp=")
            .unwrap_or_else(|| panic!("unexpected first line from zapgo-peer: {line:?}"))
            .parse()
            .unwrap();
        GoServer { child, addr }
    }
}

impl Drop for GoServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Run a `zapgo-peer` client command; its stdout lines (it must succeed).
async fn go_client(args: Vec<String>) -> Vec<String> {
    let out = tokio::task::spawn_blocking(move || {
        Command::new(peer())
            .args(&args)
            .output()
            .expect("run zapgo-peer")
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "zapgo-peer failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

async fn our_server() -> (SocketAddr, CancellationToken) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let server = Server::new(
        listener,
        Arc::new(NotesService::new(Impl {
            ended: Arc::default(),
        })),
        ServerConfig::default(),
    );
    tokio::spawn(server.run(stop.clone()));
    (addr, stop)
}

fn hex_of(value: &impl ZapStruct) -> String {
    hex::encode(value.to_bytes().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the Go peer: ../shared/peers/zap-go/build.sh target/zapgo, then cargo test -p zapc-generated-tests --test integration go_peer:: -- --ignored"]
async fn the_go_stream_client_receives_our_server_stream() {
    let (addr, _stop) = our_server().await;
    let lines = go_client(vec![
        "stream".into(),
        "--addr".into(),
        addr.to_string(),
        "--transport".into(),
        "tcp".into(),
        "--method".into(),
        "11".into(),
        "--init-hex".into(),
        hex_of(&CountRequest { n: 3 }),
    ])
    .await;
    let mut expected: Vec<String> = (0..3)
        .map(|i| format!("msg={}", hex_of(&note(i))))
        .collect();
    expected.push("end".into());
    assert_eq!(lines, expected);
    // Streams that end with an outcome after the stream id (an application error after
    // two notes, an unknown method refused with 404): the Go runtime reads the id, ignores
    // the rest, and sees the stream end.
    let stream = |method: &str, init: String| {
        vec![
            "stream".into(),
            "--addr".into(),
            addr.to_string(),
            "--transport".into(),
            "tcp".into(),
            "--method".into(),
            method.to_owned(),
            "--init-hex".into(),
            init,
        ]
    };
    let unlucky = go_client(stream("11", hex_of(&CountRequest { n: notes::UNLUCKY }))).await;
    let expected: Vec<String> = vec![
        format!("msg={}", hex_of(&note(0))),
        format!("msg={}", hex_of(&note(1))),
        "end".into(),
    ];
    assert_eq!(unlucky, expected);
    assert_eq!(
        go_client(stream("99", String::new())).await,
        vec!["end".to_owned()]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the Go peer: ../shared/peers/zap-go/build.sh target/zapgo, then cargo test -p zapc-generated-tests --test integration go_peer:: -- --ignored"]
async fn the_go_stream_client_drives_our_bidirectional_and_client_streams() {
    let (addr, _stop) = our_server().await;
    let sends: Vec<String> = (0..4).map(|i| hex_of(&note(i))).collect();
    let args = |method: &str| {
        vec![
            "stream".into(),
            "--addr".into(),
            addr.to_string(),
            "--method".into(),
            method.into(),
            "--init-hex".into(),
            String::new(),
            "--send-hex".into(),
            sends.join(","),
        ]
    };
    let echoed = go_client(args("10")).await;
    let mut expected: Vec<String> = sends.iter().map(|h| format!("msg={h}")).collect();
    expected.push("end".into());
    assert_eq!(echoed, expected);
    let tallied = go_client(args("12")).await;
    assert_eq!(
        tallied,
        vec![
            format!(
                "msg={}",
                hex_of(&Total {
                    notes: 4,
                    chars: 24
                })
            ),
            "end".into()
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the Go peer: ../shared/peers/zap-go/build.sh target/zapgo, then cargo test -p zapc-generated-tests --test integration go_peer:: -- --ignored"]
async fn the_go_call_client_calls_our_server_beside_streams() {
    let (addr, _stop) = our_server().await;
    let lines = go_client(vec![
        "call".into(),
        "--addr".into(),
        addr.to_string(),
        "--method".into(),
        "1".into(),
        "--payload-hex".into(),
        String::new(),
        "--count".into(),
        "20".into(),
        "--concurrency".into(),
        "8".into(),
    ])
    .await;
    assert_eq!(lines, vec!["status=200 payload=".to_owned(); 20]);
    // A stream method called as a call is refused with 400, as a call.
    let lines = go_client(vec![
        "call".into(),
        "--addr".into(),
        addr.to_string(),
        "--method".into(),
        "11".into(),
        "--payload-hex".into(),
        String::new(),
    ])
    .await;
    assert_eq!(lines.len(), 1);
    assert!(lines[0].starts_with("status=400 payload="), "{lines:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the Go peer: ../shared/peers/zap-go/build.sh target/zapgo, then cargo test -p zapc-generated-tests --test integration go_peer:: -- --ignored"]
async fn our_generated_client_drives_the_go_echo_stream() {
    let go = GoServer::start();
    let notes = NotesClient::new(Client::connect(go.addr).await.unwrap());
    let (mut tx, mut rx) = notes.echo().await.unwrap();
    for i in 0..50 {
        tx.send(&note(i)).await.unwrap();
        let back = rx.next().await.unwrap().expect("an echo");
        assert_eq!(
            (back.get().seq(), back.get().text()),
            (i, format!("note {i}").as_str())
        );
    }
    tx.end();
    assert!(
        rx.next().await.unwrap().is_none(),
        "the Go side ends after ours"
    );
    // A unary call on the same connection: the Go peer's method 1 echoes.
    let (status, body) = notes.transport().call_raw(1, 0, b"hi").await.unwrap();
    assert_eq!((status, &body[..]), (Status::OK, &b"hi"[..]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the Go peer: ../shared/peers/zap-go/build.sh target/zapgo, then cargo test -p zapc-generated-tests --test integration go_peer:: -- --ignored"]
async fn our_client_drives_the_go_count_stream_and_many_at_once() {
    let go = GoServer::start();
    let client = Client::connect(go.addr).await.unwrap();
    // Go's count stream speaks raw u32s, not ZAP messages: the raw halves.
    let streams: Vec<_> = (0..10u32)
        .map(|k| {
            let client = client.clone();
            tokio::spawn(async move {
                let n = 100 + k;
                let mut io = client.open_stream(11, &n.to_le_bytes()).await.unwrap();
                io.outbound.end();
                let mut got = Vec::new();
                while let Some(msg) = io.inbound.next().await.unwrap() {
                    got.push(u32::from_le_bytes(msg[..].try_into().unwrap()));
                }
                assert_eq!(got, (0..n).collect::<Vec<_>>());
            })
        })
        .collect();
    for s in streams {
        s.await.unwrap();
    }
    // An unknown stream method: the Go side ends it at once.
    let mut io = client.open_stream(99, &[]).await.unwrap();
    assert_eq!(io.inbound.next().await.unwrap(), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the Go peer: ../shared/peers/zap-go/build.sh target/zapgo, then cargo test -p zapc-generated-tests --test integration go_peer:: -- --ignored"]
async fn the_go_server_answers_calls_that_carry_a_context() {
    use std::time::Duration;
    use zap_runtime::context::CallOptions;
    let go = GoServer::start();
    // A deadline on every call, from the client's settings.
    let config = zap_runtime::client::ClientConfig {
        deadline: Some(Duration::from_secs(5)),
        ..Default::default()
    };
    let client = Client::connect_with(go.addr, config).await.unwrap();
    for k in 0..20u8 {
        // Metadata at the limits on some, none on others: the Go runtime reads the
        // envelope up to its size and ignores the extension after it.
        let options = if k % 2 == 0 {
            let mut options = CallOptions::new().deadline_in(Duration::from_millis(2500));
            for i in 0..zap_runtime::context::MAX_PAIRS {
                options = options.header(format!("k{i}"), vec![k; 100]).unwrap();
            }
            options
        } else {
            CallOptions::new()
        };
        let payload = vec![k; 3 + usize::from(k)];
        let (status, body) = options
            .scope(client.call_raw(1, 0, &payload))
            .await
            .unwrap();
        assert_eq!((status, &body[..]), (Status::OK, &payload[..]), "call {k}");
    }
    // Calls given up at once: the client sends a cancel frame (dir 6) for each, which
    // the Go runtime ignores, and the connection goes on.
    for k in 0..5u8 {
        let _ = tokio::time::timeout(Duration::ZERO, client.call_raw(1, 0, &[k])).await;
    }
    let (status, body) = client.call_raw(1, 0, b"after").await.unwrap();
    assert_eq!((status, &body[..]), (Status::OK, &b"after"[..]));
    // And a client without any context, on the same server.
    let plain = Client::connect(go.addr).await.unwrap();
    let (status, body) = plain.call_raw(1, 0, b"plain").await.unwrap();
    assert_eq!((status, &body[..]), (Status::OK, &b"plain"[..]));
}

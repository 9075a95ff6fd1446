//! `zapc call` against a real ZAP/TCP server (zap-runtime's, serving `tests/call/notes.zap`
//! by hand): the real binary, JSON in, JSON out, errors and exit statuses.

#[path = "../../zap-runtime/tests/tls_support/pki.rs"]
mod pki;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

use tokio::net::TcpListener;
use zap_runtime::server::{CancellationToken, Server, ServerConfig};
use zap_runtime::stream::{StreamIo, Streaming};
use zap_runtime::{
    AppCode, AppError, Builder, Bytes, CallError, Message, MethodInfo, Reply, Service,
};

/// `Notes` of `tests/call/notes.zap`, written by hand.
struct Notes;

fn answer(out: &mut Builder, id: u64, text: &str) -> Result<Reply, CallError> {
    let mut note = out.start_object(16);
    note.set_u64(0, id);
    note.set_text(8, text);
    note.finish_message()
        .map_err(|e| CallError::internal(e.to_string()))?;
    Ok(Reply::Message)
}

/// The schema as a generated service embeds it, for reflection (its hash is checked
/// against `zapc::schema_hash` by `describes_itself_and_is_called_without_a_schema`).
const NOTES_SCHEMA: zap_runtime::EmbeddedSchema = zap_runtime::EmbeddedSchema {
    files: &[("notes.zap", include_str!("call/notes.zap"))],
    sha256: [
        0x67, 0x03, 0xc3, 0x52, 0x68, 0x22, 0x0a, 0x64, 0xbd, 0xc5, 0x3a, 0x71, 0x85, 0x88, 0x17,
        0xb2, 0x6b, 0xec, 0x4c, 0x36, 0x30, 0xd1, 0xf8, 0x70, 0xa8, 0xb9, 0xc9, 0x6c, 0x90, 0xb1,
        0x73, 0x25,
    ],
};

impl Service for Notes {
    const NAME: &'static str = "Notes";
    const PACKAGE: &'static str = "notes";
    const SCHEMA: Option<zap_runtime::EmbeddedSchema> = Some(NOTES_SCHEMA);
    const METHODS: &'static [MethodInfo] = &[
        MethodInfo::new(4, "list", Streaming::Server),
        MethodInfo::new(5, "shout", Streaming::Bidi),
        MethodInfo::new(6, "join", Streaming::Client),
    ];

    async fn stream(
        self: Arc<Self>,
        ordinal: u32,
        open: Bytes,
        mut io: StreamIo,
    ) -> Result<(), CallError> {
        let mut out = Builder::new();
        let mut send = async |out: &mut Builder, id: u64, text: &str| {
            out.clear();
            answer(out, id, text)?;
            io.outbound
                .send(out.as_bytes())
                .await
                .map_err(CallError::from)
        };
        match ordinal {
            4 => {
                let n = Message::parse(&open)
                    .map_err(|e| CallError::bad_request(e.to_string()))?
                    .root()
                    .u64(0);
                for i in 0..n {
                    send(&mut out, i, &format!("note {i}")).await?;
                }
                Ok(())
            }
            5 => {
                while let Some(msg) = io.inbound.next().await? {
                    let note = Message::parse(&msg)
                        .map_err(|e| CallError::bad_request(e.to_string()))?
                        .root();
                    send(&mut out, note.u64(0), &note.text(8).to_uppercase()).await?;
                }
                Ok(())
            }
            6 => {
                let mut texts = Vec::new();
                while let Some(msg) = io.inbound.next().await? {
                    let note = Message::parse(&msg)
                        .map_err(|e| CallError::bad_request(e.to_string()))?
                        .root();
                    texts.push(note.text(8).to_owned());
                }
                send(&mut out, texts.len() as u64, &texts.join(" ")).await
            }
            n => Err(CallError::unknown_method(Self::NAME, n)),
        }
    }

    async fn call<'a>(
        &'a self,
        ordinal: u32,
        payload: &'a [u8],
        out: &'a mut Builder,
    ) -> Result<Reply, CallError> {
        let note = || {
            Message::parse(payload)
                .map(|m| m.root())
                .map_err(|e| CallError::bad_request(e.to_string()))
        };
        match ordinal {
            1 => {
                let n = note()?;
                answer(out, n.u64(0), n.text(8))
            }
            2 => Err(AppError::new(AppCode::new(42), format!("no note {}", note()?.u64(0))).into()),
            // The trace the call came in, when it names one (`--traceparent`).
            3 => match zap_runtime::trace::TraceParent::current() {
                Some(parent) => answer(out, 3, &format!("trace {}", parent.trace_id_hex())),
                None => answer(out, 3, "three notes"),
            },
            n => Err(CallError::unknown_method(Self::NAME, n)),
        }
    }
}

fn schema() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/call/notes.zap")
}

/// Run `zapc call --schema notes.zap ADDR args…`: (status, stdout, stderr).
fn call(addr: &str, args: &[&str]) -> (i32, String, String) {
    call_with_stdin(addr, args, "")
}

/// As [`call`], with `stdin` as its standard input.
fn call_with_stdin(addr: &str, args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_zapc"))
        .arg("call")
        .arg("--schema")
        .arg(schema())
        .arg(addr)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_a_real_server_with_json_in_and_out() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let stop = CancellationToken::new();
    let server = Server::new(listener, Arc::new(Notes), ServerConfig::default());
    let task = tokio::spawn(server.run(stop.clone()));
    // `zapc call … ARGS` with `stdin` as its standard input.
    let run_with = |args: Vec<String>, stdin: &'static str| {
        let addr = addr.clone();
        tokio::task::spawn_blocking(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            call_with_stdin(&addr, &args, stdin)
        })
    };
    let run = |args: Vec<String>| run_with(args, "");
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();

    // An answer, printed as one line of JSON (64-bit integers as strings or numbers in).
    let (status, out, err) = run(args(&["Notes.echo", r#"{"id":"7","text":"hello"}"#]))
        .await
        .unwrap();
    assert_eq!(
        (status, out.as_str()),
        (0, "{\"id\":7,\"text\":\"hello\"}\n"),
        "{err}"
    );
    // No request.
    let (status, out, err) = run(args(&["Notes.count"])).await.unwrap();
    assert_eq!(
        (status, out.as_str()),
        (0, "{\"id\":3,\"text\":\"three notes\"}\n"),
        "{err}"
    );
    // A W3C trace context, sent as the call's `traceparent` metadata.
    let traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    let (status, out, err) = run(args(&["--traceparent", traceparent, "Notes.count"]))
        .await
        .unwrap();
    assert_eq!(
        (status, out.as_str()),
        (
            0,
            "{\"id\":3,\"text\":\"trace 0af7651916cd43dd8448eb211c80319c\"}\n"
        ),
        "{err}"
    );
    // A new trace: its id on stderr, and the same id reaches the handler.
    let (status, out, err) = run(args(&["--traceparent", "new", "Notes.count"]))
        .await
        .unwrap();
    assert_eq!(status, 0, "{err}");
    let id = err
        .lines()
        .find_map(|l| l.strip_prefix("trace "))
        .unwrap_or_else(|| panic!("the trace id on stderr: {err}"));
    assert_eq!(id.len(), 32, "{id}");
    assert_eq!(out, format!("{{\"id\":3,\"text\":\"trace {id}\"}}\n"));
    let (status, _, err) = run(args(&["--traceparent", "00-abc-01", "Notes.count"]))
        .await
        .unwrap();
    assert_eq!(status, 2);
    assert!(err.contains("is not a W3C traceparent"), "{err}");
    // An application error: exit 1, the code and message on stderr.
    let (status, out, err) = run(args(&["Notes.missing", r#"{"id":9}"#])).await.unwrap();
    assert_eq!((status, out.as_str()), (1, ""));
    assert!(err.contains("application error 42: no note 9"), "{err}");
    // Usage errors: exit 2, saying what there is.
    let (status, _, err) = run(args(&["Notes.nope"])).await.unwrap();
    assert_eq!(status, 2);
    assert!(
        err.contains("Notes.echo, Notes.missing, Notes.count"),
        "{err}"
    );
    let (status, _, err) = run(args(&["Notes.echo", r#"{"id":-1}"#])).await.unwrap();
    assert_eq!(status, 2);
    assert!(err.contains("$.id"), "{err}");
    let (status, _, err) = run(args(&["Notes.count", "{}"])).await.unwrap();
    assert_eq!(status, 2);
    assert!(err.contains("takes no request"), "{err}");

    // A server stream: one line per message, then exit 0 when the server ends it.
    let (status, out, err) = run(args(&["Notes.list", r#"{"id":3}"#])).await.unwrap();
    assert_eq!(
        (status, out.as_str()),
        (
            0,
            "{\"id\":0,\"text\":\"note 0\"}\n{\"id\":1,\"text\":\"note 1\"}\n{\"id\":2,\"text\":\"note 2\"}\n"
        ),
        "{err}"
    );
    // A bidirectional stream fed from stdin with --send.
    let (status, out, err) = run_with(
        args(&["Notes.shout", "--send"]),
        "{\"id\":1,\"text\":\"hi\"}\n\n{\"id\":2,\"text\":\"there\"}\n",
    )
    .await
    .unwrap();
    assert_eq!(
        (status, out.as_str()),
        (
            0,
            "{\"id\":1,\"text\":\"HI\"}\n{\"id\":2,\"text\":\"THERE\"}\n"
        ),
        "{err}"
    );
    // A client stream fed from stdin: one answer once stdin ends.
    let (status, out, err) = run_with(
        args(&["Notes.join", "--send"]),
        "{\"id\":1,\"text\":\"a\"}\n{\"id\":2,\"text\":\"b\"}\n",
    )
    .await
    .unwrap();
    assert_eq!(
        (status, out.as_str()),
        (0, "{\"id\":2,\"text\":\"a b\"}\n"),
        "{err}"
    );
    // --send where nothing can be sent, and a bad line: usage errors.
    let (status, _, err) = run(args(&["Notes.list", "{}", "--send"])).await.unwrap();
    assert_eq!(status, 2);
    assert!(err.contains("takes no stream of messages"), "{err}");
    let (status, _, err) = run_with(args(&["Notes.shout", "--send"]), "{\"id\":-1}\n")
        .await
        .unwrap();
    assert_eq!(status, 2, "{err}");
    assert!(err.contains("stdin line 1"), "{err}");

    stop.cancel();
    task.await.unwrap().unwrap();
    // Nobody listening: exit 1.
    let (status, _, err) = run(args(&["Notes.count"])).await.unwrap();
    assert_eq!(status, 1);
    assert!(err.contains("cannot connect"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_and_streams_over_pq_tls() {
    let pki = pki::Pki::new();
    let tls =
        zap_runtime::tls::ServerTls::from_pem_files(pki.path("server.pem"), pki.path("server.key"))
            .build()
            .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let stop = CancellationToken::new();
    let config = ServerConfig {
        tls: Some(tls),
        ..ServerConfig::default()
    };
    let task = tokio::spawn(Server::new(listener, Arc::new(Notes), config).run(stop.clone()));
    let ca = pki.path("ca.pem").to_str().unwrap().to_owned();
    let run = |args: Vec<String>| {
        let addr = addr.clone();
        tokio::task::spawn_blocking(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            call(&addr, &args)
        })
    };
    let with_ca = |method: &str, json: &str| {
        vec![
            "--ca".to_owned(),
            ca.clone(),
            "--server-name".into(),
            "localhost".into(),
            method.into(),
            json.into(),
        ]
    };
    let (status, out, err) = run(with_ca("Notes.echo", r#"{"id":1,"text":"sealed"}"#))
        .await
        .unwrap();
    assert_eq!(
        (status, out.as_str()),
        (0, "{\"id\":1,\"text\":\"sealed\"}\n"),
        "{err}"
    );
    let (status, out, err) = run(with_ca("Notes.list", r#"{"id":2}"#)).await.unwrap();
    assert_eq!(
        (status, out.as_str()),
        (
            0,
            "{\"id\":0,\"text\":\"note 0\"}\n{\"id\":1,\"text\":\"note 1\"}\n"
        ),
        "{err}"
    );
    // Plain TCP to a TLS port, or TLS without trusting its CA: refused, exit 1.
    let (status, _, err) = run(vec!["Notes.count".into()]).await.unwrap();
    assert_eq!(status, 1, "{err}");
    let (status, _, err) = run(vec!["--tls".into(), "Notes.count".into()])
        .await
        .unwrap();
    assert_eq!(status, 1, "{err}");
    assert!(err.contains("cannot connect"), "{err}");
    stop.cancel();
    task.await.unwrap().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_and_streams_over_quic() {
    let pki = pki::Pki::new();
    let tls =
        zap_runtime::tls::ServerTls::from_pem_files(pki.path("server.pem"), pki.path("server.key"))
            .build()
            .unwrap();
    let server = zap_runtime::quic::QuicServer::bind(
        "127.0.0.1:0".parse().unwrap(),
        Arc::new(Notes),
        &tls,
        zap_runtime::quic::QuicConfig::default(),
    )
    .unwrap();
    let addr = server.local_addr().unwrap().to_string();
    let stop = CancellationToken::new();
    let task = tokio::spawn(server.run(stop.clone()));
    let ca = pki.path("ca.pem").to_str().unwrap().to_owned();
    // `zapc call --quic … ARGS` with `stdin` as its standard input.
    let run_with = |args: Vec<&'static str>, stdin: &'static str| {
        let (addr, ca) = (addr.clone(), ca.clone());
        tokio::task::spawn_blocking(move || {
            let mut all = vec!["--quic", "--ca", &ca, "--server-name", "localhost"];
            all.extend(args);
            call_with_stdin(&addr, &all, stdin)
        })
    };
    let run = |method: &'static str, json: &'static str| run_with(vec![method, json], "");
    let (status, out, err) = run("Notes.echo", r#"{"id":1,"text":"over quic"}"#)
        .await
        .unwrap();
    assert_eq!(
        (status, out.as_str()),
        (0, "{\"id\":1,\"text\":\"over quic\"}\n"),
        "{err}"
    );
    let (status, out, err) = run("Notes.list", r#"{"id":2}"#).await.unwrap();
    assert_eq!(
        (status, out.as_str()),
        (
            0,
            "{\"id\":0,\"text\":\"note 0\"}\n{\"id\":1,\"text\":\"note 1\"}\n"
        ),
        "{err}"
    );
    // A bidirectional stream over its own QUIC stream, fed from stdin.
    let shout = run_with(
        vec!["Notes.shout", "--send"],
        "{\"id\":1,\"text\":\"over\"}\n{\"id\":2,\"text\":\"quic\"}\n",
    );
    let (status, out, err) = shout.await.unwrap();
    assert_eq!(
        (status, out.as_str()),
        (
            0,
            "{\"id\":1,\"text\":\"OVER\"}\n{\"id\":2,\"text\":\"QUIC\"}\n"
        ),
        "{err}"
    );
    // A client stream: the notes sent, one answer once our side ends.
    let join = run_with(vec!["Notes.join", "--send"], "{\"id\":1,\"text\":\"one\"}\n{\"id\":2,\"text\":\"stream\"}\n{\"id\":3,\"text\":\"each\"}\n");
    let (status, out, err) = join.await.unwrap();
    assert_eq!(
        (status, out.as_str()),
        (0, "{\"id\":3,\"text\":\"one stream each\"}\n"),
        "{err}"
    );
    // An application error comes back as it does over TCP: exit 1 with its message.
    let (status, _, err) = run("Notes.missing", r#"{"id":5}"#).await.unwrap();
    assert_eq!(status, 1, "{err}");
    assert!(err.contains("no note 5"), "{err}");
    stop.cancel();
    task.await.unwrap().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_and_streams_on_a_unix_socket() {
    let dir = tempfile::Builder::new()
        .prefix("zapc-unix")
        .tempdir()
        .unwrap();
    let path = dir.path().join("notes.sock");
    let server =
        zap_runtime::server::UnixServer::bind(&path, Arc::new(Notes), ServerConfig::default())
            .unwrap();
    let stop = CancellationToken::new();
    let task = tokio::spawn(server.run(stop.clone()));
    let addr = format!("unix:{}", path.display());
    let unary = {
        let addr = addr.clone();
        tokio::task::spawn_blocking(move || {
            call(&addr, &["Notes.echo", r#"{"id":"7","text":"hello"}"#])
        })
    };
    let (status, out, err) = unary.await.unwrap();
    assert_eq!(
        (status, out.as_str()),
        (0, "{\"id\":7,\"text\":\"hello\"}\n"),
        "{err}"
    );
    let stream = tokio::task::spawn_blocking(move || call(&addr, &["Notes.list", r#"{"id":2}"#]));
    let (status, out, err) = stream.await.unwrap();
    assert_eq!(status, 0, "{err}");
    assert_eq!(out.lines().count(), 2, "{out}");
    // Nobody there: the path is named.
    let missing = format!("unix:{}", dir.path().join("nobody.sock").display());
    let (status, _, err) = tokio::task::spawn_blocking(move || call(&missing, &["Notes.count"]))
        .await
        .unwrap();
    assert_ne!(status, 0);
    assert!(err.contains("nobody.sock"), "{err}");
    stop.cancel();
    task.await.unwrap().unwrap();
}

/// `zapc ARGS…`: (status, stdout, stderr).
fn zapc(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_zapc"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Run `zapc ARGS…` off the runtime's threads.
async fn zapc_async(args: &[&str]) -> (i32, String, String) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        zapc(&args)
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn describes_itself_and_is_called_without_a_schema() {
    let files = [zapc::SourceFile {
        path: NOTES_SCHEMA.files[0].0.into(),
        text: NOTES_SCHEMA.files[0].1.into(),
    }];
    assert_eq!(
        zapc::schema_hash(&files),
        NOTES_SCHEMA.sha256,
        "tests/call/notes.zap changed: put its new hash in NOTES_SCHEMA"
    );
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let stop = CancellationToken::new();
    tokio::spawn(Server::new(listener, Arc::new(Notes), ServerConfig::default()).run(stop.clone()));

    let (status, out, err) = zapc_async(&["describe", &addr]).await;
    assert_eq!(status, 0, "{err}");
    assert!(out.contains("service Notes (package notes)"), "{out}");
    assert!(out.contains("schema: notes.zap (sha256 6703c352"), "{out}");
    assert!(out.contains("list   () -> ()  [server stream"), "{out}");
    let (status, out, err) = zapc_async(&["describe", "--json", &addr]).await;
    assert_eq!(status, 0, "{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["services"][0]["files"][0]["path"], "notes.zap");

    // The same call, with the schema file and without it: the same answer.
    let request = r#"{"id":"7","text":"hello"}"#;
    let with = call(&addr, &["Notes.echo", request]);
    let without = zapc_async(&["call", &addr, "Notes.echo", request]).await;
    assert_eq!(with.0, 0, "{}", with.2);
    assert_eq!((without.0, &without.1), (0, &with.1), "{}", without.2);
    // Streams too.
    let (status, out, err) = zapc_async(&["call", &addr, "Notes.list", r#"{"id":2}"#]).await;
    assert_eq!((status, out.lines().count()), (0, 2), "{out}{err}");
    // A method the described schema lacks is a usage error naming what there is.
    let (status, _, err) = zapc_async(&["call", &addr, "Notes.nope"]).await;
    assert_eq!(status, 2, "{err}");
    assert!(err.contains("Notes.echo"), "{err}");

    let (status, out, err) = zapc_async(&["health", &addr]).await;
    assert_eq!((status, out.as_str()), (0, "SERVING\n"), "{err}");
    let (status, out, _) = zapc_async(&["health", "--service", "Other", &addr]).await;
    assert_eq!((status, out.as_str()), (1, "SERVICE_UNKNOWN\n"));

    // Compared with itself, the live schema has no change.
    let schema = schema();
    let (status, out, err) = zapc_async(&["compat", &addr, schema.to_str().unwrap()]).await;
    assert_eq!(status, 0, "{out}{err}");
    assert!(
        out.contains("0 wire-breaking, 0 JSON-breaking, 0 safe"),
        "{out}"
    );
    stop.cancel();
}

/// `Notes` claiming a hash its files do not have.
struct Tampered;

impl Service for Tampered {
    const NAME: &'static str = "Notes";
    const METHODS: &'static [MethodInfo] = Notes::METHODS;
    const SCHEMA: Option<zap_runtime::EmbeddedSchema> = Some(zap_runtime::EmbeddedSchema {
        sha256: [0; 32],
        ..NOTES_SCHEMA
    });

    async fn call<'a>(
        &'a self,
        ordinal: u32,
        payload: &'a [u8],
        out: &'a mut Builder,
    ) -> Result<Reply, CallError> {
        Notes.call(ordinal, payload, out).await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refuses_schema_files_that_do_not_match_their_hash() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let stop = CancellationToken::new();
    tokio::spawn(
        Server::new(listener, Arc::new(Tampered), ServerConfig::default()).run(stop.clone()),
    );
    let (status, out, err) = zapc_async(&["call", &addr, "Notes.count"]).await;
    assert_eq!((status, out.as_str()), (1, ""), "{err}");
    assert!(err.contains("do not match the hash"), "{err}");
    let (status, _, err) = zapc_async(&["describe", "--out", "unused-dir", &addr]).await;
    assert_eq!(status, 1, "{err}");
    assert!(!Path::new("unused-dir").exists());
    stop.cancel();
}

/// Against the Go runtime's server, which has no reflection: `zapc call` without a
/// schema says so, names reflection and `--schema`, and exits 1; `zapc health` says the
/// server has no health methods.
#[test]
#[ignore = "needs the Go peer: ../shared/peers/zap-go/build.sh target/zapgo, then cargo test -p zapc --test cli_call go_ -- --ignored"]
fn go_runtime_without_reflection_is_named_as_such() {
    use std::io::BufRead as _;
    let peer = std::env::var_os("ZAPGO_PEER").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/zapgo/zapgo-peer"),
        PathBuf::from,
    );
    assert!(
        peer.exists(),
        "{} not found: build it with ../shared/peers/zap-go/build.sh target/zapgo",
        peer.display()
    );
    let mut child = Command::new(peer)
        .args(["serve", "--tcp", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("ready tcp=")
        .expect("ready line")
        .to_owned();
    let (status, out, err) = zapc(&["call", &addr, "Eth.getBalance", "{}"]);
    let (health, _, health_err) = zapc(&["health", &addr]);
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!((status, out.as_str()), (1, ""), "{err}");
    assert!(
        err.contains("does not answer reflection") && err.contains("--schema"),
        "{err}"
    );
    assert_eq!(health, 1, "{health_err}");
}

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

/// A stream method of `Notes`, for the server's table (JSON-RPC is not involved).
const fn stream_method(ordinal: u32, name: &'static str, streaming: Streaming) -> MethodInfo {
    MethodInfo {
        ordinal,
        permissions: 0,
        name,
        streaming,
        json_name: name,
        request: None,
        response: None,
        positional: &[],
        result_field: None,
        params_to_wire: zap_runtime::json::no_params,
        result_to_json: zap_runtime::json::no_result,
        subscription: None,
    }
}

fn answer(out: &mut Builder, id: u64, text: &str) -> Result<Reply, CallError> {
    let mut note = out.start_object(16);
    note.set_u64(0, id);
    note.set_text(8, text);
    note.finish_message()
        .map_err(|e| CallError::internal(e.to_string()))?;
    Ok(Reply::Message)
}

impl Service for Notes {
    const NAME: &'static str = "Notes";
    const METHODS: &'static [MethodInfo] = &[
        stream_method(4, "list", Streaming::Server),
        stream_method(5, "shout", Streaming::Bidi),
        stream_method(6, "join", Streaming::Client),
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
            3 => answer(out, 3, "three notes"),
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

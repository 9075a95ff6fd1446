//! `zapc call` against a real ZAP/TCP server (zap-runtime's, serving `tests/call/notes.zap`
//! by hand): the real binary, JSON in, JSON out, errors and exit statuses.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use tokio::net::TcpListener;
use zap_runtime::server::{CancellationToken, Server, ServerConfig};
use zap_runtime::{AppCode, AppError, Builder, CallError, Message, MethodInfo, Reply, Service};

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

impl Service for Notes {
    const NAME: &'static str = "Notes";
    const METHODS: &'static [MethodInfo] = &[];

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
    let out = Command::new(env!("CARGO_BIN_EXE_zapc"))
        .arg("call")
        .arg("--schema")
        .arg(schema())
        .arg(addr)
        .args(args)
        .output()
        .unwrap();
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
    let run = |args: Vec<String>| {
        let addr = addr.clone();
        tokio::task::spawn_blocking(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            call(&addr, &args)
        })
    };
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

    stop.cancel();
    task.await.unwrap().unwrap();
    // Nobody listening: exit 1.
    let (status, _, err) = run(args(&["Notes.count"])).await.unwrap();
    assert_eq!(status, 1);
    assert!(err.contains("cannot connect"), "{err}");
}

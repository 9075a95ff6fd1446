//! The `todo` binary as a user runs it: started on free ports, called over ZAP/TCP with
//! the generated client and over JSON-RPC with curl, stopped with SIGTERM.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};
use todo::todo::{AddRequest, CompleteRequest, Item, TodosClient};
use zap_runtime::client::Client;
use zap_runtime::ClientError;

/// The running binary and the addresses it printed.
struct Running {
    child: Child,
    zap: String,
    rpc_url: String,
}

impl Running {
    fn start() -> Running {
        let mut child = Command::new(env!("CARGO_BIN_EXE_todo"))
            .args(["127.0.0.1:0", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the todo binary");
        // It prints its addresses once both listeners are bound.
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .expect("read its first line");
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[..] {
            ["todo", "serving", "ZAP/TCP", "on", zap, "and", "JSON-RPC", "on", url] => Running {
                zap: zap.to_owned(),
                rpc_url: url.to_owned(),
                child,
            },
            _ => panic!("unexpected first line: {line:?}"),
        }
    }

    /// One JSON-RPC request with curl, as the README shows it.
    fn curl(&self, request: Value) -> Value {
        let out = Command::new("curl")
            .args([
                "-s",
                "-H",
                "Content-Type: application/json",
                &self.rpc_url,
                "-d",
            ])
            .arg(request.to_string())
            .output()
            .unwrap_or_else(|e| panic!("cannot run curl ({e}): this test needs it"));
        assert!(out.status.success(), "curl failed: {out:?}");
        serde_json::from_slice(&out.stdout).expect("a JSON answer")
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

#[tokio::test]
async fn add_list_complete_over_both_transports() {
    let mut server = Running::start();
    let todos = TodosClient::new(Client::connect(server.zap.as_str()).await.unwrap());

    let milk = todos
        .add(&AddRequest {
            title: "buy milk".into(),
        })
        .await
        .unwrap();
    assert_eq!(
        milk,
        Item {
            id: 1,
            title: "buy milk".into(),
            done: false
        }
    );
    let done = todos.complete(&CompleteRequest { id: 1 }).await.unwrap();
    assert!(done.done);

    // JSON-RPC: the interface's name lower-cased, an underscore, the method's name.
    let added = server.curl(json!({"jsonrpc": "2.0", "id": 1, "method": "todos_add",
        "params": {"title": "write the guide"}}));
    assert_eq!(
        added["result"],
        json!({"id": 2, "title": "write the guide", "done": false})
    );
    let listed = server.curl(json!({"jsonrpc": "2.0", "id": 2, "method": "todos_list"}));
    assert_eq!(
        listed["result"]["items"],
        json!([
            {"id": 1, "title": "buy milk", "done": true},
            {"id": 2, "title": "write the guide", "done": false},
        ])
    );
    // Positional params fill the request's fields in order.
    let completed = server.curl(
        json!({"jsonrpc": "2.0", "id": 3, "method": "todos_complete",
        "params": [2]}),
    );
    assert_eq!(completed["result"]["done"], json!(true));

    let list = todos.list().await.unwrap();
    assert!(list.items.iter().all(|item| item.done), "{list:?}");

    // SIGTERM: the server drains and exits 0.
    let pid = server.child.id().to_string();
    let killed = Command::new("sh")
        .args(["-c", &format!("kill -TERM {pid}")])
        .status();
    assert!(killed.unwrap().success());
    let status = server.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}

#[tokio::test]
async fn an_unknown_item_is_the_application_error_on_both_transports() {
    let server = Running::start();
    let todos = TodosClient::new(Client::connect(server.zap.as_str()).await.unwrap());

    match todos.complete(&CompleteRequest { id: 999 }).await {
        Err(ClientError::App(e)) => {
            assert_eq!(e.code, todo::NO_SUCH_ITEM);
            assert_eq!(e.message, "no item 999");
            assert_eq!(e.to_string(), "application error 10: no item 999");
        }
        other => panic!("expected the application error, got {other:?}"),
    }

    let answer = server.curl(
        json!({"jsonrpc": "2.0", "id": 7, "method": "todos_complete",
        "params": {"id": 999}}),
    );
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32010, "message": "no item 999"}})
    );
    // Not to be confused with the protocol's own errors.
    let unknown = server.curl(json!({"jsonrpc": "2.0", "id": 8, "method": "todos_delete"}));
    assert_eq!(unknown["error"]["code"], json!(-32601));
}

#[tokio::test]
async fn a_title_over_the_limit_is_a_bad_request() {
    let server = Running::start();
    let todos = TodosClient::new(Client::connect(server.zap.as_str()).await.unwrap());
    let long = "x".repeat(todo::MAX_TITLE + 1);
    match todos
        .add(&AddRequest {
            title: long.clone(),
        })
        .await
    {
        Err(ClientError::Status { status, message }) => {
            assert_eq!(status.0, 400);
            assert!(message.contains("at most 200 bytes"), "{message}");
        }
        other => panic!("expected 400, got {other:?}"),
    }
    let answer = server.curl(json!({"jsonrpc": "2.0", "id": 1, "method": "todos_add",
        "params": [long]}));
    assert_eq!(answer["error"]["code"], json!(-32602), "{answer}");
}

#[test]
fn help_says_how_to_run_it() {
    let out = Command::new(env!("CARGO_BIN_EXE_todo"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("usage: todo [ZAP_ADDR] [HTTP_ADDR]"),
        "{text}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_todo"))
        .args(["a", "b", "c"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("too many arguments"));
}

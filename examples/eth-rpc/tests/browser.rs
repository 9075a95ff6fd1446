//! The explorer page (`GET /` on the HTTP port) in a real headless Chromium: Debian's
//! `chromium`, driven by `playwright-core` (npm, installed into `target/node/` on first
//! use; it downloads no browser of its own). The page lists the methods `rpc.discover`
//! describes; the test calls `eth_getBalance` through the form, typing each param into
//! the field its label names, and checks that the balance shown is the ledger's. A
//! screenshot is saved as `target/explorer.png`. Then it subscribes to `newHeads` through
//! the page (a WebSocket) and checks the heads it shows. And the page's route: `GET`/`HEAD` of
//! `/` and `/index.html`, with its content type and Content-Security-Policy.
//!
//! The browser test needs Chromium, which no cargo, pip or npm install provides, so it
//! is ignored by default; `.ci/run` installs Debian's `chromium` and runs it with
//! `--ignored`. Run here, a missing `chromium`, `node` or `npm` fails it (never skips):
//! install Debian's `chromium` package (or point `$CHROMIUM` at a Chromium binary).
//! The route test needs no browser and always runs.

use crate::npm;
use crate::support;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use eth_rpc::ledger::Ledger;
use serde_json::{json, Value};
use support::Running;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use zap_runtime::json::to_hex;

/// The pinned driver.
const PLAYWRIGHT: (&str, &str) = ("playwright-core", "1.65.1");

/// `$CHROMIUM`, else `chromium` on `PATH`; panics (never skips) when there is none.
fn chromium() -> PathBuf {
    let found = match std::env::var_os("CHROMIUM") {
        Some(path) => Some(PathBuf::from(path)),
        None => std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join("chromium"))
                .find(|path| path.is_file())
        }),
    };
    let path = found.unwrap_or_else(|| {
        panic!(
            "no `chromium` on PATH: the explorer test needs a headless Chromium \
             (Debian: apt-get install chromium), or $CHROMIUM naming one"
        )
    });
    let version = std::process::Command::new(&path).arg("--version").output();
    match version {
        Ok(out) if out.status.success() => path,
        other => panic!("`{} --version` failed: {other:?}", path.display()),
    }
}

/// An Ethereum quantity's pattern as the OpenRPC document spells it.
const QUANTITY_PATTERN: &str = r#""^0x(0|[1-9a-f][0-9a-f]*)$""#;

/// What to type into a param's field, by what its schema accepts.
fn value_for(schema: &Value, address: &str) -> String {
    let text = schema.to_string();
    if text.contains("{40}") {
        address.to_owned()
    } else if text.contains("latest") {
        "latest".to_owned()
    } else if text.contains(QUANTITY_PATTERN) {
        "0x10d4f".to_owned()
    } else {
        "68943".to_owned()
    }
}

#[tokio::test]
#[ignore = "needs chromium: cargo test -p eth-rpc --test integration browser:: -- --ignored"]
async fn explorer_calls_get_balance_through_its_form() {
    let chromium = chromium();
    let driver = npm::install(
        &format!("{}-{}", PLAYWRIGHT.0, PLAYWRIGHT.1),
        &[PLAYWRIGHT],
        "The explorer browser test",
    );
    let server = Running::start().await;

    // What the page will show: the server's own description of eth_getBalance.
    let (_, discover) = server
        .rpc(r#"{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}"#)
        .await;
    let methods = discover["result"]["methods"]
        .as_array()
        .unwrap_or_else(|| panic!("rpc.discover answers a document: {discover}"));
    // The methods, then the subscriptions (the OpenRPC document's `x-subscriptions`).
    let subscriptions = discover["result"]["x-subscriptions"].as_array().cloned();
    let names: Vec<String> = methods
        .iter()
        .filter_map(|m| m["name"].as_str().map(str::to_owned))
        .chain(
            subscriptions
                .unwrap_or_default()
                .iter()
                .filter_map(|s| Some(format!("{} (subscription)", s["name"].as_str()?))),
        )
        .collect();
    let method = methods
        .iter()
        .find(|m| m["name"] == "eth_getBalance")
        .expect("eth_getBalance is described");
    let ledger = Ledger::default();
    let address = *ledger.address(0).expect("a seeded account");
    let expected = ledger.account(&address).balance;
    let address = to_hex(&address);
    let params = method["params"].as_array().expect("params");
    let fill: Vec<Value> = params
        .iter()
        .map(|p| json!({ "label": p["name"], "value": value_for(&p["schema"], &address) }))
        .collect();

    let screenshot = npm::target_dir().join("explorer.png");
    let spec = json!({
        "url": format!("http://{}/", server.http),
        "chromium": chromium,
        "method": "eth_getBalance",
        "fill": fill,
        "screenshot": screenshot,
    })
    .to_string();
    let shown = drive(driver, spec).await;

    assert_eq!(shown["problems"], json!([]), "the page logged no errors");
    assert_eq!(
        shown["methods"],
        json!(names),
        "the page lists every method"
    );
    let param_names: Vec<&Value> = params.iter().map(|p| &p["name"]).collect();
    assert_eq!(
        shown["labels"],
        json!(param_names),
        "one labelled field per param"
    );
    assert_eq!(shown["state"], "done", "{}", shown["answer"]);
    // The answer as the page shows it: the JSON-RPC response, pretty-printed, with
    // 64-bit numbers exact.
    let answer: Value = serde_json::from_str(shown["answer"].as_str().expect("answer text"))
        .expect("the page shows the answer as JSON");
    let balance = match &answer["result"] {
        Value::String(quantity) => {
            u64::from_str_radix(quantity.strip_prefix("0x").expect("a quantity"), 16).ok()
        }
        result => result["balance"].as_u64(),
    };
    assert_eq!(balance, Some(expected), "the balance shown: {answer}");
    // The call started a trace: its W3C traceparent went with the request, and the page
    // shows its trace id.
    let sent = shown["traceparents"].as_array().expect("the POSTs seen");
    assert_eq!(sent.len(), 1, "one call: {sent:?}");
    let parent = zap_runtime::trace::TraceParent::parse(
        sent[0].as_str().expect("a traceparent header").as_bytes(),
    )
    .expect("a valid traceparent");
    assert_eq!(
        shown["trace"],
        json!(format!("Trace {}", parent.trace_id_hex()))
    );
    assert!(screenshot.is_file(), "{} was saved", screenshot.display());
    server.stop().await;
}

#[tokio::test]
#[ignore = "needs chromium: cargo test -p eth-rpc --test integration browser:: -- --ignored"]
async fn explorer_watches_new_heads_arrive() {
    let chromium = chromium();
    let driver = npm::install(
        &format!("{}-{}", PLAYWRIGHT.0, PLAYWRIGHT.1),
        &[PLAYWRIGHT],
        "The explorer browser test",
    );
    let handler = eth_rpc::LedgerEth::default().with_block_time(Duration::from_millis(300));
    let server = Running::start_with(eth_rpc::Config {
        handler,
        ..eth_rpc::Config::default()
    })
    .await;
    let screenshot = npm::target_dir().join("explorer-heads.png");
    let spec = json!({
        "url": format!("http://{}/", server.http),
        "chromium": chromium,
        "subscription": "newHeads",
        "notifications": 3,
        "screenshot": screenshot,
    })
    .to_string();
    let shown = drive(driver, spec).await;
    assert_eq!(shown["problems"], json!([]), "the page logged no errors");
    assert!(
        shown["methods"]
            .as_array()
            .unwrap()
            .contains(&json!("newHeads (subscription)")),
        "{shown}"
    );
    assert_eq!(
        shown["labels"],
        json!(["count"]),
        "the opening message's field"
    );
    assert_eq!(shown["state"], "streaming", "{}", shown["answer"]);
    // The heads as the page lists them, newest first: consecutive blocks.
    let text = shown["answer"].as_str().unwrap();
    let (_, list) = text.split_once('\n').expect("a count line, then the heads");
    let heads: Value = serde_json::from_str(list).expect("the heads as JSON");
    let numbers: Vec<u64> = heads
        .as_array()
        .unwrap()
        .iter()
        .map(|h| u64::from_str_radix(&h["number"].as_str().unwrap()[2..], 16).unwrap())
        .collect();
    assert!(numbers.len() >= 3, "{numbers:?}");
    for pair in numbers.windows(2) {
        assert_eq!(
            pair[0],
            pair[1] + 1,
            "newest first, one block apart: {numbers:?}"
        );
    }
    assert!(screenshot.is_file(), "{} was saved", screenshot.display());
    server.stop().await;
}

/// Run `tests/browser/explorer.mjs` with `spec`; its report (it must exit 0).
async fn drive(driver: npm::NodeModules, spec: String) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/explorer.mjs");
    let out = tokio::task::spawn_blocking(move || {
        driver
            .command(&script, &[&spec])
            .output()
            .expect("start node")
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "the browser driver failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the driver's report")
}

/// One raw request on its own connection: the response head (lower-cased) and body.
async fn raw(addr: SocketAddr, method: &str, path: &str) -> (String, Vec<u8>) {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    let request = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut response = Vec::new();
    tokio::time::timeout(
        std::time::Duration::from_secs(5),
        stream.read_to_end(&mut response),
    )
    .await
    .expect("an answer within 5 s")
    .expect("read");
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete head");
    let head = String::from_utf8_lossy(&response[..split]).to_lowercase();
    (head, response[split + 4..].to_vec())
}

#[tokio::test]
async fn the_page_is_served_at_the_root() {
    let server = Running::start().await;
    for path in ["/", "/index.html"] {
        let (head, body) = raw(server.http, "GET", path).await;
        assert!(head.starts_with("http/1.1 200"), "{head}");
        assert!(
            head.contains("content-type: text/html; charset=utf-8"),
            "{head}"
        );
        assert!(
            head.contains("content-security-policy: default-src 'none'"),
            "{head}"
        );
        let page = String::from_utf8(body).expect("UTF-8");
        assert!(page.starts_with("<!doctype html>") && page.contains("rpc.discover"));
    }
    let (head, body) = raw(server.http, "HEAD", "/").await;
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(body.is_empty());
    let (head, _) = raw(server.http, "DELETE", "/").await;
    assert!(head.starts_with("http/1.1 405"), "{head}");
    assert!(head.contains("allow: get, head, post"), "{head}");
    let (head, _) = raw(server.http, "PUT", "/index.html").await;
    assert!(head.contains("allow: get, head"), "{head}");
    server.stop().await;
}

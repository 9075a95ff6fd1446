//! The real TypeScript runtime (`@zap-proto/zap` 1.6.0) and the example over the node
//! transport, both ways:
//! * its `ZapClient` (NodeID handshake, correlated frames) calls the example server on
//!   its one ZAP/TCP port, many calls at once from concurrent promises on two
//!   connections, one pipelined on another's result with Target;
//! * the project's client in node mode calls a small Node server built from the
//!   package's own builder, reader and envelope code.

use crate::node_js;
use crate::support;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Stdio};

use eth_rpc::eth::{BalanceRequest, EthClient};
use eth_rpc::ledger::{block_hash, Ledger};
use serde_json::{json, Value};
use support::Running;
use zap_runtime::client::{Client, ClientConfig};
use zap_runtime::frame::node::NodeId;
use zap_runtime::frame::Framing;
use zap_runtime::json::{from_hex, to_hex};
use zap_runtime::rpc::Status;

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/node")
        .join(name)
}

/// Run the TypeScript client script against `port` with `calls`; its answers.
async fn ts_client(port: u16, calls: &[Value]) -> Vec<Value> {
    ts_client_with_cap(port, calls, "").await
}

/// [`ts_client`] with `ZapClient.connect(opts, cap)` given `cap_hex`.
async fn ts_client_with_cap(port: u16, calls: &[Value], cap_hex: &str) -> Vec<Value> {
    let js = node_js::zap_js();
    let cap_hex = cap_hex.to_owned();
    let port = port.to_string();
    let input = serde_json::to_vec(calls).unwrap();
    let out = tokio::task::spawn_blocking(move || {
        let mut child = js
            .command(&script("eth_client.mjs"), &["127.0.0.1", &port])
            .env("ZAP_CAP", &cap_hex)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start node");
        child.stdin.take().unwrap().write_all(&input).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "eth_client.mjs failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    })
    .await
    .unwrap();
    serde_json::from_slice(&out).expect("the script prints JSON")
}

fn account_of(call: &Value) -> [u8; 20] {
    from_hex(call["account"].as_str().unwrap())
        .unwrap()
        .try_into()
        .unwrap()
}

/// The answer the ledger gives for (`id`, `block`, `account`), as the script prints it.
fn expected(promise_id: u64, id: u64, block: u64, account: &[u8; 20]) -> Value {
    let want = Ledger::default().account(account);
    json!({"status": 200, "promiseID": promise_id, "id": id.to_string(),
           "balance": want.balance.to_string(), "nonce": want.nonce.to_string(),
           "blockHash": to_hex(&block_hash(block))})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_zap_client_calls_the_server() {
    let server = Running::start().await;
    let ledger = Ledger::default();
    let mut calls: Vec<Value> = (0..200)
        .map(|i| {
            let account = match i % 5 {
                // An account the ledger has never seen: balance 0, nonce 0.
                4 => format!("0x{}", "5a".repeat(20)),
                _ => to_hex(ledger.address(i * 3 % ledger.len()).unwrap()),
            };
            json!({"method": 1, "id": 1000 + i, "block": 68943 + i as u64, "account": account})
        })
        .collect();
    // A call, and one pipelined on its result on the same connection (Target).
    let first = json!({"conn": 0, "method": 1, "promiseID": 50_000, "id": 7, "block": 99,
                       "account": to_hex(ledger.address(3).unwrap())});
    calls.push(first.clone());
    calls.push(
        json!({"conn": 0, "method": 1, "promiseID": 50_001, "target": 50_000,
                      "payload": "", "id": 0, "block": 0, "account": to_hex(&[0; 20])}),
    );
    // An ordinal Eth does not have.
    calls.push(json!({"method": 7, "id": 0, "block": 0, "account": to_hex(&[0; 20])}));

    let answers = ts_client(server.zap.port(), &calls).await;
    assert_eq!(answers.len(), calls.len());
    let (plain, rest) = answers.split_at(200);
    for (i, (call, answer)) in calls.iter().zip(plain).enumerate() {
        // ZapClient numbers its calls per connection, from 1; PromiseID = reqID.
        let promise_id = (i / 2 + 1) as u64;
        let want = expected(
            promise_id,
            call["id"].as_u64().unwrap(),
            call["block"].as_u64().unwrap(),
            &account_of(call),
        );
        assert_eq!(answer, &want, "call {call}");
    }

    // The pipelined call ran on the first one's result (a BalanceResponse read as a
    // BalanceRequest): Id = its Id, Block = its Balance, Account = its Nonce and the
    // first 12 bytes of its BlockHash.
    let a = &ledger.account(&account_of(&first));
    assert_eq!(rest[0], expected(50_000, 7, 99, &account_of(&first)));
    let mut account = [0u8; 20];
    account[..8].copy_from_slice(&a.nonce.to_le_bytes());
    account[8..].copy_from_slice(&block_hash(99)[..12]);
    assert_eq!(rest[1], expected(50_001, 7, a.balance, &account));

    assert_eq!(rest[2]["status"], 404, "{}", rest[2]);
    assert!(
        rest[2]["error"].as_str().unwrap().contains("ordinal 7"),
        "{}",
        rest[2]
    );
    server.stop().await;
}

/// A running `ledger_server.mjs`: its port and its standard output (the NodeIDs it
/// accepted). Killed when dropped.
struct TsServer {
    child: Child,
    port: u16,
    lines: BufReader<ChildStdout>,
}

impl TsServer {
    fn start(node_id: &str, ledger: &Value) -> TsServer {
        let js = node_js::zap_js();
        let mut child = js
            .command(&script("ledger_server.mjs"), &[node_id])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start node");
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(&serde_json::to_vec(ledger).unwrap())
            .unwrap();
        drop(stdin);
        let mut lines = BufReader::new(child.stdout.take().unwrap());
        let first = read_line(&mut lines);
        let port = first
            .strip_prefix("listening ")
            .and_then(|p| p.trim().parse().ok())
            .unwrap_or_else(|| panic!("ledger_server.mjs said {first:?}"));
        TsServer { child, port, lines }
    }
}

impl Drop for TsServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn read_line(lines: &mut BufReader<ChildStdout>) -> String {
    let mut line = String::new();
    lines
        .read_line(&mut line)
        .expect("read the script's output");
    line.trim_end().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn node_mode_client_calls_a_typescript_server() {
    let ledger = Ledger::default();
    let blocks: Vec<u64> = (0..64).map(|i| 68_943 + i * 1000).collect();
    let mut accounts = BTreeMap::new();
    for i in 0..64 {
        let address = ledger.address(i).unwrap();
        let a = ledger.account(address);
        accounts.insert(
            to_hex(address),
            json!([a.balance.to_string(), a.nonce.to_string()]),
        );
    }
    let table = json!({
        "accounts": accounts,
        "blocks": blocks.iter().map(|&b| (b.to_string(), to_hex(&block_hash(b))))
            .collect::<BTreeMap<_, _>>(),
    });
    let mut ts = tokio::task::block_in_place(|| TsServer::start("ts-ledger", &table));

    let config = ClientConfig {
        framing: Framing::Node,
        node_id: NodeId::new("rust-interop").unwrap(),
        ..ClientConfig::default()
    };
    let client = Client::connect_with(("127.0.0.1", ts.port), config)
        .await
        .expect("connect and handshake");
    assert_eq!(
        client.peer_node_id().map(|id| id.to_string()).as_deref(),
        Some("ts-ledger")
    );
    let accepted = tokio::task::block_in_place(|| read_line(&mut ts.lines));
    assert_eq!(accepted, "peer rust-interop");

    // 128 calls in flight at once on the one connection: known and unknown accounts.
    let mut calls = tokio::task::JoinSet::new();
    for i in 0..128u64 {
        let eth = EthClient::new(client.clone());
        let account = if i % 4 == 3 {
            [0x42; 20]
        } else {
            *ledger.address((i % 64) as usize).unwrap()
        };
        let block = blocks[(i % 64) as usize];
        calls.spawn(async move {
            let req = BalanceRequest {
                id: i,
                block,
                account,
            };
            // Half the calls carry a context (a deadline and metadata after the
            // envelope): the TypeScript runtime reads the envelope up to its declared
            // size and answers them as it answers the others.
            let answer = if i % 2 == 0 {
                zap_runtime::context::CallOptions::new()
                    .deadline_in(std::time::Duration::from_secs(20))
                    .header("request-id", i.to_string())
                    .unwrap()
                    .scope(eth.get_balance(&req))
                    .await
            } else {
                eth.get_balance(&req).await
            };
            (account, block, answer)
        });
    }
    let mut answered = 0;
    while let Some(done) = calls.join_next().await {
        let (account, block, answer) = done.unwrap();
        let answer = answer.expect("an answer from the TypeScript server");
        let want = ledger.account(&account);
        assert_eq!((answer.balance, answer.nonce), (want.balance, want.nonce));
        assert_eq!(answer.block_hash, block_hash(block));
        answered += 1;
    }
    assert_eq!(answered, 128);

    let (status, body) = client.call_raw(7, 0, b"").await.expect("an answer");
    assert_eq!(status, Status::NOT_FOUND);
    assert!(String::from_utf8_lossy(&body).contains("ordinal 7"));
}

/// The capability `ZapClient.connect(opts, cap)` puts in every call is checked like any
/// other: with a policy on the server, a valid one is served and none gets 401.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_zap_client_capabilities_are_checked() {
    use std::time::{SystemTime, UNIX_EPOCH};
    use zap_runtime::cap::{issue, Issuance, Policy, Scheme, SigningKey};
    use zap_runtime::{Authorizer, Service};

    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let key = SigningKey::from_secret(Scheme::Ed25519, &[5; 32]).unwrap();
    let target = [0x24; 32];
    let cap = issue(
        &Issuance {
            kind: 1,
            target,
            permissions: 0x1,
            issued_at: now - 60,
            expires_at: now + 3600,
            ..Default::default()
        },
        &key,
    )
    .unwrap();
    let policy = Authorizer::new(
        Policy::builder(target)
            .trust(key.public_key().clone())
            .methods(<eth_rpc::eth::EthService<eth_rpc::LedgerEth> as Service>::METHODS)
            .build(),
    );
    let mut config = eth_rpc::Config::default();
    config.zap.authorize = Some(policy);
    let server = Running::start_with(config).await;
    let ledger = Ledger::default();
    let account = ledger.address(1).unwrap();
    let calls: Vec<Value> = (0..4)
        .map(|i| json!({"method": 1, "id": i, "block": 68943, "account": to_hex(account)}))
        .collect();

    let served = ts_client_with_cap(server.zap.port(), &calls, &hex_of(&cap)).await;
    for answer in &served {
        assert_eq!(answer["status"], 200, "{answer}");
        assert_eq!(
            answer["balance"],
            ledger.account(account).balance.to_string()
        );
    }
    let refused = ts_client(server.zap.port(), &calls).await;
    for answer in &refused {
        assert_eq!(answer["status"], 401, "{answer}");
        assert!(
            answer["error"]
                .as_str()
                .unwrap()
                .starts_with("unauthorized:"),
            "{answer}"
        );
    }
    server.stop().await;
}

fn hex_of(bytes: &[u8]) -> String {
    to_hex(bytes).trim_start_matches("0x").to_owned()
}

//! The example over JSON-RPC/HTTP, as `curl` would use it: real servers on port 0,
//! requests written by hand.

mod support;

use serde_json::{json, Value};
use support::Running;
use zap_runtime::json::to_hex;

use eth_rpc::ledger::{block_hash, Ledger};

/// The first seeded account: its address in hex and what the ledger holds for it.
fn seeded(i: usize) -> (String, u64, u64) {
    let ledger = Ledger::default();
    let address = ledger.address(i).expect("a seeded account");
    let account = ledger.account(address);
    (to_hex(address), account.balance, account.nonce)
}

fn call(id: Value, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "eth_getBalance", "params": params}).to_string()
}

#[tokio::test]
async fn balance_by_name_for_a_seeded_account() {
    let server = Running::start().await;
    let (account, balance, nonce) = seeded(0);
    let (status, answer) = server
        .rpc(&call(
            json!(1),
            json!({"id": 7, "block": 68943, "account": account}),
        ))
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        answer,
        json!({
            "jsonrpc": "2.0",
            "id": 1,
            "result": {
                "id": 7,
                "balance": balance,
                "nonce": nonce,
                "blockHash": to_hex(&block_hash(68943)),
            }
        })
    );
    assert!(balance > 0);
    server.stop().await;
}

#[tokio::test]
async fn balance_by_position_with_string_numbers() {
    let server = Running::start().await;
    let (account, balance, nonce) = seeded(1);
    let (status, answer) = server
        .rpc(&call(json!("a"), json!(["42", "0x10d4f", account])))
        .await;
    assert_eq!(status, 200);
    assert_eq!(answer["id"], "a");
    let result = &answer["result"];
    assert_eq!(result["id"], 42);
    assert_eq!(result["balance"], balance);
    assert_eq!(result["nonce"], nonce);
    assert_eq!(result["blockHash"], to_hex(&block_hash(68943)));
    server.stop().await;
}

#[tokio::test]
async fn unknown_account_has_nothing() {
    let server = Running::start().await;
    let (_, answer) = server
        .rpc(&call(
            json!(3),
            json!({"id": 3, "block": 0, "account": "0x00000000000000000000000000000000000000ff"}),
        ))
        .await;
    assert_eq!(answer["result"]["balance"], 0);
    assert_eq!(answer["result"]["nonce"], 0);
    assert_eq!(answer["result"]["id"], 3);
    server.stop().await;
}

#[tokio::test]
async fn batch_of_balances() {
    let server = Running::start().await;
    let batch: Vec<Value> = (0..3)
        .map(|i| {
            let (account, _, _) = seeded(i);
            json!({"jsonrpc": "2.0", "id": i, "method": "eth_getBalance",
                   "params": {"id": i, "block": i, "account": account}})
        })
        .chain([
            json!({"jsonrpc": "2.0", "method": "eth_getBalance", "params": [0, 0, seeded(0).0]}),
        ])
        .collect();
    let (status, answer) = server.rpc(&Value::Array(batch).to_string()).await;
    assert_eq!(status, 200);
    let answers = answer.as_array().expect("an array for a batch");
    assert_eq!(answers.len(), 3, "the notification gets no answer");
    for (i, answer) in answers.iter().enumerate() {
        assert_eq!(answer["id"], i);
        assert_eq!(answer["result"]["balance"], seeded(i).1);
        assert_eq!(answer["result"]["blockHash"], to_hex(&block_hash(i as u64)));
    }
    server.stop().await;
}

#[tokio::test]
async fn errors() {
    let server = Running::start().await;
    let code = |answer: &Value| answer["error"]["code"].as_i64();

    let (_, answer) = server.rpc("{not json").await;
    assert_eq!(code(&answer), Some(-32700));

    let (_, answer) = server
        .rpc(r#"{"jsonrpc":"2.0","id":1,"method":"eth_getCode","params":[]}"#)
        .await;
    assert_eq!(code(&answer), Some(-32601));

    let (_, answer) = server
        .rpc(&call(
            json!(1),
            json!({"id": 1, "block": 1, "account": "0x1234"}),
        ))
        .await;
    assert_eq!(code(&answer), Some(-32602));
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("expected 20 bytes"), "{message}");

    let (_, answer) = server.rpc(r#"{"id":1,"method":"eth_getBalance"}"#).await;
    assert_eq!(code(&answer), Some(-32600));

    let (status, answer) = server
        .rpc(r#"{"jsonrpc":"2.0","method":"eth_getBalance","params":[1,1,"0x00"]}"#)
        .await;
    assert_eq!((status, answer), (204, Value::Null));
    server.stop().await;
}

#[tokio::test]
async fn health_and_routes() {
    let server = Running::start().await;
    let (status, body) = support::http(server.http, "GET", "/health", "").await;
    assert_eq!(status, 200);
    assert_eq!(body, br#"{"status":"ok"}"#);
    let (status, _) = support::http(server.http, "GET", "/rpc", "").await;
    assert_eq!(status, 405);
    let (status, _) = support::http(server.http, "POST", "/", "{}").await;
    assert_eq!(status, 404);
    server.stop().await;
}

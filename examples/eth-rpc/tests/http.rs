//! The example over JSON-RPC/HTTP, as `curl` would use it: real servers on port 0,
//! requests written by hand.

use crate::support;

use serde_json::{json, Value};
use support::Running;
use zap_runtime::json::to_hex;

use eth_rpc::ledger::Ledger;

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

fn quantity(v: u64) -> Value {
    json!(format!("{v:#x}"))
}

/// Ethereum's shape: `params: [address, block]`, the balance as a bare quantity.
#[tokio::test]
async fn balance_by_position_as_ethereum_clients_send_it() {
    let server = Running::start().await;
    let (account, balance, _) = seeded(0);
    for block in [
        "latest",
        "earliest",
        "pending",
        "safe",
        "finalized",
        "0x10d4f",
        "0x0",
    ] {
        let (status, answer) = server.rpc(&call(json!(1), json!([account, block]))).await;
        assert_eq!(status, 200);
        assert_eq!(
            answer,
            json!({"jsonrpc": "2.0", "id": 1, "result": quantity(balance)}),
            "block {block}"
        );
    }
    assert!(balance > 0);
    server.stop().await;
}

/// Params by name still work, with the same JSON options (quantities, tags).
#[tokio::test]
async fn balance_by_name_for_a_seeded_account() {
    let server = Running::start().await;
    let (account, balance, _) = seeded(1);
    let (status, answer) = server
        .rpc(&call(
            json!("a"),
            json!({"id": 7, "block": "0x10d4f", "account": account}),
        ))
        .await;
    assert_eq!(status, 200);
    assert_eq!(answer["id"], "a");
    assert_eq!(answer["result"], quantity(balance));
    server.stop().await;
}

#[tokio::test]
async fn unknown_account_has_nothing() {
    let server = Running::start().await;
    let (_, answer) = server
        .rpc(&call(
            json!(3),
            json!(["0x00000000000000000000000000000000000000ff", "latest"]),
        ))
        .await;
    assert_eq!(answer["result"], "0x0");
    server.stop().await;
}

/// What tools call on connect, from the same ledger.
#[tokio::test]
async fn chain_id_block_number_and_versions() {
    let server = Running::start().await;
    for (method, want) in [
        ("eth_chainId", quantity(eth_rpc::CHAIN_ID)),
        ("eth_blockNumber", quantity(eth_rpc::HEAD_BLOCK)),
        ("net_version", json!(eth_rpc::CHAIN_ID.to_string())),
        ("web3_clientVersion", json!(eth_rpc::CLIENT_VERSION)),
    ] {
        let (status, answer) = server
            .rpc(&json!({"jsonrpc": "2.0", "id": 9, "method": method, "params": []}).to_string())
            .await;
        assert_eq!(status, 200);
        assert_eq!(
            answer,
            json!({"jsonrpc": "2.0", "id": 9, "result": want}),
            "{method}"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn batch_of_balances() {
    let server = Running::start().await;
    let batch: Vec<Value> = (0..3)
        .map(|i| {
            let (account, _, _) = seeded(i);
            json!({"jsonrpc": "2.0", "id": i, "method": "eth_getBalance",
                   "params": [account, format!("{i:#x}")]})
        })
        .chain([
            json!({"jsonrpc": "2.0", "method": "eth_getBalance", "params": [seeded(0).0, "latest"]}),
            json!({"jsonrpc": "2.0", "id": "c", "method": "eth_chainId"}),
        ])
        .collect();
    let (status, answer) = server.rpc(&Value::Array(batch).to_string()).await;
    assert_eq!(status, 200);
    let answers = answer.as_array().expect("an array for a batch");
    assert_eq!(answers.len(), 4, "the notification gets no answer");
    for (i, answer) in answers[..3].iter().enumerate() {
        assert_eq!(answer["id"], i);
        assert_eq!(answer["result"], quantity(seeded(i).1));
    }
    assert_eq!(
        answers[3],
        json!({"jsonrpc": "2.0", "id": "c", "result": quantity(eth_rpc::CHAIN_ID)})
    );
    server.stop().await;
}

/// Bad quantities are -32602 with a message naming the param, as Ethereum clients
/// refuse them (the shapes of ethereum/execution-apis' eth_getBalance cases).
#[tokio::test]
async fn bad_quantities_name_the_param() {
    let server = Running::start().await;
    let (account, _, _) = seeded(0);
    for (block, why) in [
        (json!("0x01"), "leading zero"),
        (json!("0x"), "at least one digit"),
        (json!("0x10000000000000000"), "does not fit 64 bits"),
        (json!("-0x1"), "must start with 0x"),
        (json!("0xg1"), "only hex digits"),
        (json!(-1), "expected a quantity"),
        (json!(68943), "expected a quantity"),
        (json!("newest"), "must start with 0x"),
        (json!({"blockHash": "0x00"}), "not supported"),
        (json!(true), "expected a quantity"),
    ] {
        let (status, answer) = server.rpc(&call(json!(1), json!([account, block]))).await;
        assert_eq!(status, 200);
        assert_eq!(answer["error"]["code"], -32602, "{block}: {answer}");
        assert_eq!(answer["id"], 1);
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("params[1] (block)"), "{block}: {message}");
        assert!(message.contains(why), "{block}: {message}");
    }
    // The address: hex of exactly 20 bytes.
    let (_, answer) = server
        .rpc(&call(json!(2), json!(["0x1234", "latest"])))
        .await;
    assert_eq!(answer["error"]["code"], -32602);
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("params[0] (account)") && message.contains("20 bytes"),
        "{message}"
    );
    // Too many params.
    let (_, answer) = server
        .rpc(&call(json!(3), json!([account, "latest", 1])))
        .await;
    assert_eq!(answer["error"]["code"], -32602);
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
            json!({"id": 1, "block": "0x1", "account": "0x1234"}),
        ))
        .await;
    assert_eq!(code(&answer), Some(-32602));
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("expected 20 bytes"), "{message}");

    let (_, answer) = server.rpc(r#"{"id":1,"method":"eth_getBalance"}"#).await;
    assert_eq!(code(&answer), Some(-32600));

    let (status, answer) = server
        .rpc(r#"{"jsonrpc":"2.0","method":"eth_getBalance","params":["0x00","latest"]}"#)
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
    // `/` serves JSON-RPC too, for Ethereum tools.
    let (status, _) = support::http(server.http, "POST", "/", "{}").await;
    assert_eq!(status, 200);
    let (status, _) = support::http(server.http, "POST", "/nope", "{}").await;
    assert_eq!(status, 404);
    server.stop().await;
}

/// `rpc.discover` answers the OpenRPC document zapc generated from schemas/eth.zap.
#[tokio::test]
async fn rpc_discover_answers_the_openrpc_document() {
    let server = Running::start().await;
    let (status, answer) = server
        .rpc(r#"{"jsonrpc":"2.0","id":"d","method":"rpc.discover"}"#)
        .await;
    assert_eq!(status, 200);
    assert_eq!(answer["id"], "d");
    let document = &answer["result"];
    assert!(
        document["openrpc"]
            .as_str()
            .is_some_and(|v| v.starts_with("1.")),
        "{document}"
    );
    let names: Vec<&str> = document["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "eth_getBalance",
            "eth_chainId",
            "eth_blockNumber",
            "net_version",
            "web3_clientVersion"
        ]
    );
    let get_balance = &document["methods"][0];
    assert_eq!(get_balance["paramStructure"], "by-position");
    let params: Vec<&str> = get_balance["params"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(params, ["account", "block"]);
    server.stop().await;
}

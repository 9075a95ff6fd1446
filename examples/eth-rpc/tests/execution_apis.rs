//! The request and response shapes of ethereum/execution-apis' `eth_getBalance` cases
//! (`tests/eth_getBalance/*.io`), against this example's ledger: the same params forms
//! (tag, number, EIP-1898 object, block omitted, unknown account) and the same answer
//! shape (a bare quantity). The accounts and values are this ledger's, so the cases are
//! written here from those shapes. A block given by hash is refused: this server cannot
//! tell a number from a hash.

use crate::support;

use serde_json::{json, Value};
use support::Running;
use zap_runtime::json::to_hex;

use eth_rpc::ledger::Ledger;

/// `>> request` / `<< response`, as the .io files pair them.
async fn exchange(server: &Running, request: Value) -> Value {
    let (status, answer) = server.rpc(&request.to_string()).await;
    assert_eq!(status, 200, "{request}");
    answer
}

#[tokio::test]
async fn get_balance_cases() {
    let server = Running::start().await;
    let ledger = Ledger::default();
    let address = to_hex(ledger.address(5).unwrap());
    let balance = format!("{:#x}", ledger.account(ledger.address(5).unwrap()).balance);
    let cases = [
        ("get-balance", json!([address, "latest"]), json!(balance)),
        (
            "get-balance-default-block",
            json!([address]),
            json!(balance),
        ),
        (
            "get-balance-block-number-object",
            json!([address, {"blockNumber": "0x2c"}]),
            json!(balance),
        ),
        (
            "get-balance-blocknumber",
            json!([address, "0x2c"]),
            json!(balance),
        ),
        (
            "get-balance-unknown-account",
            json!(["0xc1cadaffffffffffffffffffffffffffffffffff", "latest"]),
            json!("0x0"),
        ),
    ];
    for (name, params, result) in cases {
        let answer = exchange(
            &server,
            json!({"jsonrpc": "2.0", "id": 1, "method": "eth_getBalance", "params": params}),
        )
        .await;
        assert_eq!(
            answer,
            json!({"jsonrpc": "2.0", "id": 1, "result": result}),
            "{name}"
        );
    }
    // get-balance-blockhash, get-balance-block-hash-object(-require-canonical): refused,
    // never answered for some other block.
    for block in [
        json!({"blockHash": "0xa38f2a6f7d276298d8e7a9bfa28625e4dc8948021f5a7369d0a04571879e98d2"}),
        json!({"blockHash": "0xa38f2a6f7d276298d8e7a9bfa28625e4dc8948021f5a7369d0a04571879e98d2", "requireCanonical": true}),
        json!("0xa38f2a6f7d276298d8e7a9bfa28625e4dc8948021f5a7369d0a04571879e98d2"),
        json!({}),
        json!({"blockNumber": "0x2c", "extra": 1}),
    ] {
        let answer = exchange(
            &server,
            json!({"jsonrpc": "2.0", "id": 2, "method": "eth_getBalance", "params": [address, block]}),
        )
        .await;
        assert_eq!(answer["error"]["code"], -32602, "{block}: {answer}");
        assert_eq!(answer["id"], 2);
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains("params[1] (block)"), "{message}");
    }
    server.stop().await;
}

//! The real Python runtime (zap-proto 1.4.1) as a ZAP/TCP client of the example server:
//! it builds the request struct and the envelope with its own code, pipelines the calls
//! over the TCP framing, and parses our answers with its own reader.

use crate::python;
use crate::support;

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use eth_rpc::ledger::{block_hash, Ledger};
use serde_json::{json, Value};
use support::Running;
use zap_runtime::json::to_hex;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_client_over_tcp_framing() {
    let py = python::zap_proto();
    let server = Running::start().await;
    let ledger = Ledger::default();
    let mut calls: Vec<Value> = (0..40)
        .map(|i| {
            let account = match i % 4 {
                // An account the ledger has never seen: balance 0, nonce 0.
                3 => format!("0x{}", "77".repeat(20)),
                _ => to_hex(ledger.address(i * 7).unwrap()),
            };
            json!({"method": 1, "id": 1000 + i, "block": 68943 + i as u64, "account": account})
        })
        .collect();
    calls.push(json!({"method": 7, "id": 0, "block": 0, "account": to_hex(&[0; 20])}));
    calls.push(json!({"method": 1, "payload": "0badc0de"}));

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/eth_call.py");
    let port = server.zap.port().to_string();
    let input = serde_json::to_vec(&calls).unwrap();
    let out = tokio::task::spawn_blocking(move || {
        let mut child = py
            .command()
            .arg(&script)
            .args(["127.0.0.1", &port])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start python3");
        child.stdin.take().unwrap().write_all(&input).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "eth_call.py failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    })
    .await
    .unwrap();
    let answers: Vec<Value> = serde_json::from_slice(&out).unwrap();
    assert_eq!(answers.len(), calls.len());

    for (call, answer) in calls.iter().zip(&answers).take(40) {
        let account: [u8; 20] = zap_runtime::json::from_hex(call["account"].as_str().unwrap())
            .unwrap()
            .try_into()
            .unwrap();
        let want = ledger.account(&account);
        let block = call["block"].as_u64().unwrap();
        assert_eq!(
            answer,
            &json!({"status": 200, "id": call["id"], "balance": want.balance, "nonce": want.nonce,
                    "blockHash": to_hex(&block_hash(block))}),
            "call {call}"
        );
    }
    assert_eq!(answers[40]["status"], 404, "{}", answers[40]);
    assert_eq!(answers[41]["status"], 400, "{}", answers[41]);
    assert!(
        answers[41]["error"]
            .as_str()
            .unwrap()
            .contains("BalanceRequest"),
        "{}",
        answers[41]
    );
    server.stop().await;
}

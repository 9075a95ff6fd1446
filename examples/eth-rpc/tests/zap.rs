//! The example over ZAP/TCP with the generated `EthClient`, and the same answers over
//! both transports.

use crate::support;

use eth_rpc::eth::{BalanceRequest, BalanceResponse, EthClient};
use eth_rpc::ledger::{block_hash, Ledger};
use serde_json::json;
use support::Running;
use zap_runtime::client::Client;
use zap_runtime::json::to_hex;
use zap_runtime::rpc::{Status, NO_TARGET};
use zap_runtime::ZapStruct;

use crate::harness::GET_BALANCE;
use crate::process::EthRpc;

#[tokio::test]
async fn balance_over_zap_tcp() {
    let server = Running::start().await;
    let client = EthClient::new(Client::connect(server.zap).await.expect("connect"));
    let ledger = Ledger::default();
    for i in [0, 1, 999] {
        let account = *ledger.address(i).expect("a seeded account");
        let answer = client
            .get_balance(&BalanceRequest {
                id: i as u64,
                block: 68943,
                account,
            })
            .await
            .expect("a balance");
        assert_eq!(answer.id, i as u64);
        assert_eq!(answer.balance, ledger.account(&account).balance);
        assert_eq!(answer.nonce, ledger.account(&account).nonce);
        assert_eq!(answer.block_hash, block_hash(68943));
    }
    let unknown = client
        .get_balance(&BalanceRequest {
            id: 5,
            block: 1,
            account: [0xee; 20],
        })
        .await
        .expect("an answer for an unknown account");
    assert_eq!((unknown.id, unknown.balance, unknown.nonce), (5, 0, 0));
    drop(client);
    server.stop().await;
}

#[tokio::test]
async fn both_transports_agree() {
    let server = Running::start().await;
    let client = EthClient::new(Client::connect(server.zap).await.expect("connect"));
    let account = *Ledger::default().address(7).expect("a seeded account");
    let request = BalanceRequest {
        id: 11,
        block: 123_456,
        account,
    };
    let over_zap = client.get_balance(&request).await.expect("a balance");
    let (_, over_http) = server
        .rpc(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "eth_getBalance",
                    "params": [to_hex(&account), format!("{:#x}", 123_456)]})
            .to_string(),
        )
        .await;
    // JSON-RPC answers the response's `Balance`, unwrapped, as its owned type writes it.
    assert_eq!(
        over_http["result"],
        serde_json::to_value(&over_zap).expect("the owned type serializes")["balance"]
    );
    drop(client);
    server.stop().await;
}

/// `--zap-pipeline-results`: by default a call whose Target names an earlier call runs
/// on that call's result (a `BalanceResponse` read as a `BalanceRequest`); with 0 the
/// binary keeps no results and refuses the target with the reason.
#[tokio::test]
async fn the_pipelining_flag_turns_targets_on_and_off() {
    let ledger = Ledger::default();
    let account = *ledger.address(3).expect("a seeded account");
    let request = BalanceRequest {
        id: 7,
        block: 99,
        account,
    }
    .to_bytes()
    .expect("a request");
    for (flags, kept) in [
        (&[][..], true),
        (&["--zap-pipeline-results", "0"][..], false),
    ] {
        let server = EthRpc::start(flags).await;
        let client = Client::connect(server.zap).await.expect("connect");
        let first = client.next_promise_id();
        let (status, _) = client
            .call_raw_with_id(first, GET_BALANCE, NO_TARGET, &request)
            .await
            .expect("an answer");
        assert_eq!(status, Status::OK);
        let (status, body) = client
            .call_raw(GET_BALANCE, first, b"")
            .await
            .expect("an answer");
        let text = String::from_utf8_lossy(&body);
        if kept {
            assert_eq!(status, Status::OK, "{text}");
            let answer = BalanceResponse::decode(&body).expect("a BalanceResponse");
            // Id 7 carried over; Block is the first answer's balance.
            let held = ledger.account(&account);
            assert_eq!(answer.id, 7);
            assert_eq!(answer.block_hash, block_hash(held.balance));
        } else {
            assert_eq!(status, Status::BAD_REQUEST, "{text}");
            assert!(
                text.contains("promise pipelining is off on this server"),
                "{text}"
            );
        }
        drop(client);
    }
}

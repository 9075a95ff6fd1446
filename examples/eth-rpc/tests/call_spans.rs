//! The per-call `tracing` span of `zap_runtime::metrics`, as the real binary logs it
//! with `RUST_LOG=zap_runtime::metrics=debug`: one line per call, with its method,
//! transport, status and duration.

use crate::process;
use crate::support;

use eth_rpc::eth::EthClient;
use eth_rpc::ledger::Ledger;
use process::{checked_call, EthRpc};
use zap_runtime::client::Client;
use zap_runtime::Transport;

/// The next log line that holds `needle` (within 10 s: a call that never logs fails the
/// test instead of hanging it).
async fn line_with(server: &mut EthRpc, needle: &str) -> String {
    let wait = async {
        loop {
            let line = server.log.recv().await.expect("eth-rpc is still logging");
            if line.contains(needle) {
                return line;
            }
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(10), wait)
        .await
        .unwrap_or_else(|_| panic!("no log line with {needle:?} within 10 s"))
}

#[tokio::test]
async fn each_call_logs_its_method_transport_status_and_duration() {
    let mut server = EthRpc::start_logging(
        "127.0.0.1:0",
        "127.0.0.1:0",
        &[],
        "info,zap_runtime::metrics=debug",
    )
    .await;
    let client = Client::connect(server.zap).await.expect("connect");
    checked_call(&EthClient::new(client.clone()), &Ledger::default(), 0, 1)
        .await
        .expect("an answer");
    let line = line_with(&mut server, "answered").await;
    for field in [
        r#"method="getBalance""#,
        r#"transport="zap""#,
        "status=200",
        "duration_us=",
    ] {
        assert!(line.contains(field), "{field} in {line:?}");
    }
    let _ = client.call(77, b"").await;
    let line = line_with(&mut server, "answered").await;
    for field in [r#"method="unknown""#, r#"transport="zap""#, "status=404"] {
        assert!(line.contains(field), "{field} in {line:?}");
    }
    let account = zap_runtime::json::to_hex(Ledger::default().address(0).expect("seeded"));
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["{account}","0x2"]}}"#
    );
    let (status, _) = support::http(server.http, "POST", "/rpc", &body).await;
    assert_eq!(status, 200);
    let line = line_with(&mut server, "answered").await;
    for field in [
        r#"method="getBalance""#,
        r#"transport="http""#,
        "status=200",
    ] {
        assert!(line.contains(field), "{field} in {line:?}");
    }
}

//! The real `curl` binary against the real server: the command the README shows.
//! Fails (does not skip) when curl is missing: install it (`apt-get install curl`).

use crate::support;

use std::process::Command;

use serde_json::Value;
use support::Running;
use zap_runtime::json::to_hex;

use eth_rpc::ledger::Ledger;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn curl_gets_a_real_balance() {
    let server = Running::start().await;
    let ledger = Ledger::default();
    let address = ledger.address(0).expect("a seeded account");
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["{}","latest"]}}"#,
        to_hex(address)
    );
    // `/`, where Ethereum tools post.
    let url = format!("http://{}/", server.http);
    let output = tokio::task::spawn_blocking(move || {
        Command::new("curl")
            .args([
                "-sS",
                "--max-time",
                "10",
                "-H",
                "Content-Type: application/json",
            ])
            .args(["-d", &body, &url])
            .output()
    })
    .await
    .expect("the blocking task runs");
    let output = match output {
        Ok(output) => output,
        Err(e) => panic!(
            "cannot run `curl` ({e}): this test needs the curl binary; install it (apt-get install curl)"
        ),
    };
    assert!(
        output.status.success(),
        "curl failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answer: Value = serde_json::from_slice(&output.stdout).expect("curl printed JSON");
    assert_eq!(answer["id"], 1);
    let balance = ledger.account(address).balance;
    assert_eq!(answer["result"], format!("{balance:#x}"));
    server.stop().await;
}

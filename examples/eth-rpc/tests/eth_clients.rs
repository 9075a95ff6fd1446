//! Real Ethereum clients against the running example's JSON-RPC port: web3.py (PyPI) and
//! ethers (npm), installed into `target/` on first use, over HTTP, WebSocket and IPC
//! (`newHeads` subscriptions from the real binary with `--block-time`). Their answers
//! must equal the ledger. A missing python3/pip or node/npm fails the test; nothing is
//! skipped.

use crate::npm;
use crate::process;
use crate::python;
use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;
use support::Running;
use zap_runtime::json::to_hex;

use eth_rpc::ledger::Ledger;

/// web3.py, pinned.
const WEB3: &str = "web3==7.16.0";
/// ethers, pinned.
const ETHERS: (&str, &str) = ("ethers", "6.17.0");

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(name)
}

fn run(mut cmd: Command, what: &str) -> Value {
    let out: Output = cmd
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}):\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{what} printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// web3.py installed into `target/python/web3-<version>`.
fn web3_site() -> PathBuf {
    let site = python::target_dir()
        .join("python")
        .join(WEB3.replace("==", "-"));
    python::install_atomically(
        &site,
        |dir| dir.join("web3").join("__init__.py").is_file(),
        &format!("python3 -m pip install {WEB3}"),
        "The Ethereum client tests need python3 with pip and access to PyPI",
        |tmp| python::pip_install(tmp, WEB3),
    );
    site
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web3_py_reads_the_ledger() {
    let site = tokio::task::spawn_blocking(web3_site).await.unwrap();
    let server = Running::start().await;
    let ledger = Ledger::default();
    let (first, second) = (ledger.address(0).unwrap(), ledger.address(1).unwrap());
    let url = format!("http://{}", server.http);
    let mut cmd = Command::new(python::PYTHON);
    cmd.arg(script("python/web3_client.py"))
        .args([url, to_hex(first), to_hex(second)])
        .env("PYTHONPATH", &site)
        .env("PYTHONNOUSERSITE", "1");
    let answer = tokio::task::spawn_blocking(move || run(cmd, "web3.py"))
        .await
        .unwrap();
    let balance = ledger.account(first).balance;
    assert_eq!(answer["connected"], true, "{answer}");
    assert_eq!(answer["balance"], balance, "{answer}");
    assert_eq!(answer["balance_at_block"], balance, "{answer}");
    assert_eq!(answer["chain_id"], eth_rpc::CHAIN_ID, "{answer}");
    assert_eq!(answer["block_number"], eth_rpc::HEAD_BLOCK, "{answer}");
    assert_eq!(
        answer["client_version"],
        eth_rpc::CLIENT_VERSION,
        "{answer}"
    );
    assert_eq!(
        answer["net_version"],
        eth_rpc::CHAIN_ID.to_string(),
        "{answer}"
    );
    assert_eq!(
        answer["batch"],
        serde_json::json!([balance, ledger.account(second).balance]),
        "{answer}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ethers_reads_the_ledger() {
    let node = tokio::task::spawn_blocking(|| {
        npm::install("ethers-6.17.0", &[ETHERS], "The Ethereum client tests")
    })
    .await
    .unwrap();
    let server = Running::start().await;
    let ledger = Ledger::default();
    let address = ledger.address(2).unwrap();
    let url = format!("http://{}/", server.http);
    let mut cmd = node.command(&script("node/ethers_client.mjs"), &[&url, &to_hex(address)]);
    cmd.stderr(Stdio::piped());
    let answer = tokio::task::spawn_blocking(move || run(cmd, "ethers"))
        .await
        .unwrap();
    assert_eq!(answer["chainId"], eth_rpc::CHAIN_ID.to_string(), "{answer}");
    assert_eq!(
        answer["balance"],
        ledger.account(address).balance.to_string(),
        "{answer}"
    );
    assert_eq!(
        answer["blockNumber"],
        eth_rpc::HEAD_BLOCK.to_string(),
        "{answer}"
    );
    server.stop().await;
}

/// Two heads in a row, each one block after the one before: what a chain that advances
/// sends a new subscriber (the head now, then each new one).
fn assert_consecutive(heads: &Value, what: &str) {
    let heads: Vec<u64> = heads
        .as_array()
        .unwrap_or_else(|| panic!("{what}: no heads"))
        .iter()
        .map(|h| h.as_u64().unwrap())
        .collect();
    assert_eq!(heads.len(), 2, "{what}: {heads:?}");
    assert!(heads[0] >= eth_rpc::HEAD_BLOCK, "{what}: {heads:?}");
    assert_eq!(heads[1], heads[0] + 1, "{what}: {heads:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web3_py_subscribes_to_new_heads_over_websocket() {
    let site = tokio::task::spawn_blocking(web3_site).await.unwrap();
    let server = process::EthRpc::start(&["--block-time", "0.3"]).await;
    let ledger = Ledger::default();
    let account = ledger.address(3).unwrap();
    let url = format!("ws://{}/", server.http);
    let mut cmd = Command::new(python::PYTHON);
    cmd.arg(script("python/web3_ws.py"))
        .args([url, to_hex(account)])
        .env("PYTHONPATH", &site)
        .env("PYTHONNOUSERSITE", "1");
    let answer = tokio::task::spawn_blocking(move || run(cmd, "web3.py over WebSocket"))
        .await
        .unwrap();
    assert_consecutive(&answer["heads"], "web3.py");
    assert_eq!(
        answer["balance"],
        ledger.account(account).balance,
        "{answer}"
    );
    assert_eq!(answer["chain_id"], eth_rpc::CHAIN_ID, "{answer}");
    assert_eq!(answer["unsubscribed"], true, "{answer}");
    assert!(
        answer["subscription"].as_str().unwrap().starts_with("0x"),
        "{answer}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ethers_watches_blocks_over_websocket() {
    let node = tokio::task::spawn_blocking(|| {
        npm::install("ethers-6.17.0", &[ETHERS], "The Ethereum client tests")
    })
    .await
    .unwrap();
    let server = process::EthRpc::start(&["--block-time", "0.3"]).await;
    let ledger = Ledger::default();
    let address = ledger.address(4).unwrap();
    let url = format!("ws://{}/", server.http);
    let mut cmd = node.command(&script("node/ethers_ws.mjs"), &[&url, &to_hex(address)]);
    cmd.stderr(Stdio::piped());
    let answer = tokio::task::spawn_blocking(move || run(cmd, "ethers over WebSocket"))
        .await
        .unwrap();
    assert_consecutive(&answer["blocks"], "ethers");
    assert_eq!(
        answer["balance"],
        ledger.account(address).balance.to_string(),
        "{answer}"
    );
}

/// A path for an IPC socket of this test, in the temporary directory (a unix socket's
/// path is short: under 108 bytes), with the directory that holds it.
fn ipc_path(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new()
        .prefix("eth-rpc-ipc")
        .tempdir()
        .unwrap();
    let path = dir.path().join(format!("{name}.ipc"));
    (dir, path)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web3_py_reads_the_ledger_over_ipc() {
    let site = tokio::task::spawn_blocking(web3_site).await.unwrap();
    let (_dir, path) = ipc_path("web3");
    let server = process::EthRpc::start(&["--ipc-path", path.to_str().unwrap()]).await;
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&path).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600, "the socket file is its owner's only");
    let ledger = Ledger::default();
    let (first, second) = (ledger.address(0).unwrap(), ledger.address(1).unwrap());
    let mut cmd = Command::new(python::PYTHON);
    cmd.arg(script("python/web3_client.py"))
        .args([
            format!("ipc:{}", path.display()),
            to_hex(first),
            to_hex(second),
        ])
        .env("PYTHONPATH", &site)
        .env("PYTHONNOUSERSITE", "1");
    let answer = tokio::task::spawn_blocking(move || run(cmd, "web3.py over IPC"))
        .await
        .unwrap();
    let balance = ledger.account(first).balance;
    assert_eq!(answer["connected"], true, "{answer}");
    assert_eq!(answer["balance"], balance, "{answer}");
    assert_eq!(answer["chain_id"], eth_rpc::CHAIN_ID, "{answer}");
    assert_eq!(answer["block_number"], eth_rpc::HEAD_BLOCK, "{answer}");
    assert_eq!(
        answer["batch"],
        serde_json::json!([balance, ledger.account(second).balance]),
        "{answer}"
    );
    // SIGTERM drains it with the other listeners, and the socket file goes with it.
    let mut server = server;
    server.kill("TERM");
    assert!(server.wait().await.success());
    assert!(!path.exists(), "the socket file is removed on shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web3_py_subscribes_to_new_heads_over_ipc() {
    let site = tokio::task::spawn_blocking(web3_site).await.unwrap();
    let (_dir, path) = ipc_path("web3-heads");
    let server =
        process::EthRpc::start(&["--block-time", "0.3", "--ipc-path", path.to_str().unwrap()])
            .await;
    let ledger = Ledger::default();
    let account = ledger.address(3).unwrap();
    let mut cmd = Command::new(python::PYTHON);
    cmd.arg(script("python/web3_ws.py"))
        .args([format!("ipc:{}", path.display()), to_hex(account)])
        .env("PYTHONPATH", &site)
        .env("PYTHONNOUSERSITE", "1");
    let answer = tokio::task::spawn_blocking(move || run(cmd, "web3.py AsyncIPCProvider"))
        .await
        .unwrap();
    assert_consecutive(&answer["heads"], "web3.py over IPC");
    assert_eq!(
        answer["balance"],
        ledger.account(account).balance,
        "{answer}"
    );
    assert_eq!(answer["unsubscribed"], true, "{answer}");
    drop(server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ethers_watches_blocks_over_ipc() {
    let node = tokio::task::spawn_blocking(|| {
        npm::install("ethers-6.17.0", &[ETHERS], "The Ethereum client tests")
    })
    .await
    .unwrap();
    let (_dir, path) = ipc_path("ethers");
    let server =
        process::EthRpc::start(&["--block-time", "0.3", "--ipc-path", path.to_str().unwrap()])
            .await;
    let ledger = Ledger::default();
    let address = ledger.address(4).unwrap();
    let url = format!("ipc:{}", path.display());
    let mut cmd = node.command(&script("node/ethers_ws.mjs"), &[&url, &to_hex(address)]);
    cmd.stderr(Stdio::piped());
    let answer = tokio::task::spawn_blocking(move || run(cmd, "ethers IpcSocketProvider"))
        .await
        .unwrap();
    assert_consecutive(&answer["blocks"], "ethers over IPC");
    assert_eq!(
        answer["balance"],
        ledger.account(address).balance.to_string(),
        "{answer}"
    );
    drop(server);
}

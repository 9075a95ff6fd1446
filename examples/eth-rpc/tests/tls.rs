//! Both ports of the example over TLS, checked with real peers: Debian's `openssl
//! s_client` (no ML-KEM there, so it must get X25519), `curl --cacert` asking for a real
//! balance over HTTPS, and the generated client over ZAP/TCP getting X25519MLKEM768.
//! Certificates are made with rcgen in a temp dir. A missing `openssl` or `curl` FAILS
//! these tests: install them (`apt-get install openssl curl`).

use crate::pki;
use crate::support;

use std::process::Stdio;
use std::time::Duration;

use eth_rpc::eth::{BalanceRequest, EthClient};
use eth_rpc::ledger::{block_hash, Ledger};
use eth_rpc::Config;
use pki::Pki;
use serde_json::Value;
use support::Running;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::process::Command;
use zap_runtime::client::{Client, ClientConfig};
use zap_runtime::frame::{encode_frame, Direction};
use zap_runtime::json::to_hex;
use zap_runtime::rpc::Request;
use zap_runtime::server::ServerStats;
use zap_runtime::tls::{ClientTls, NamedGroup, ServerTls, TlsStats};
use zap_runtime::{Builder, ZapStruct};

/// What `eth-rpc --tls-cert server.pem --tls-key server.key [--tls-client-ca ca.pem]`
/// serves: one TLS configuration on both ports.
async fn start(pki: &Pki, client_ca: bool) -> Running {
    let mut tls = ServerTls::from_pem_files(pki.path("server.pem"), pki.path("server.key"));
    if client_ca {
        tls = tls.client_ca_pem_file(pki.path("ca.pem"));
    }
    let tls = tls
        .build()
        .expect("the test PKI makes a valid configuration");
    let mut config = Config::default();
    config.zap.tls = Some(tls.clone());
    config.http.tls = Some(tls);
    Running::start_with(config).await
}

/// Run `program` with `args`, write `input` to it, and read its stdout until `needle`
/// appears or it exits (at most 15 s); then end it. What it printed, stdout then
/// stderr. Panics (fails the test) when the program cannot be started.
async fn converse(program: &str, args: &[String], input: &[u8], needle: &[u8]) -> Vec<u8> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| {
            panic!("cannot run `{program}` ({e}): this test needs it; apt-get install {program}")
        });
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(input).await.expect("write to the program");
    drop(stdin);
    let mut stdout = child.stdout.take().expect("stdout");
    let mut out = Vec::new();
    let read = async {
        let mut chunk = [0u8; 4096];
        while !contains(&out, needle) {
            match stdout.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => out.extend_from_slice(&chunk[..n]),
            }
        }
    };
    let finished = tokio::time::timeout(Duration::from_secs(15), read).await;
    let _ = child.start_kill();
    let mut stderr = Vec::new();
    if let Some(mut err) = child.stderr.take() {
        let _ = tokio::time::timeout(Duration::from_secs(5), err.read_to_end(&mut stderr)).await;
    }
    let _ = child.wait().await;
    assert!(
        finished.is_ok(),
        "`{program}` neither answered nor exited within 15 s"
    );
    out.extend_from_slice(&stderr);
    out
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|w| w == needle)
}

/// `openssl s_client` verifying the server against the test CA, for `localhost`.
fn s_client(pki: &Pki, port: u16) -> Vec<String> {
    [
        "s_client",
        "-connect",
        &format!("127.0.0.1:{port}"),
        "-servername",
        "localhost",
        "-verify_hostname",
        "localhost",
        "-CAfile",
        &pki.path("ca.pem").display().to_string(),
        "-verify_return_error",
        "-tls1_3",
        "-ign_eof",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// What openssl says it agreed on: the server's key share group and a verified chain.
fn assert_openssl_got_x25519(out: &[u8]) {
    let text = String::from_utf8_lossy(out);
    assert!(
        text.contains("Server Temp Key: X25519,"),
        "openssl did not negotiate X25519:\n{text}"
    );
    assert!(text.contains("Verify return code: 0 (ok)"), "{text}");
    assert!(text.contains("TLSv1.3"), "{text}");
}

fn tls_counts(stats: &ServerStats) -> (u64, u64, u64, u64) {
    let TlsStats {
        completed,
        failed,
        x25519_mlkem768,
        x25519,
        ..
    } = stats.tls();
    (completed, failed, x25519_mlkem768, x25519)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openssl_s_client_gets_x25519_on_both_ports() {
    let pki = Pki::new();
    let server = start(&pki, false).await;

    // HTTPS: GET /health; the server closes after it (Connection: close).
    let get = b"GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
    let out = converse(
        "openssl",
        &s_client(&pki, server.http.port()),
        get,
        b"{\"status\":\"ok\"}",
    )
    .await;
    assert!(
        contains(&out, b"{\"status\":\"ok\"}"),
        "{}",
        String::from_utf8_lossy(&out)
    );
    assert_openssl_got_x25519(&out);
    // It was answered, so the server's side of the handshake is done and counted.
    assert_eq!(tls_counts(&server.http_stats), (1, 0, 0, 1));

    // ZAP/TCP: one eth_getBalance request frame through openssl, its answer back.
    let ledger = Ledger::default();
    let account = *ledger.address(0).expect("a seeded account");
    let payload = BalanceRequest {
        id: 1,
        block: 68943,
        account,
    }
    .to_bytes()
    .expect("encode");
    let mut b = Builder::new();
    let envelope = Request {
        method: 1,
        promise_id: 9,
        target: 0,
        cap: b"",
        payload: &payload,
    }
    .encode(&mut b)
    .expect("envelope");
    let mut frame = Vec::new();
    encode_frame(&mut frame, Direction::Request, envelope).expect("frame");
    let hash = block_hash(68943);
    let out = converse("openssl", &s_client(&pki, server.zap.port()), &frame, &hash).await;
    assert!(
        contains(&out, &hash),
        "no eth_getBalance answer over ZAP/TLS"
    );
    let balance = ledger.account(&account).balance.to_le_bytes();
    assert!(contains(&out, &balance), "the answer lacks the balance");
    assert_openssl_got_x25519(&out);
    assert_eq!(tls_counts(&server.zap_stats), (1, 0, 0, 1));
    server.stop().await;
}

/// `curl --cacert` over HTTPS: eth_getBalance, the command `--help` shows.
async fn curl(pki: &Pki, port: u16, extra: &[String]) -> (bool, Vec<u8>) {
    let address = to_hex(Ledger::default().address(0).expect("a seeded account"));
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["{address}","latest"]}}"#
    );
    let mut args: Vec<String> = [
        "-sS",
        "--max-time",
        "10",
        "--cacert",
        &pki.path("ca.pem").display().to_string(),
        "--resolve",
        &format!("localhost:{port}:127.0.0.1"),
        "-H",
        "Content-Type: application/json",
        "-d",
        &body,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend_from_slice(extra);
    args.push(format!("https://localhost:{port}/rpc"));
    let output = Command::new("curl").args(&args).kill_on_drop(true).output();
    let output = tokio::time::timeout(Duration::from_secs(15), output)
        .await
        .expect("curl ends within 15 s")
        .unwrap_or_else(|e| {
            panic!("cannot run `curl` ({e}): this test needs it; apt-get install curl")
        });
    let mut printed = output.stdout;
    if !output.status.success() {
        printed.extend_from_slice(&output.stderr);
    }
    (output.status.success(), printed)
}

fn assert_real_balance(printed: &[u8]) {
    let answer: Value = serde_json::from_slice(printed)
        .unwrap_or_else(|_| panic!("curl printed {}", String::from_utf8_lossy(printed)));
    let ledger = Ledger::default();
    let account = ledger.account(ledger.address(0).expect("a seeded account"));
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["result"], format!("{:#x}", account.balance));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn curl_cacert_gets_a_real_balance_over_https() {
    let pki = Pki::new();
    let server = start(&pki, false).await;
    let (ok, printed) = curl(&pki, server.http.port(), &[]).await;
    assert!(ok, "curl failed: {}", String::from_utf8_lossy(&printed));
    assert_real_balance(&printed);
    // curl (on OpenSSL 3.0) has no ML-KEM: the server agreed on X25519.
    assert_eq!(tls_counts(&server.http_stats), (1, 0, 0, 1));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_generated_client_gets_x25519mlkem768_over_zap() {
    let pki = Pki::new();
    let server = start(&pki, false).await;
    let tls = ClientTls::builder("localhost")
        .ca_pem_file(pki.path("ca.pem"))
        .build()
        .expect("client TLS");
    let config = ClientConfig {
        tls: Some(tls),
        ..ClientConfig::default()
    };
    let client = Client::connect_with(server.zap, config)
        .await
        .expect("connect");
    let eth = EthClient::new(client.clone());
    let ledger = Ledger::default();
    let account = *ledger.address(3).expect("a seeded account");
    let answer = eth
        .get_balance(&BalanceRequest {
            id: 4,
            block: 9,
            account,
        })
        .await
        .expect("a balance over ZAP/TLS");
    assert_eq!(answer.balance, ledger.account(&account).balance);
    let info = client.tls_info().expect("a TLS connection");
    assert_eq!(info.key_exchange, Some(NamedGroup::X25519MLKEM768));
    assert_eq!(tls_counts(&server.zap_stats), (1, 0, 1, 0));
    drop((eth, client));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_certificates_are_required_with_a_client_ca() {
    let pki = Pki::new();
    let server = start(&pki, true).await;
    let (ok, printed) = curl(&pki, server.http.port(), &[]).await;
    assert!(
        !ok,
        "served without a client certificate: {}",
        String::from_utf8_lossy(&printed)
    );
    let with_cert = [
        "--cert".to_string(),
        pki.path("client.pem").display().to_string(),
        "--key".to_string(),
        pki.path("client.key").display().to_string(),
    ];
    let (ok, printed) = curl(&pki, server.http.port(), &with_cert).await;
    assert!(
        ok,
        "curl with a client certificate failed: {}",
        String::from_utf8_lossy(&printed)
    );
    assert_real_balance(&printed);
    // curl may exit on the server's alert a moment before the server counts the
    // refusal: wait for the count (bounded), then check nothing else was counted.
    tokio::time::timeout(Duration::from_secs(5), async {
        while server.http_stats.tls().failed < 1 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the refused handshake is counted");
    let (completed, failed, ..) = tls_counts(&server.http_stats);
    assert_eq!((completed, failed), (1, 1));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_http_on_the_https_port_is_closed_and_https_still_served() {
    let pki = Pki::new();
    let server = start(&pki, false).await;
    let mut plain = TcpStream::connect(server.http).await.expect("connect");
    plain
        .write_all(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .expect("send");
    let mut got = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), plain.read_to_end(&mut got))
        .await
        .expect("closed within 10 s")
        .expect("an orderly close");
    assert!(
        !contains(&got, b"HTTP/1.1"),
        "answered in plaintext: {got:02x?}"
    );
    assert!(
        got.is_empty() || got[0] == 21,
        "not a TLS alert: {got:02x?}"
    );
    let (ok, printed) = curl(&pki, server.http.port(), &[]).await;
    assert!(ok, "{}", String::from_utf8_lossy(&printed));
    assert_real_balance(&printed);
    server.stop().await;
}

/// The `eth-rpc` binary with `args` on ports it picks; its ZAP and HTTP addresses read
/// off its "serving" log line, and the running child (killed when dropped).
async fn eth_rpc_binary(args: &[String]) -> (tokio::process::Child, u16, u16) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_eth-rpc"))
        .args(["--zap-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0"])
        .args(args)
        .env("RUST_LOG", "info")
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start eth-rpc");
    let mut lines = tokio::io::BufReader::new(child.stderr.take().expect("stderr")).lines();
    let serving = tokio::time::timeout(Duration::from_secs(15), async {
        while let Some(line) = lines.next_line().await.expect("read the log") {
            if line.contains("eth-rpc serving") {
                return line;
            }
        }
        panic!("eth-rpc exited before serving");
    })
    .await
    .expect("eth-rpc serves within 15 s");
    let port = |key: &str| -> u16 {
        serving
            .split_whitespace()
            .find_map(|word| word.strip_prefix(key))
            .and_then(|addr| addr.rsplit(':').next())
            .and_then(|port| port.parse().ok())
            .unwrap_or_else(|| panic!("no {key}PORT in {serving:?}"))
    };
    let (zap, http) = (port("zap="), port("http="));
    // Keep draining the log so the server never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, zap, http)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tls_flags_serve_both_ports_of_the_binary() {
    let pki = Pki::new();
    let flags = [
        "--tls-cert".to_string(),
        pki.path("server.pem").display().to_string(),
        "--tls-key".to_string(),
        pki.path("server.key").display().to_string(),
    ];
    let (mut child, zap, http) = eth_rpc_binary(&flags).await;
    let (ok, printed) = curl(&pki, http, &[]).await;
    assert!(ok, "curl failed: {}", String::from_utf8_lossy(&printed));
    assert_real_balance(&printed);
    let tls = ClientTls::builder("localhost")
        .ca_pem_file(pki.path("ca.pem"))
        .build()
        .expect("client TLS");
    let config = ClientConfig {
        tls: Some(tls),
        ..ClientConfig::default()
    };
    let client = Client::connect_with(("127.0.0.1", zap), config)
        .await
        .expect("ZAP over TLS to the binary");
    let account = *Ledger::default().address(0).expect("a seeded account");
    let answer = EthClient::new(client.clone())
        .get_balance(&BalanceRequest {
            id: 1,
            block: 1,
            account,
        })
        .await
        .expect("a balance");
    assert_eq!(answer.balance, Ledger::default().account(&account).balance);
    assert!(client.tls_info().expect("TLS").is_post_quantum());
    child.start_kill().expect("stop eth-rpc");
    let _ = child.wait().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tls_flags_are_checked_before_serving() {
    let run = |args: Vec<String>| async move {
        let output = Command::new(env!("CARGO_BIN_EXE_eth-rpc"))
            .args(["--zap-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0"])
            .args(args)
            .kill_on_drop(true)
            .output();
        tokio::time::timeout(Duration::from_secs(15), output)
            .await
            .expect("eth-rpc exits within 15 s")
            .expect("run eth-rpc")
    };
    // A certificate without its key is a usage error (clap's exit status 2).
    let alone = run(vec!["--tls-cert".into(), "server.pem".into()]).await;
    assert_eq!(alone.status.code(), Some(2), "{alone:?}");
    // A file that is not there: refused at start, naming the file.
    let pki = Pki::new();
    let missing = pki.path("missing.pem").display().to_string();
    let key = pki.path("server.key").display().to_string();
    let out = run(vec!["--tls-cert".into(), missing, "--tls-key".into(), key]).await;
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("missing.pem"), "{stderr}");
}

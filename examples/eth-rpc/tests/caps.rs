//! `eth-rpc --cap-trust FILE --cap-target HEX`, end to end with real parts: the Python
//! runtime (zap-proto[crypto] 1.4.1) mints the capability and calls the real binary over
//! ZAP/TCP with it (the README's example, `tests/python/cap_call.py`); the real `curl`
//! sends it as `Authorization: ZAP-Cap <base64>` to the JSON-RPC port. Without it, both
//! transports refuse with 401. A missing python3, pip or curl fails the test.

use crate::python_crypto;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use base64::Engine as _;
use eth_rpc::ledger::Ledger;
use serde_json::Value;
use zap_runtime::json::to_hex;

const SEED: [u8; 32] = [7; 32];
const TARGET: [u8; 32] = [0x42; 32];

/// The real binary, serving on ephemeral ports with capabilities required; its
/// addresses read from its own log line.
struct EthRpc {
    child: Child,
    zap: SocketAddr,
    http: SocketAddr,
    zaphttp: SocketAddr,
}

impl EthRpc {
    fn start(trust_file: &Path) -> EthRpc {
        let mut child = Command::new(env!("CARGO_BIN_EXE_eth-rpc"))
            .args(["--zap-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0"])
            .args(["--zaphttp-addr", "127.0.0.1:0"])
            .arg("--cap-trust")
            .arg(trust_file)
            .args(["--cap-target", &hex::encode(TARGET)])
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run the eth-rpc binary");
        let stderr = child.stderr.take().expect("piped stderr");
        let mut lines = BufReader::new(stderr).lines();
        let addr = |line: &str, key: &str| -> Option<SocketAddr> {
            line.split_whitespace()
                .find_map(|word| word.strip_prefix(key))
                .and_then(|a| a.parse().ok())
        };
        // The log line "eth-rpc serving ... zap=ADDR http=ADDR" comes once both listen.
        let (zap, http, zaphttp) = loop {
            let line = lines
                .next()
                .expect("eth-rpc exited before serving")
                .expect("read eth-rpc's log");
            if line.contains("eth-rpc serving") {
                break (
                    addr(&line, "zap=").expect("zap address in the log"),
                    addr(&line, "http=").expect("http address in the log"),
                    addr(&line, "zaphttp=").expect("zaphttp address in the log"),
                );
            }
        };
        // Keep draining the log so the server never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        EthRpc {
            child,
            zap,
            http,
            zaphttp,
        }
    }
}

impl Drop for EthRpc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The JSON-RPC answer to `body` posted to `/rpc` over zaphttp, with `authorization`.
fn over_zaphttp(addr: SocketAddr, body: &str, authorization: Option<String>) -> Value {
    use http_body_util::BodyExt as _;
    use zap_runtime::zaphttp::{Body, Client};
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut request = http::Request::post("/rpc").header("content-type", "application/json");
        if let Some(authorization) = authorization {
            request = request.header("authorization", authorization);
        }
        let request = request.body(Body::from(body.to_owned())).unwrap();
        let answer = Client::new(addr.to_string().as_str())
            .send(request)
            .await
            .expect("an answer over zaphttp");
        let body = answer.into_body().collect().await.unwrap().to_bytes();
        serde_json::from_slice(&body).unwrap()
    })
}

fn curl(url: &str, body: &str, authorization: Option<String>) -> Value {
    let mut cmd = Command::new("curl");
    cmd.args([
        "-sS",
        "--max-time",
        "10",
        "-H",
        "Content-Type: application/json",
    ]);
    if let Some(auth) = authorization {
        cmd.args(["-H", &format!("Authorization: {auth}")]);
    }
    let out = cmd
        .args(["-d", body, url])
        .output()
        .unwrap_or_else(|e| panic!("cannot run curl ({e}): install it (apt-get install curl)"));
    assert!(
        out.status.success(),
        "curl: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("curl printed JSON")
}

#[test]
fn python_minted_capability_opens_both_transports() {
    let py = python_crypto::zap_proto_crypto();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/cap_call.py");
    let run = |args: &[String]| -> Value {
        let out = py
            .command()
            .arg(&script)
            .args(args)
            .output()
            .expect("run python3");
        assert!(
            out.status.success(),
            "cap_call.py: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("cap_call.py prints JSON")
    };
    let minted = run(&["mint".into(), hex::encode(SEED), hex::encode(TARGET)]);
    let dir = tempfile::tempdir().unwrap();
    let trust = dir.path().join("issuers.txt");
    std::fs::write(
        &trust,
        format!(
            "# issuers of eth-rpc capabilities\n{}\n",
            minted["trust"].as_str().unwrap()
        ),
    )
    .unwrap();
    let cap_hex = minted["cap"].as_str().unwrap().to_owned();
    let server = EthRpc::start(&trust);

    let ledger = Ledger::default();
    let known = ledger.address(3).unwrap();
    let accounts = [to_hex(known), format!("0x{}", "77".repeat(20))];
    let call = |cap: &str| {
        let mut args = vec![
            "call".into(),
            server.zap.ip().to_string(),
            server.zap.port().to_string(),
            cap.to_owned(),
        ];
        args.extend(accounts.iter().cloned());
        run(&args)
    };

    // ZAP/TCP, the capability in every call's Cap field.
    let answers = call(&cap_hex);
    assert_eq!(answers[0]["status"], 200, "{answers}");
    assert_eq!(answers[0]["balance"], ledger.account(known).balance);
    assert_eq!(answers[0]["nonce"], ledger.account(known).nonce);
    assert_eq!(
        (
            answers[1]["status"].as_u64(),
            answers[1]["balance"].as_u64()
        ),
        (Some(200), Some(0))
    );
    // Without one: 401, saying why.
    let refused = call("");
    for answer in refused.as_array().unwrap() {
        assert_eq!(answer["status"], 401, "{refused}");
        assert!(
            answer["error"]
                .as_str()
                .unwrap()
                .starts_with("unauthorized:"),
            "{refused}"
        );
    }

    // JSON-RPC over HTTP with the same capability.
    let url = format!("http://{}/rpc", server.http);
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["{}","latest"]}}"#,
        to_hex(known)
    );
    let token = base64::engine::general_purpose::STANDARD.encode(hex::decode(&cap_hex).unwrap());
    let answer = curl(&url, &body, Some(format!("ZAP-Cap {token}")));
    assert_eq!(
        answer["result"],
        format!("{:#x}", ledger.account(known).balance),
        "{answer}"
    );
    let answer = curl(&url, &body, None);
    assert_eq!(answer["error"]["code"], -32001, "{answer}");
    let answer = curl(&url, &body, Some(format!("Bearer {token}")));
    assert_eq!(answer["error"]["code"], -32001, "{answer}");
    // The same rules over zaphttp.
    let answer = over_zaphttp(server.zaphttp, &body, Some(format!("ZAP-Cap {token}")));
    assert_eq!(
        answer["result"],
        format!("{:#x}", ledger.account(known).balance),
        "{answer}"
    );
    let answer = over_zaphttp(server.zaphttp, &body, None);
    assert_eq!(answer["error"]["code"], -32001, "{answer}");

    // A capability the same trusted issuer minted for another service: refused for every
    // method, listed or not, and for the service's description, on both transports.
    let other = run(&["mint".into(), hex::encode(SEED), hex::encode([0x43u8; 32])]);
    let other_hex = other["cap"].as_str().unwrap().to_owned();
    let other_token =
        base64::engine::general_purpose::STANDARD.encode(hex::decode(&other_hex).unwrap());
    for method in [
        "eth_getBalance",
        "eth_chainId",
        "eth_noSuchMethod",
        "rpc.discover",
    ] {
        let params = if method == "eth_getBalance" {
            format!(r#"["{}","latest"]"#, to_hex(known))
        } else {
            "[]".to_owned()
        };
        let body = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{params}}}"#);
        let answer = curl(&url, &body, Some(format!("ZAP-Cap {other_token}")));
        assert_eq!(answer["error"]["code"], -32003, "{method}: {answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains("target"),
            "{method}: {answer}"
        );
    }
    for answer in call(&other_hex).as_array().unwrap() {
        assert_eq!(answer["status"], 403, "{answer}");
    }
    // The right capability reads the description; an unknown name is then -32601.
    let discover = r#"{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}"#;
    let answer = curl(&url, discover, Some(format!("ZAP-Cap {token}")));
    assert_eq!(answer["result"]["info"]["title"], "eth", "{answer}");
    let unknown = r#"{"jsonrpc":"2.0","id":1,"method":"eth_noSuchMethod"}"#;
    let answer = curl(&url, unknown, Some(format!("ZAP-Cap {token}")));
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    // Over ZAP, an ordinal the service's policy does not name is refused (403), for
    // either capability: the table fails closed.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for cap in [&cap_hex, &other_hex] {
        let status = runtime.block_on(async {
            let config = zap_runtime::client::ClientConfig {
                cap: hex::decode(cap).unwrap(),
                ..Default::default()
            };
            let client = zap_runtime::client::Client::connect_with(server.zap, config)
                .await
                .unwrap();
            let (status, body) = client
                .call_raw(99, zap_runtime::rpc::NO_TARGET, b"")
                .await
                .unwrap();
            (status.0, String::from_utf8_lossy(&body).into_owned())
        });
        assert_eq!(status.0, 403, "{status:?}");
        assert!(status.1.starts_with("forbidden: "), "{status:?}");
    }
}

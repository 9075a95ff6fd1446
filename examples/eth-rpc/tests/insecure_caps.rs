//! Capabilities are bearer tokens: the real binary refuses `--cap-trust` without TLS on
//! an address other than loopback, unless the operator says `--allow-insecure-caps`.

use crate::process;

use std::process::Command;

use process::EthRpc;
use zap_runtime::cap::{trust_file_line, Scheme, SigningKey};

fn trust_file(dir: &tempfile::TempDir) -> String {
    let key = SigningKey::from_secret(Scheme::Ed25519, &[7; 32]).unwrap();
    let path = dir.path().join("issuers.txt");
    std::fs::write(&path, trust_file_line(key.public_key()) + "\n").unwrap();
    path.to_str().unwrap().to_owned()
}

#[test]
fn caps_without_tls_off_loopback_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let trust = trust_file(&dir);
    let target = "42".repeat(32);
    for (zap, http) in [("0.0.0.0:0", "127.0.0.1:0"), ("127.0.0.1:0", "0.0.0.0:0")] {
        let out = Command::new(env!("CARGO_BIN_EXE_eth-rpc"))
            .args(["--zap-addr", zap, "--http-addr", http])
            .args(["--cap-trust", &trust, "--cap-target", &target])
            .output()
            .unwrap();
        let log = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{zap} {http}: {log}");
        assert!(
            log.contains("capabilities in clear text to 0.0.0.0:0"),
            "{log}"
        );
        assert!(log.contains("--allow-insecure-caps"), "{log}");
    }
}

#[tokio::test]
async fn the_operator_can_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let trust = trust_file(&dir);
    let target = "42".repeat(32);
    let server = EthRpc::start_on(
        "0.0.0.0:0",
        "127.0.0.1:0",
        &[
            "--cap-trust",
            &trust,
            "--cap-target",
            &target,
            "--allow-insecure-caps",
        ],
    )
    .await;
    // Serving: the readiness check answers over loopback.
    assert_eq!(server.get("/health").await, Some(200));
}

//! ZAP on a unix socket (`server::UnixServer`, `Client::connect_unix`): calls on both
//! framings, many in flight on one connection, cancellation, counters, the socket
//! file's mode and its removal on shutdown.

use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;
use std::time::Duration;

use zap_runtime::client::{Client, ClientConfig};
use zap_runtime::frame::Framing;
use zap_runtime::server::{CancellationToken, ServerConfig, UnixServer};
use zap_runtime::Transport;

use crate::server_support::{pair, quick_config, value, Calc, ADD, GATED};

#[tokio::test]
async fn calls_on_both_framings_and_the_socket_file() {
    let dir = tempfile::Builder::new()
        .prefix("zap-unix")
        .tempdir()
        .unwrap();
    let path = dir.path().join("calc.sock");
    let calc = Calc::default();
    let gate = Arc::clone(&calc.gate);
    let server = UnixServer::bind(&path, Arc::new(calc), quick_config()).unwrap();
    let stats = server.stats();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let stop = CancellationToken::new();
    let task = tokio::spawn(server.run(stop.clone()));

    for framing in [Framing::Rpc, Framing::Node] {
        let config = ClientConfig {
            framing,
            ..ClientConfig::default()
        };
        let client = Client::connect_unix(&path, config).await.unwrap();
        // Many in flight on the one connection.
        let calls = (0..32u64).map(|i| {
            let client = client.clone();
            async move { value(&client.call(ADD, &pair(i, 1)).await.unwrap()) }
        });
        let answers = futures_util::future::join_all(calls).await;
        assert_eq!(answers, (1..=32).collect::<Vec<u64>>(), "{framing:?}");
    }

    // A call held in its handler does not hold up the calls after it.
    let client = Client::connect_unix(&path, ClientConfig::default())
        .await
        .unwrap();
    let held = tokio::spawn({
        let client = client.clone();
        async move { value(&client.call(GATED, &pair(7, 0)).await.unwrap()) }
    });
    gate.entered().await;
    assert_eq!(value(&client.call(ADD, &pair(2, 3)).await.unwrap()), 5);
    gate.release();
    assert_eq!(held.await.unwrap(), 7);
    assert!(stats.accepted() >= 3, "{}", stats.accepted());
    assert!(stats.bytes_in() > 0);

    stop.cancel();
    tokio::time::timeout(Duration::from_secs(10), task)
        .await
        .expect("the server stops within 10 s")
        .unwrap()
        .unwrap();
    assert!(!path.exists(), "the socket file is removed on shutdown");
}

#[tokio::test]
async fn a_live_socket_is_not_taken_and_a_missing_one_is_named() {
    let dir = tempfile::Builder::new()
        .prefix("zap-unix")
        .tempdir()
        .unwrap();
    let path = dir.path().join("calc.sock");
    let _server =
        UnixServer::bind(&path, Arc::new(Calc::default()), ServerConfig::default()).unwrap();
    let again =
        UnixServer::bind(&path, Arc::new(Calc::default()), ServerConfig::default()).unwrap_err();
    assert_eq!(again.kind(), std::io::ErrorKind::AddrInUse, "{again}");
    let missing = Client::connect_unix(dir.path().join("nobody.sock"), ClientConfig::default())
        .await
        .unwrap_err();
    assert!(missing.to_string().contains("nobody.sock"), "{missing}");
}

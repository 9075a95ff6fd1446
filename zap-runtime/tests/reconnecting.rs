//! The reconnecting client over QUIC: a server that drains and comes back on the same
//! port loses no call of an idempotent method, the health watch sees the drain before
//! the connection closes, and a call of a method not declared idempotent is never sent
//! again.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use zap_runtime::client::{ReconnectConfig, Reconnecting, Retry};
use zap_runtime::quic::{QuicClientConfig, QuicConfig};
use zap_runtime::shutdown::Readiness;
use zap_runtime::Transport;

use crate::quic_support::{client_tls, QuicTest};
use crate::server_support::{pair, until, value, Calc, ADD, DOUBLE};

#[tokio::test]
async fn quic_calls_of_idempotent_methods_survive_a_server_restart() {
    let pki = crate::pki::Pki::new();
    let readiness = Readiness::new();
    let config = || QuicConfig {
        readiness: readiness.clone(),
        ..QuicConfig::default()
    };
    let server = QuicTest::any_port(&pki, Arc::new(Calc::default()), config());
    let addr = server.addr;
    let conn = Reconnecting::quic(
        addr,
        client_tls(&pki),
        QuicClientConfig::default(),
        ReconnectConfig {
            backoff_max: Duration::from_millis(300),
            retry: Retry::idempotent(&[ADD], 40),
            ..ReconnectConfig::default()
        },
    );
    assert!(conn.connected(Duration::from_secs(5)).await);
    until("the health watch says serving", || conn.is_serving()).await;

    // Callers that call until told to stop, each checking every answer.
    let (answered, failed, done) = (
        Arc::new(AtomicU64::new(0)),
        Arc::new(AtomicU64::new(0)),
        Arc::new(AtomicBool::new(false)),
    );
    let callers: Vec<_> = (0..4u64)
        .map(|caller| {
            let (conn, answered, failed, done) =
                (conn.clone(), answered.clone(), failed.clone(), done.clone());
            tokio::spawn(async move {
                let mut n = 0u64;
                while !done.load(Ordering::Relaxed) {
                    match conn.call(ADD, &pair(caller, n)).await {
                        Ok(body) => {
                            assert_eq!(value(&body), caller + n, "caller {caller}, call {n}");
                            answered.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(e) => {
                            eprintln!("caller {caller}, call {n}: {e}");
                            failed.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    n += 1;
                }
            })
        })
        .collect();
    until("calls are answered", || {
        answered.load(Ordering::Relaxed) > 200
    })
    .await;

    // The drain: the watch sees it, then the server closes.
    readiness.set_draining();
    until("the client sees the drain", || !conn.is_serving()).await;
    server.stop().await;
    until("the client sees the connection close", || {
        !conn.is_connected()
    })
    .await;

    // While there is no server: a call of a method not declared idempotent fails at
    // once; the callers' calls wait for the next connection.
    let err = conn.call(DOUBLE, &pair(21, 0)).await.unwrap_err();
    assert!(err.to_string().contains("not connected"), "{err}");

    // The server comes back on the same port (a new process would have a new readiness).
    let again = QuicTest::start(&pki, addr, Arc::new(Calc::default()), QuicConfig::default());
    let before = answered.load(Ordering::Relaxed);
    until("calls are answered again", || {
        answered.load(Ordering::Relaxed) > before + 200
    })
    .await;
    assert_eq!(value(&conn.call(DOUBLE, &pair(21, 0)).await.unwrap()), 42);
    done.store(true, Ordering::Relaxed);
    for caller in callers {
        caller.await.unwrap();
    }
    assert_eq!(failed.load(Ordering::Relaxed), 0, "no call of ADD failed");
    again.stop().await;
}

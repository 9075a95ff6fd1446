//! The load generator against every server it measures, in-process on port 0 and for a
//! few hundred requests: it accepts correct answers from each (and the baselines' echo
//! and fixed body), and it fails a run when the server answers wrongly.

#[path = "../../zap-runtime/tests/tls_support/pki.rs"]
mod pki;

use tokio::net::TcpListener;
use zap_benches::load::baseline::{serve_echo, serve_fixed_http};
use zap_benches::load::{run, LoadConfig, Target};

fn config(target: Target, addr: std::net::SocketAddr, depth: usize) -> LoadConfig {
    LoadConfig::short_run(target, addr, depth)
}

async fn check(target: Target, addr: std::net::SocketAddr) {
    for depth in [1, 8] {
        let report = run(&config(target, addr, depth)).await.unwrap();
        assert_eq!(report.requests, 300, "{target:?} depth {depth}");
        assert_eq!(report.checked, 300);
        assert!(report.p50_us > 0.0 && report.p50_us <= report.p999_us);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drives_the_example_server_and_the_baselines() {
    let servers = eth_rpc::Servers::bind(eth_rpc::Config {
        zap_addr: "127.0.0.1:0".parse().unwrap(),
        http_addr: "127.0.0.1:0".parse().unwrap(),
        ..Default::default()
    })
    .await
    .unwrap();
    let (zap, http) = (servers.zap_addr(), servers.http_addr());
    tokio::spawn(servers.serve(std::future::pending()));
    let echo = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let echo_addr = echo.local_addr().unwrap();
    tokio::spawn(serve_echo(echo));
    let fixed = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let fixed_addr = fixed.local_addr().unwrap();
    tokio::spawn(serve_fixed_http(fixed));

    let floor = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let floor_addr = floor.local_addr().unwrap();
    tokio::spawn(zap_benches::peers::floor::serve(floor));
    let mirror = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let mirror_addr = mirror.local_addr().unwrap();
    tokio::spawn(zap_benches::peers::echo::serve(mirror));

    check(Target::Zap, zap).await;
    check(Target::ZapClient, zap).await;
    check(Target::Zap, floor_addr).await;
    check(Target::ZapRpcEcho, mirror_addr).await;
    check(Target::Http, http).await;
    check(Target::ZapEcho, echo_addr).await;
    check(Target::HttpFixed, fixed_addr).await;

    // The same axum Router over zaphttp (depth 1: no pipelining) and over HTTP/1.1.
    let zaphttp = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let zaphttp_addr = zaphttp.local_addr().unwrap();
    let shutdown = zap_runtime::server::CancellationToken::new();
    let app = zap_benches::http_echo::app();
    tokio::spawn(zap_runtime::zaphttp::serve(
        zaphttp,
        app,
        Default::default(),
        shutdown,
    ));
    let report = run(&config(Target::ZapHttp, zaphttp_addr, 1))
        .await
        .unwrap();
    assert_eq!(report.checked, 300);
    let err = run(&config(Target::ZapHttp, zaphttp_addr, 2))
        .await
        .unwrap_err();
    assert!(err.contains("--depth 1"), "{err}");
    let http1 = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let http1_addr = http1.local_addr().unwrap();
    tokio::spawn(zap_benches::http_echo::serve_http1(
        http1,
        zap_benches::http_echo::app(),
    ));
    check(Target::HttpEcho, http1_addr).await;
    // An answer that is not the request's body fails the run.
    let err = run(&config(Target::HttpEcho, fixed_addr, 1))
        .await
        .unwrap_err();
    assert!(err.contains("want 200 with"), "{err}");

    // Wrong answers fail the run: the echo is no eth_getBalance answer, and the
    // example server's answers are not the fixed body.
    let err = run(&config(Target::Zap, echo_addr, 2)).await.unwrap_err();
    assert!(err.contains("Request frame"), "{err}");
    let err = run(&config(Target::HttpFixed, http, 2)).await.unwrap_err();
    assert!(err.contains("unexpected body"), "{err}");
    // An echo is no balance, and a balance is no echo.
    let err = run(&config(Target::ZapClient, mirror_addr, 2))
        .await
        .unwrap_err();
    assert!(err.contains("got (id, balance)"), "{err}");
    let err = run(&config(Target::ZapRpcEcho, zap, 2)).await.unwrap_err();
    assert!(err.contains("echo of request"), "{err}");
    // At a fixed rate every call is still sent and checked.
    let paced = LoadConfig {
        rate: Some(3000.0),
        ..config(Target::ZapClient, zap, 2)
    };
    let report = run(&paced).await.unwrap();
    assert_eq!((report.requests, report.checked), (300, 300));
    let refused = run(&config(Target::Zap, "127.0.0.1:1".parse().unwrap(), 1)).await;
    assert!(refused.is_err());
}

/// `--tls-ca`: the same checked load over TLS to the example server's ZAP port.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drives_the_example_server_over_tls() {
    use zap_runtime::tls::{ClientTls, ServerTls};
    let pki = pki::Pki::new();
    let mut server_config = eth_rpc::Config {
        zap_addr: "127.0.0.1:0".parse().unwrap(),
        http_addr: "127.0.0.1:0".parse().unwrap(),
        ..Default::default()
    };
    server_config.zap.tls = Some(
        ServerTls::from_pem_files(pki.path("server.pem"), pki.path("server.key"))
            .build()
            .unwrap(),
    );
    let servers = eth_rpc::Servers::bind(server_config).await.unwrap();
    let zap = servers.zap_addr();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(servers.serve(async move {
        let _ = stopped.await;
    }));
    let tls = ClientTls::builder("localhost")
        .ca_pem_file(pki.path("ca.pem"))
        .build()
        .unwrap();
    for depth in [1, 8] {
        let load = LoadConfig {
            tls: Some(tls.clone()),
            ..config(Target::Zap, zap, depth)
        };
        let report = run(&load).await.unwrap();
        assert_eq!(
            (report.requests, report.checked),
            (300, 300),
            "depth {depth}"
        );
    }
    // Without TLS the server closes the connection: the run fails, never reads plaintext.
    assert!(run(&config(Target::Zap, zap, 1)).await.is_err());
    let _ = stop.send(());
    task.await.unwrap().unwrap();
}

//! The methods every server answers beside its service's own (`zap_runtime::builtin`):
//! reflection and health, on real sockets over ZAP/TCP and QUIC, under a capability
//! policy, and through a drain.

use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use zap_runtime::builtin::{self, HealthStatus};
use zap_runtime::cap::Policy;
use zap_runtime::client::{Client, ClientConfig};
use zap_runtime::rpc::Status;
use zap_runtime::server::{CancellationToken, Server, ServerConfig};
use zap_runtime::shutdown::Readiness;
use zap_runtime::{Authorizer, ClientError, Service, Transport};

use crate::server_support::Calc;

/// `Calc` over ZAP/TCP with `config`: its address and the token that stops it.
async fn serve(config: ServerConfig) -> (std::net::SocketAddr, CancellationToken) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    tokio::spawn(Server::new(listener, Arc::new(Calc::default()), config).run(stop.clone()));
    (addr, stop)
}

#[tokio::test]
async fn describes_the_service_and_its_methods() {
    let (addr, stop) = serve(ServerConfig::default()).await;
    let client = Client::connect(addr).await.unwrap();
    let description = builtin::describe(&client).await.unwrap();
    assert!(
        description.runtime.starts_with("zap-runtime "),
        "{description:?}"
    );
    let [service] = description.services.as_slice() else {
        panic!("one service: {description:?}")
    };
    assert_eq!(service.name, Calc::NAME);
    let methods: Vec<(u32, &str)> = service
        .methods
        .iter()
        .map(|m| (m.ordinal, m.name.as_str()))
        .collect();
    let expected: Vec<(u32, &str)> = Calc::METHODS.iter().map(|m| (m.ordinal, m.name)).collect();
    assert_eq!(methods, expected);
    // Written by hand, Calc embeds no schema: reflection says so with empty files.
    assert!(service.files.is_empty() && service.schema_hash.is_empty());
    // The service still answers its own methods on the same connection.
    assert_eq!(
        crate::server_support::value(
            &client
                .call(1, &crate::server_support::pair(2, 3))
                .await
                .unwrap()
        ),
        5
    );
    stop.cancel();
}

#[tokio::test]
async fn health_follows_the_readiness_and_the_watch_sees_the_drain_begin() {
    let readiness = Readiness::new();
    let (addr, stop) = serve(ServerConfig {
        readiness: readiness.clone(),
        ..ServerConfig::default()
    })
    .await;
    let client = Client::connect(addr).await.unwrap();
    assert_eq!(
        builtin::check(&client, "").await.unwrap(),
        HealthStatus::Serving
    );
    assert_eq!(
        builtin::check(&client, Calc::NAME).await.unwrap(),
        HealthStatus::Serving
    );
    assert_eq!(
        builtin::check(&client, "Other").await.unwrap(),
        HealthStatus::ServiceUnknown
    );
    let mut watch = builtin::watch(&client, "").await.unwrap();
    assert_eq!(watch.next().await.unwrap(), Some(HealthStatus::Serving));
    readiness.set_draining();
    assert_eq!(watch.next().await.unwrap(), Some(HealthStatus::NotServing));
    assert_eq!(
        builtin::check(&client, "").await.unwrap(),
        HealthStatus::NotServing
    );
    // Still accepting: draining is what comes before the listener closes.
    Client::connect(addr)
        .await
        .expect("still accepts while draining");
    stop.cancel();
    // The stream ends with the connection when the server stops.
    let ended = tokio::time::timeout(Duration::from_secs(20), watch.next()).await;
    assert!(
        matches!(ended, Ok(Ok(None)) | Ok(Err(_))),
        "the watch ends when the server stops: {ended:?}"
    );
}

/// Without a shared readiness (no readiness grace), the server marks itself draining as
/// it stops, in the same moment its connections end their streams: a watch sees
/// "not serving" or its end, never "serving" again.
#[tokio::test]
async fn a_server_stopped_without_a_grace_ends_its_watches() {
    let (addr, stop) = serve(ServerConfig::default()).await;
    let client = Client::connect(addr).await.unwrap();
    let mut watch = builtin::watch(&client, "").await.unwrap();
    assert_eq!(watch.next().await.unwrap(), Some(HealthStatus::Serving));
    stop.cancel();
    loop {
        match watch.next().await {
            Ok(Some(HealthStatus::NotServing)) => continue,
            Ok(None) | Err(_) => break,
            Ok(Some(other)) => panic!("after the stop: {other}"),
        }
    }
}

#[tokio::test]
async fn watch_is_a_stream_and_check_is_a_call() {
    let (addr, stop) = serve(ServerConfig::default()).await;
    let client = Client::connect(addr).await.unwrap();
    match client.call(builtin::HEALTH_WATCH, b"").await {
        Err(ClientError::Status { status, message }) => {
            assert_eq!(status, Status::BAD_REQUEST);
            assert!(message.contains("stream method"), "{message}");
        }
        other => panic!("Watch called as a call: {other:?}"),
    }
    // A reserved ordinal that names nothing is unknown, as any other.
    match client.call(0xFFFF_FF7F, b"").await {
        Err(ClientError::Status { status, .. }) => assert_eq!(status, Status::NOT_FOUND),
        other => panic!("an unused reserved ordinal: {other:?}"),
    }
    // A request that is not a HealthRequest.
    match client.call(builtin::HEALTH_CHECK, b"not a message").await {
        Err(ClientError::Status { status, message }) => {
            assert_eq!(status, Status::BAD_REQUEST);
            assert!(message.contains("HealthRequest"), "{message}");
        }
        other => panic!("a malformed health request: {other:?}"),
    }
    stop.cancel();
}

#[tokio::test]
async fn under_a_policy_reflection_and_health_need_a_grant() {
    use zap_runtime::cap::{issue, Issuance, Scheme, SigningKey};
    let key = SigningKey::from_secret(Scheme::Ed25519, &[7; 32]).unwrap();
    let target = [0x42; 32];
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let cap = |bits: u64| {
        issue(
            &Issuance {
                kind: 1,
                target,
                holder: [0x11; 32],
                permissions: bits,
                issued_at: now - 60,
                expires_at: now + 3600,
                ..Default::default()
            },
            &key,
        )
        .unwrap()
    };
    // The policy grants Describe to holders of bit 0b1000 and Check to any valid
    // capability; Watch is not in its table.
    let policy = Policy::builder(target)
        .trust(key.public_key().clone())
        .methods(Calc::METHODS)
        .method(builtin::DESCRIBE, 0b1000)
        .method(builtin::HEALTH_CHECK, 0)
        .build();
    let (addr, stop) = serve(ServerConfig {
        authorize: Some(Authorizer::new(policy)),
        ..ServerConfig::default()
    })
    .await;
    let with = |cap: Vec<u8>| {
        Client::connect_with(
            addr,
            ClientConfig {
                cap,
                ..ClientConfig::default()
            },
        )
    };
    let status_of = |result: Result<_, ClientError>| match result {
        Err(ClientError::Status { status, .. }) => status.0,
        Ok(_) => 200,
        Err(e) => panic!("{e}"),
    };
    let nobody = with(Vec::new()).await.unwrap();
    assert_eq!(status_of(builtin::describe(&nobody).await.map(|_| ())), 401);
    assert_eq!(
        status_of(builtin::check(&nobody, "").await.map(|_| ())),
        401
    );
    let reader = with(cap(0b0001)).await.unwrap();
    assert_eq!(status_of(builtin::describe(&reader).await.map(|_| ())), 403);
    assert_eq!(
        status_of(builtin::check(&reader, "").await.map(|_| ())),
        200
    );
    let admin = with(cap(0b1001)).await.unwrap();
    assert_eq!(status_of(builtin::describe(&admin).await.map(|_| ())), 200);
    // Watch is refused to everyone: its open is ended at once, without a status.
    let mut watch = builtin::watch(&admin, "").await.unwrap();
    assert!(
        !matches!(watch.next().await, Ok(Some(_))),
        "a watch the policy does not grant sends nothing"
    );
    stop.cancel();
}

#[tokio::test]
async fn over_quic_as_over_tcp() {
    use crate::quic_support::{client_tls, QuicTest};
    use zap_runtime::quic::{QuicClient, QuicClientConfig, QuicConfig};
    let pki = crate::pki::Pki::new();
    let readiness = Readiness::new();
    let server = QuicTest::any_port(
        &pki,
        Arc::new(Calc::default()),
        QuicConfig {
            readiness: readiness.clone(),
            ..QuicConfig::default()
        },
    );
    let client = QuicClient::connect(server.addr, &client_tls(&pki), QuicClientConfig::default())
        .await
        .unwrap();
    let description = builtin::describe(&client).await.unwrap();
    assert_eq!(description.services[0].name, Calc::NAME);
    assert_eq!(
        builtin::check(&client, "").await.unwrap(),
        HealthStatus::Serving
    );
    let mut watch = builtin::watch(&client, "").await.unwrap();
    assert_eq!(watch.next().await.unwrap(), Some(HealthStatus::Serving));
    readiness.set_draining();
    assert_eq!(watch.next().await.unwrap(), Some(HealthStatus::NotServing));
    // The shutdown ends the stream at once (the drain waits for calls, not streams:
    // its timeout is 10 s).
    let stopped = tokio::spawn(server.stop());
    let ended = tokio::time::timeout(Duration::from_secs(5), watch.next())
        .await
        .expect("the watch ends when the shutdown begins");
    assert!(matches!(ended, Ok(None)), "{ended:?}");
    stopped.await.unwrap();
    client.close().await;
}

//! The ZAP/TCP server and client over TLS with real certificates (made with rcgen in a
//! temp dir): the post-quantum hybrid by default, the classical fallback, TLS 1.2 only
//! when allowed, client certificates, and hostile peers that never get past the
//! handshake while a good TLS client keeps being served.

use crate::pki;
use crate::server_support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use pki::Pki;
use server_support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use zap_runtime::client::{Client, ClientConfig};
use zap_runtime::server::ServerConfig;
use zap_runtime::tls::{
    rustls, ClientTls, ClientTlsBuilder, KeyExchange, NamedGroup, ProtocolVersion, ServerTls,
    ServerTlsBuilder, TlsStats,
};
use zap_runtime::Transport;

fn server_tls(pki: &Pki) -> ServerTlsBuilder {
    ServerTls::from_pem_files(pki.path("server.pem"), pki.path("server.key"))
}

fn client_tls(pki: &Pki) -> ClientTlsBuilder {
    ClientTls::builder("localhost").ca_pem_file(pki.path("ca.pem"))
}

async fn start(tls: ServerTls) -> TestServer {
    TestServer::start(ServerConfig {
        tls: Some(tls),
        ..quick_config()
    })
    .await
}

async fn connect(addr: SocketAddr, tls: ClientTls) -> std::io::Result<Client> {
    let config = ClientConfig {
        tls: Some(tls),
        connect_timeout: Duration::from_secs(5),
        ..ClientConfig::default()
    };
    Client::connect_with(addr, config).await
}

/// One call that must be answered correctly.
async fn add(client: &Client, a: u64) {
    let body = tokio::time::timeout(Duration::from_secs(5), client.call(ADD, &pair(a, 1)))
        .await
        .expect("an answer within 5 s")
        .expect("the call succeeds");
    assert_eq!(value(&body), a + 1);
}

#[tokio::test]
async fn the_project_client_negotiates_x25519mlkem768() {
    let pki = Pki::new();
    let server = start(server_tls(&pki).build().unwrap()).await;
    let client = connect(server.addr, client_tls(&pki).build().unwrap())
        .await
        .expect("TLS connect");
    add(&client, 41).await;
    let info = client.tls_info().expect("a TLS connection");
    assert_eq!(info.key_exchange, Some(NamedGroup::X25519MLKEM768));
    assert!(info.is_post_quantum());
    assert_eq!(info.version, Some(ProtocolVersion::TLSv1_3));
    // The call was answered, so the server's handshake is done and counted.
    let tls = server.stats.tls();
    assert_eq!((tls.completed, tls.x25519_mlkem768, tls.x25519), (1, 1, 0));
    drop(client);
    server.shutdown().await;
}

#[tokio::test]
async fn a_client_without_ml_kem_falls_back_to_x25519() {
    let pki = Pki::new();
    let server = start(server_tls(&pki).build().unwrap()).await;
    let tls = client_tls(&pki).key_exchange(KeyExchange::Classical);
    let client = connect(server.addr, tls.build().unwrap()).await.unwrap();
    add(&client, 1).await;
    assert_eq!(
        client.tls_info().unwrap().key_exchange,
        Some(NamedGroup::X25519)
    );
    let tls = server.stats.tls();
    assert_eq!((tls.completed, tls.x25519_mlkem768, tls.x25519), (1, 0, 1));
    drop(client);
    server.shutdown().await;
}

#[tokio::test]
async fn a_post_quantum_only_server_refuses_a_classical_client() {
    let pki = Pki::new();
    let tls = server_tls(&pki).key_exchange(KeyExchange::PostQuantumOnly);
    let server = start(tls.build().unwrap()).await;
    let classical = client_tls(&pki).key_exchange(KeyExchange::Classical);
    let refused = connect(server.addr, classical.build().unwrap()).await;
    assert!(refused.is_err(), "no common group, yet connected");
    until("the failed handshake is counted", || {
        server.stats.tls().failed == 1
    })
    .await;
    let client = connect(server.addr, client_tls(&pki).build().unwrap())
        .await
        .unwrap();
    add(&client, 2).await;
    drop(client);
    server.shutdown().await;
}

#[tokio::test]
async fn the_client_refuses_a_server_its_roots_do_not_vouch_for() {
    let pki = Pki::new();
    let rogue =
        ServerTls::from_pem_files(pki.path("rogue-server.pem"), pki.path("rogue-server.key"));
    let server = start(rogue.build().unwrap()).await;
    let err = connect(server.addr, client_tls(&pki).build().unwrap())
        .await
        .expect_err("an untrusted certificate must fail the connect");
    assert!(err.to_string().contains("certificate"), "{err}");
    // The wrong name fails too, with the right CA.
    let server2 = start(server_tls(&pki).build().unwrap()).await;
    let wrong_name = ClientTls::builder("not-localhost.example")
        .ca_pem_file(pki.path("ca.pem"))
        .build()
        .unwrap();
    assert!(connect(server2.addr, wrong_name).await.is_err());
    server.shutdown().await;
    server2.shutdown().await;
}

/// The client's first call on a connection the server refuses after the client's side
/// of a TLS 1.3 handshake is done (the server checks the client's certificate last).
async fn refused(addr: SocketAddr, tls: ClientTls) {
    if let Ok(client) = connect(addr, tls).await {
        let call = tokio::time::timeout(Duration::from_secs(5), client.call(ADD, &pair(1, 1)))
            .await
            .expect("refused within 5 s");
        assert!(call.is_err(), "served without a trusted client certificate");
    }
}

#[tokio::test]
async fn mtls_serves_trusted_client_certificates_only() {
    let pki = Pki::new();
    let tls = server_tls(&pki).client_ca_pem_file(pki.path("ca.pem"));
    let server = start(tls.build().unwrap()).await;

    refused(server.addr, client_tls(&pki).build().unwrap()).await;
    let rogue = client_tls(&pki)
        .client_cert_pem_files(pki.path("rogue-client.pem"), pki.path("rogue-client.key"));
    refused(server.addr, rogue.build().unwrap()).await;
    until("both refusals are counted", || {
        server.stats.tls().failed == 2
    })
    .await;

    let good =
        client_tls(&pki).client_cert_pem_files(pki.path("client.pem"), pki.path("client.key"));
    let client = connect(server.addr, good.build().unwrap()).await.unwrap();
    add(&client, 7).await;
    let stats = server.stats.tls();
    assert_eq!((stats.completed, stats.failed), (1, 2));
    drop(client);
    server.shutdown().await;
}

/// Read what the server sends until it closes (bounded): the bytes, and whether it was
/// an orderly close (EOF) rather than a reset.
async fn until_closed(stream: &mut TcpStream) -> (Vec<u8>, bool) {
    let mut got = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut got))
        .await
        .expect("the server closes the connection within 10 s");
    (got, read.is_ok())
}

/// What a plaintext peer may receive from a TLS port: nothing, or TLS alert records
/// (content type 21) — never a ZAP answer.
fn assert_only_alerts(got: &[u8]) {
    let mut rest = got;
    while !rest.is_empty() {
        assert!(
            rest.len() >= 5 && rest[0] == 21,
            "not a TLS alert: {got:02x?}"
        );
        let len = usize::from(u16::from_be_bytes([rest[3], rest[4]]));
        rest = &rest[(5 + len).min(rest.len())..];
    }
}

#[tokio::test]
async fn a_plaintext_client_is_closed_while_tls_clients_are_served() {
    let pki = Pki::new();
    let server = start(server_tls(&pki).build().unwrap()).await;
    let client = connect(server.addr, client_tls(&pki).build().unwrap())
        .await
        .unwrap();
    add(&client, 1).await;

    let mut plain = TcpStream::connect(server.addr).await.unwrap();
    plain
        .write_all(&request_frame(ADD, 1, 0, &pair(1, 2)))
        .await
        .unwrap();
    let (got, orderly) = until_closed(&mut plain).await;
    assert_only_alerts(&got);
    assert!(orderly, "closed with a reset");

    // The TLS client on its own connection did not notice, and a new one is served.
    add(&client, 2).await;
    let second = connect(server.addr, client_tls(&pki).build().unwrap())
        .await
        .unwrap();
    add(&second, 3).await;
    let tls = server.stats.tls();
    assert_eq!((tls.completed, tls.failed, tls.timed_out), (2, 1, 0));
    drop((client, second));
    server.shutdown().await;
}

/// The first flight of a real rustls client: a ClientHello offering X25519MLKEM768.
fn client_hello(pki: &Pki) -> Vec<u8> {
    let tls = client_tls(pki).build().unwrap();
    let name = tls.server_name().clone();
    let mut conn = rustls::ClientConnection::new(Arc::clone(tls.rustls_config()), name).unwrap();
    let mut hello = Vec::new();
    while conn.wants_write() {
        conn.write_tls(&mut hello).unwrap();
    }
    assert_eq!(hello[0], 22, "a handshake record");
    hello
}

#[tokio::test]
async fn garbage_truncated_and_stalled_handshakes_are_bounded_and_counted() {
    let pki = Pki::new();
    let timeout = Duration::from_secs(1);
    let server = start(server_tls(&pki).handshake_timeout(timeout).build().unwrap()).await;
    let hello = client_hello(&pki);

    // Stalled: connected, never a byte; and half a ClientHello, then silence.
    let mut silent = TcpStream::connect(server.addr).await.unwrap();
    let mut half = TcpStream::connect(server.addr).await.unwrap();
    half.write_all(&hello[..hello.len() / 2]).await.unwrap();

    // While those wait, a good client connects and is served.
    let client = connect(server.addr, client_tls(&pki).build().unwrap())
        .await
        .unwrap();
    add(&client, 10).await;

    // Garbage that is not TLS; a record header claiming a handshake, then junk; and
    // half a ClientHello followed by the end of the stream.
    let mut garbage = TcpStream::connect(server.addr).await.unwrap();
    garbage.write_all(&[0xff; 64]).await.unwrap();
    let mut junk = TcpStream::connect(server.addr).await.unwrap();
    junk.write_all(&[22, 3, 1, 0, 40]).await.unwrap();
    junk.write_all(&[0xa5; 40]).await.unwrap();
    let mut cut = TcpStream::connect(server.addr).await.unwrap();
    cut.write_all(&hello[..hello.len() / 3]).await.unwrap();
    cut.shutdown().await.unwrap();
    for stream in [&mut garbage, &mut junk, &mut cut] {
        let (got, _) = until_closed(stream).await;
        assert_only_alerts(&got);
    }
    add(&client, 11).await;

    // The stalled ones are closed by the handshake timeout, not by the test.
    for stream in [&mut silent, &mut half] {
        let (got, _) = until_closed(stream).await;
        assert!(got.is_empty(), "a stalled handshake got {got:02x?}");
    }
    add(&client, 12).await;
    let TlsStats {
        completed,
        failed,
        timed_out,
        x25519_mlkem768,
        ..
    } = server.stats.tls();
    assert_eq!(
        (completed, failed, timed_out, x25519_mlkem768),
        (1, 3, 2, 1)
    );
    drop(client);
    server.shutdown().await;
}

#[tokio::test]
async fn bad_pem_files_are_refused_with_the_path() {
    let pki = Pki::new();
    let missing = ServerTls::from_pem_files(pki.path("nope.pem"), pki.path("server.key"))
        .build()
        .expect_err("a missing file");
    assert!(missing.to_string().contains("nope.pem"), "{missing}");
    let no_key = ServerTls::from_pem_files(pki.path("server.pem"), pki.path("server.pem"))
        .build()
        .expect_err("a certificate is not a key");
    assert!(no_key.to_string().contains("private key"), "{no_key}");
    let mismatch =
        ServerTls::from_pem_files(pki.path("server.pem"), pki.path("client.key")).build();
    assert!(
        mismatch.is_err(),
        "a key that does not match the certificate"
    );
    let bad_name = ClientTls::builder("not a name")
        .ca_pem_file(pki.path("ca.pem"))
        .build();
    assert!(bad_name.is_err());
}

#[tokio::test]
async fn a_plain_client_at_a_tls_port_is_told_the_peer_speaks_tls() {
    let pki = Pki::new();
    let server = start(server_tls(&pki).build().unwrap()).await;
    let client = Client::connect_with(server.addr, ClientConfig::default())
        .await
        .unwrap();
    let err = tokio::time::timeout(Duration::from_secs(5), client.call(ADD, &pair(1, 1)))
        .await
        .expect("an answer within 5 s")
        .expect_err("a TLS server does not answer a plain call");
    let text = err.to_string();
    assert!(
        text.contains("does not speak ZAP") && text.contains("TLS"),
        "{text}"
    );
}

//! ZAP over QUIC against the real binary (`eth-rpc --quic-addr`, the TLS port's
//! certificate): the generated client over `QuicClient`, calls and `newHeads`, calls in
//! parallel on one connection, capabilities checked per call and per stream open, a
//! drain on SIGTERM, a wrong ALPN, hostile first frames, a flood of streams held to the
//! buffer budget and a peer that vanishes mid-stream; and both
//! directions with the Go runtime's QUIC transport (`../shared/peers/zap-go`, ignored
//! without it: `.ci/run` builds it and runs them).

use crate::pki;
use crate::process;

use std::net::SocketAddr;
use std::time::Duration;

use eth_rpc::eth::{BalanceRequest, EthClient, HeadsRequest};
use eth_rpc::ledger::{block_hash, Ledger};
use process::EthRpc;
use zap_runtime::quic::{QuicClient, QuicClientConfig};
use zap_runtime::tls::ClientTls;
use zap_runtime::{Transport, ZapStruct};

/// `eth-rpc` serving QUIC with the test PKI's certificate (and `extra` arguments).
async fn serve(pki: &pki::Pki, extra: &[&str]) -> EthRpc {
    let cert = pki.path("server.pem");
    let key = pki.path("server.key");
    let mut args = vec![
        "--tls-cert",
        cert.to_str().unwrap(),
        "--tls-key",
        key.to_str().unwrap(),
        "--quic-addr",
        "127.0.0.1:0",
    ];
    args.extend_from_slice(extra);
    EthRpc::start(&args).await
}

fn client_tls(pki: &pki::Pki) -> ClientTls {
    ClientTls::builder("localhost")
        .ca_pem_file(pki.path("ca.pem"))
        .build()
        .unwrap()
}

/// A plain quinn client endpoint trusting the test CA and offering `alpn`, to send what
/// `QuicClient` would not.
fn raw_endpoint(pki: &pki::Pki, alpn: &[u8]) -> quinn::Endpoint {
    let mut endpoint = quinn::Endpoint::client("127.0.0.1:0".parse().unwrap()).unwrap();
    endpoint.set_default_client_config(raw_config(pki, alpn));
    endpoint
}

/// The quinn client settings of [`raw_endpoint`].
fn raw_config(pki: &pki::Pki, alpn: &[u8]) -> quinn::ClientConfig {
    let mut rustls = (**client_tls(pki).rustls_config()).clone();
    rustls.alpn_protocols = vec![alpn.to_vec()];
    let crypto = quinn::crypto::rustls::QuicClientConfig::try_from(rustls).unwrap();
    quinn::ClientConfig::new(std::sync::Arc::new(crypto))
}

async fn connect(pki: &pki::Pki, addr: SocketAddr) -> QuicClient {
    QuicClient::connect(addr, &client_tls(pki), QuicClientConfig::default())
        .await
        .expect("a QUIC connection")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_generated_client_calls_and_streams_over_quic() {
    let pki = pki::Pki::new();
    let server = serve(&pki, &["--block-time", "0.2"]).await;
    let quic = server.quic.expect("a QUIC address in the log");
    let client = EthClient::new(connect(&pki, quic).await);
    let ledger = Ledger::default();
    let account = *ledger.address(1).unwrap();
    let answer = client
        .get_balance(&BalanceRequest {
            id: 7,
            block: eth_rpc::HEAD_BLOCK,
            account,
        })
        .await
        .unwrap();
    assert_eq!(answer.id, 7);
    assert_eq!(answer.balance, ledger.account(&account).balance);
    assert_eq!(client.chain_id().await.unwrap().chain_id, eth_rpc::CHAIN_ID);

    // Three heads, consecutive, then the server ends the stream.
    let mut heads = client.new_heads(&HeadsRequest { count: 3 }).await.unwrap();
    let mut seen = Vec::new();
    while let Some(head) = heads.next().await.unwrap() {
        seen.push(head.to_value());
    }
    assert_eq!(seen.len(), 3);
    for pair in seen.windows(2) {
        assert_eq!(pair[1].number, pair[0].number + 1);
        assert_eq!(pair[1].parent_hash, block_hash(pair[0].number));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_calls_in_parallel_and_in_sequence_on_one_connection() {
    let pki = pki::Pki::new();
    let server = serve(&pki, &[]).await;
    let client = std::sync::Arc::new(connect(&pki, server.quic.unwrap()).await);
    // 400 in sequence: each QUIC stream must complete, or the server's 100 stream
    // credits run out and later calls wait forever.
    for _ in 0..400 {
        let answer = client.call(2, &[]).await.unwrap();
        assert!(!answer.is_empty());
    }
    // 200 at once, more than the 100 streams the server allows open: the rest wait for
    // credit, none fails.
    let mut calls = tokio::task::JoinSet::new();
    for _ in 0..200 {
        let client = client.clone();
        calls.spawn(async move { client.call(3, &[]).await });
    }
    while let Some(done) = calls.join_next().await {
        done.unwrap().unwrap();
    }
}

/// Seconds since the Unix epoch.
fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn capabilities_are_checked_per_call_and_per_stream_open() {
    use zap_runtime::cap::{issue, trust_file_line, Issuance, Scheme, SigningKey};
    use zap_runtime::rpc::Status;
    use zap_runtime::ClientError;
    const TARGET: [u8; 32] = [0x42; 32];
    let pki = pki::Pki::new();
    let issuer = SigningKey::from_secret(Scheme::Ed25519, &[3; 32]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let trust = dir.path().join("issuers.txt");
    std::fs::write(&trust, trust_file_line(issuer.public_key()) + "\n").unwrap();
    let server = serve(
        &pki,
        &[
            "--cap-trust",
            trust.to_str().unwrap(),
            "--cap-target",
            &hex::encode(TARGET),
            "--block-time",
            "0.05",
        ],
    )
    .await;
    let quic = server.quic.unwrap();
    let granting = |permissions: u64| {
        issue(
            &Issuance {
                kind: 1,
                target: TARGET,
                permissions,
                issued_at: unix_now() - 10,
                expires_at: unix_now() + 3600,
                ..Default::default()
            },
            &issuer,
        )
        .unwrap()
    };
    let client_with = |cap: Vec<u8>| {
        let tls = client_tls(&pki);
        async move {
            let config = QuicClientConfig {
                cap,
                ..QuicClientConfig::default()
            };
            EthClient::new(QuicClient::connect(quic, &tls, config).await.unwrap())
        }
    };
    let ledger = Ledger::default();
    let request = BalanceRequest {
        id: 1,
        block: eth_rpc::HEAD_BLOCK,
        account: *ledger.address(4).unwrap(),
    };
    fn status<T>(result: Result<T, ClientError>) -> Status {
        match result {
            Ok(_) => Status::OK,
            Err(ClientError::Status { status, .. }) => status,
            Err(e) => panic!("a status, not {e}"),
        }
    }

    // No capability: every call and stream open is refused, the connection served on.
    let none = client_with(Vec::new()).await;
    assert_eq!(
        status(none.get_balance(&request).await),
        Status::UNAUTHORIZED
    );
    assert_eq!(status(none.chain_id().await), Status::UNAUTHORIZED);
    let mut heads = none.new_heads(&HeadsRequest { count: 2 }).await.unwrap();
    // A refused stream is reset with its status as the code.
    match heads.next().await {
        Err(zap_runtime::stream::StreamError::Ended { status, .. }) => {
            assert_eq!(status, Status::UNAUTHORIZED)
        }
        other => panic!("a refused stream ends at once with 401, not {other:?}"),
    }

    // A forged one: signed by another key, its Issuer rewritten to the trusted one's.
    let stranger = SigningKey::from_secret(Scheme::Ed25519, &[9; 32]).unwrap();
    let mut forged = issue(
        &Issuance {
            kind: 1,
            target: TARGET,
            permissions: 0x1,
            issued_at: unix_now() - 10,
            expires_at: unix_now() + 3600,
            ..Default::default()
        },
        &stranger,
    )
    .unwrap();
    let at = u32::from_le_bytes(forged[8..12].try_into().unwrap()) as usize
        + zap_runtime::cap::offset::ISSUER;
    forged[at..at + 32].copy_from_slice(issuer.id());
    let forged = client_with(forged).await;
    assert_eq!(
        status(forged.get_balance(&request).await),
        Status::UNAUTHORIZED
    );

    // Trusted but without getBalance's permission 0x1: 403 for it, other methods run.
    let narrow = client_with(granting(0x2)).await;
    assert_eq!(
        status(narrow.get_balance(&request).await),
        Status::FORBIDDEN
    );
    assert_eq!(narrow.chain_id().await.unwrap().chain_id, eth_rpc::CHAIN_ID);

    // Granting 0x1: calls and the stream run.
    let full = client_with(granting(0x1)).await;
    let answer = full.get_balance(&request).await.unwrap();
    assert_eq!(answer.balance, ledger.account(&request.account).balance);
    let mut heads = full.new_heads(&HeadsRequest { count: 2 }).await.unwrap();
    let first = heads.next().await.unwrap().expect("a head").to_value();
    let second = heads.next().await.unwrap().expect("a head").to_value();
    assert_eq!(second.number, first.number + 1);
    assert!(heads.next().await.unwrap().is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_drains_quic_calls_and_exits_zero() {
    use std::sync::atomic::Ordering;
    let pki = pki::Pki::new();
    let mut server = serve(&pki, &["--readiness-grace", "2"]).await;
    let client = EthClient::new(connect(&pki, server.quic.unwrap()).await);
    // 16 callers on the one connection (clones of the client share it).
    let seen = std::sync::Arc::new(process::Seen::default());
    let callers = process::load(client, 16, &seen);
    process::within("300 calls answered", || async { seen.counts().0 >= 300 }).await;
    server.kill("TERM");
    // The HTTP port serves TLS here (the QUIC certificate's).
    let https = scrape(&pki, &server);
    process::within("/health turning 503", || async {
        https.status("/health").await == Some(503)
    })
    .await;
    seen.draining.store(true, Ordering::Relaxed);
    let status = server.wait().await;
    assert!(
        status.success(),
        "eth-rpc exits 0 after a drain, got {status}"
    );
    for caller in callers {
        caller.await.expect("no wrong answer");
    }
    let (answered, draining, closed) = seen.counts();
    eprintln!(
        "SIGTERM over QUIC: {answered} answered ({draining} while draining), {closed} closed"
    );
    assert!(
        draining > 0,
        "QUIC calls keep being answered while /health is 503"
    );
    assert_eq!(
        closed, 16,
        "each caller ends on the closed connection, typed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_without_the_zap_alpn_is_refused() {
    let pki = pki::Pki::new();
    let server = serve(&pki, &[]).await;
    let endpoint = raw_endpoint(&pki, b"h3");
    let refused = endpoint
        .connect(server.quic.unwrap(), "localhost")
        .unwrap()
        .await;
    let error = refused.expect_err("another ALPN is refused").to_string();
    // TLS alert 120, no_application_protocol (QUIC CRYPTO_ERROR 0x178).
    assert!(error.contains("error 120"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_first_frames_reset_their_stream_and_nothing_else() {
    let pki = pki::Pki::new();
    let server = serve(&pki, &[]).await;
    let client = connect(&pki, server.quic.unwrap()).await;
    let endpoint = raw_endpoint(&pki, zap_runtime::quic::ALPN);
    let raw = endpoint
        .connect(server.quic.unwrap(), "localhost")
        .unwrap()
        .await
        .unwrap();
    let hostile: [&[u8]; 5] = [
        &[0, 0, 0, 0],                // length 0: no op
        &[9, 0, 0, 0, 7, 1, 2, 3],    // op 7, and the stream ends inside the frame
        &[0xff, 0xff, 0xff, 0xff, 1], // 4 GiB: over the 64 MiB bound
        &[5, 0, 0, 0, 1, 1, 2, 3, 4], // op 1 with an envelope that is not a message
        &[2, 0],                      // FIN inside the length word
    ];
    for frame in hostile {
        let (mut send, mut recv) = raw.open_bi().await.unwrap();
        send.write_all(frame).await.unwrap();
        let _ = send.finish();
        // The server resets the stream: the read fails rather than ending cleanly.
        let read = tokio::time::timeout(Duration::from_secs(10), recv.read_to_end(1 << 20))
            .await
            .expect("an answer within 10 s");
        assert!(read.is_err(), "{frame:?} got {read:?}");
    }
    // A stream that never sends its first frame holds only itself.
    let (mut silent, _silent_recv) = raw.open_bi().await.unwrap();
    silent.write_all(&[100, 0]).await.unwrap();
    // The well-behaved client on its own connection, and the hostile connection
    // itself, are still served.
    assert_eq!(
        EthClient::new(client).chain_id().await.unwrap().chain_id,
        eth_rpc::CHAIN_ID
    );
    let (mut send, mut recv) = raw.open_bi().await.unwrap();
    let frame = first_frame(zap_runtime::quic::OP_CALL, 2, 9, b"");
    send.write_all(&frame).await.unwrap();
    send.finish().unwrap();
    let answer = recv.read_to_end(1 << 20).await.unwrap();
    let response = zap_runtime::rpc::Response::parse(&answer[4..]).unwrap();
    assert_eq!((response.status.0, response.promise_id), (200, 9));
}

/// The server's `/metrics`, over TLS as its HTTP port serves it.
fn scrape(pki: &pki::Pki, server: &EthRpc) -> process::Scrape {
    process::Scrape {
        addr: server.http,
        tls: Some(client_tls(pki)),
    }
}

/// A QUIC stream's first frame, `[len][op][request envelope]`, as `QuicClient` would
/// write it: method `method`, PromiseID `id`, no capability.
fn first_frame(op: u8, method: u32, id: u32, payload: &[u8]) -> Vec<u8> {
    let mut b = zap_runtime::Builder::new();
    let envelope = zap_runtime::rpc::Request {
        method,
        promise_id: id,
        target: 0,
        cap: b"",
        payload,
    }
    .encode(&mut b)
    .unwrap();
    let mut frame = ((envelope.len() + 1) as u32).to_le_bytes().to_vec();
    frame.push(op);
    frame.extend_from_slice(envelope);
    frame
}

/// `[len][op 2][envelope]`: open `newHeads` for `count` heads (0: endless).
fn open_new_heads(count: u32) -> Vec<u8> {
    let payload = HeadsRequest { count }.to_bytes().unwrap();
    first_frame(zap_runtime::quic::OP_STREAM, NEW_HEADS, 1, &payload)
}

/// The ordinal of `newHeads`.
const NEW_HEADS: u32 = 6;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_streams_is_held_to_the_budget_and_reset_at_the_first_frame_timeout() {
    let pki = pki::Pki::new();
    // A 16 MiB budget for frames still arriving, shared with the TCP ports.
    let server = serve(
        &pki,
        &[
            "--buffer-budget-mib",
            "16",
            "--quic-first-frame-timeout",
            "4",
        ],
    )
    .await;
    let quic = server.quic.unwrap();
    let rss_before = process::rss_kib(server.pid);
    // 8 connections, each with the 100 streams the server allows, each stream sending
    // the start of a 60 MiB call and then as much of it as the server will take.
    // A send buffer large enough that no writer waits on the client's own connection
    // limit (quinn does not wake such a writer when its stream is stopped).
    let mut endpoint = raw_endpoint(&pki, zap_runtime::quic::ALPN);
    let mut transport = quinn::TransportConfig::default();
    transport.send_window(1 << 30);
    let mut config = raw_config(&pki, zap_runtime::quic::ALPN);
    config.transport_config(std::sync::Arc::new(transport));
    endpoint.set_default_client_config(config);
    let mut writers = tokio::task::JoinSet::new();
    let mut connections = Vec::new();
    for _ in 0..8 {
        let connection = endpoint.connect(quic, "localhost").unwrap().await.unwrap();
        for _ in 0..100 {
            let (mut send, _recv) = connection.open_bi().await.unwrap();
            writers.spawn(async move {
                let mut head = (60u32 << 20).to_le_bytes().to_vec();
                head.push(zap_runtime::quic::OP_CALL);
                send.write_all(&head).await?;
                let chunk = vec![0u8; 64 << 10];
                loop {
                    send.write_all(&chunk).await?;
                }
                #[allow(unreachable_code)]
                Ok::<(), quinn::WriteError>(())
            });
        }
        connections.push(connection);
    }
    // The server reads until the budget is spent, then stops: 800 streams of up to
    // 60 MiB are held to 16 MiB of buffers plus QUIC's windows.
    let received = process::until_reading_stops(scrape(&pki, &server), "quic", 256 << 10).await;
    let rss_grown = process::rss_kib(server.pid).saturating_sub(rss_before);
    assert!(
        received < (16 << 20) + (64 << 10),
        "the server read {received} bytes of frames it could not finish"
    );
    // The budget and eight connections' 8 MiB receive windows are 80 MiB; as much again
    // is left for quinn's, the tasks' and the allocator's own.
    assert!(
        rss_grown < 160 << 10,
        "the server grew by {rss_grown} KiB under the flood"
    );
    // Everyone else is served meanwhile: a new connection's call.
    let client = EthClient::new(connect(&pki, quic).await);
    assert_eq!(client.chain_id().await.unwrap().chain_id, eth_rpc::CHAIN_ID);
    // At the first-frame timeout every flooding stream is reset and its buffer given
    // back: a 1 MiB call (to a method that does not exist, answered 404 once read whole)
    // fits the budget again, on a connection that flooded.
    let connection = &connections[0];
    let answer = tokio::time::timeout(Duration::from_secs(30), async {
        let (mut send, mut recv) = connection.open_bi().await.unwrap();
        let frame = first_frame(zap_runtime::quic::OP_CALL, 999, 5, &vec![7u8; 1 << 20]);
        send.write_all(&frame).await.unwrap();
        send.finish().unwrap();
        recv.read_to_end(1 << 20).await.unwrap()
    })
    .await
    .expect("the budget is given back within 30 s");
    let response = zap_runtime::rpc::Response::parse(&answer[4..]).unwrap();
    assert_eq!((response.status.0, response.promise_id), (404, 5));
    writers.abort_all();
}

/// A UDP socket that can vanish: from then on it sends nothing and drops what arrives,
/// as a peer whose machine is switched off (no CONNECTION_CLOSE, no reset).
#[derive(Debug)]
struct Vanishing {
    inner: std::sync::Arc<dyn quinn::AsyncUdpSocket>,
    gone: std::sync::atomic::AtomicBool,
}

impl Vanishing {
    fn gone(&self) -> bool {
        self.gone.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl quinn::AsyncUdpSocket for Vanishing {
    fn create_io_poller(self: std::sync::Arc<Self>) -> std::pin::Pin<Box<dyn quinn::UdpPoller>> {
        std::sync::Arc::clone(&self.inner).create_io_poller()
    }

    fn try_send(&self, transmit: &quinn::udp::Transmit<'_>) -> std::io::Result<()> {
        if self.gone() {
            return Ok(());
        }
        self.inner.try_send(transmit)
    }

    fn poll_recv(
        &self,
        cx: &mut std::task::Context<'_>,
        bufs: &mut [std::io::IoSliceMut<'_>],
        meta: &mut [quinn::udp::RecvMeta],
    ) -> std::task::Poll<std::io::Result<usize>> {
        loop {
            let polled = self.inner.poll_recv(cx, bufs, meta);
            if !(self.gone() && matches!(polled, std::task::Poll::Ready(Ok(_)))) {
                return polled;
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.inner.local_addr()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_that_vanishes_mid_stream_is_dropped_at_the_idle_timeout() {
    use quinn::Runtime as _;
    let pki = pki::Pki::new();
    let server = serve(&pki, &["--quic-idle-timeout", "2", "--block-time", "0.05"]).await;
    let quic = server.quic.unwrap();
    let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let socket = std::sync::Arc::new(Vanishing {
        inner: quinn::TokioRuntime.wrap_udp_socket(socket).unwrap(),
        gone: false.into(),
    });
    let mut endpoint = quinn::Endpoint::new_with_abstract_socket(
        quinn::EndpointConfig::default(),
        None,
        socket.clone(),
        std::sync::Arc::new(quinn::TokioRuntime),
    )
    .unwrap();
    endpoint.set_default_client_config(raw_config(&pki, zap_runtime::quic::ALPN));
    let connection = endpoint.connect(quic, "localhost").unwrap().await.unwrap();
    // An endless newHeads stream, and a call whose request never finishes.
    let (mut send, mut heads) = connection.open_bi().await.unwrap();
    send.write_all(&open_new_heads(0)).await.unwrap();
    let mut word = [0u8; 4];
    heads.read_exact(&mut word).await.unwrap();
    let (mut half, _) = connection.open_bi().await.unwrap();
    half.write_all(&[200, 0, 0, 0, 1, 9]).await.unwrap();
    let metrics = scrape(&pki, &server);
    let active = |name: &'static str, label: &'static str| {
        let metrics = metrics.clone();
        async move { metrics.metric(name, &[label]).await }
    };
    assert_eq!(
        active("zap_streams_active", "transport=\"quic\"").await,
        Some(1)
    );
    assert_eq!(
        active("zap_connections_active", "server=\"quic\"").await,
        Some(1)
    );
    socket
        .gone
        .store(true, std::sync::atomic::Ordering::Relaxed);
    // Heads keep coming into the void until the 2 s idle timeout drops the connection,
    // its stream and its half-sent call.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let streams = active("zap_streams_active", "transport=\"quic\"").await;
        let connections = active("zap_connections_active", "server=\"quic\"").await;
        if (streams, connections) == (Some(0), Some(0)) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "still {streams:?} streams and {connections:?} connections 20 s later"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The server is none the worse: a new client is served.
    let client = EthClient::new(connect(&pki, quic).await);
    assert_eq!(client.chain_id().await.unwrap().chain_id, eth_rpc::CHAIN_ID);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the Go peer: ../shared/peers/zap-go/build.sh target/zapgo, then cargo test -p eth-rpc --test integration quic:: -- --ignored"]
async fn the_go_quic_client_calls_and_streams_against_eth_rpc() {
    let pki = pki::Pki::new();
    let server = serve(&pki, &["--block-time", "0.2"]).await;
    let addr = server.quic.unwrap().to_string();
    let ca = pki.path("ca.pem");
    let quic = [
        "--addr",
        &addr,
        "--transport",
        "quic",
        "--ca",
        ca.to_str().unwrap(),
        "--server-name",
        "localhost",
    ];
    let ledger = Ledger::default();
    let account = *ledger.address(2).unwrap();
    let request = BalanceRequest {
        id: 3,
        block: eth_rpc::HEAD_BLOCK,
        account,
    };
    let payload = hex::encode(request.to_bytes().unwrap());
    // Twenty calls on one connection, five in flight.
    let mut args = vec!["call", "--method", "1", "--payload-hex", &payload];
    args.extend_from_slice(&["--count", "20", "--concurrency", "5"]);
    args.extend_from_slice(&quic);
    let out = process::go(&args).await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 20, "{out}");
    for line in lines {
        let body = line.strip_prefix("status=200 payload=").expect(line);
        let answer = eth_rpc::eth::BalanceResponse::decode(&hex::decode(body).unwrap()).unwrap();
        assert_eq!(answer.balance, ledger.account(&account).balance);
    }
    // newHeads: two heads, then the end.
    let init = hex::encode(HeadsRequest { count: 2 }.to_bytes().unwrap());
    let mut args = vec![
        "stream",
        "--method",
        "6",
        "--init-hex",
        &init,
        "--timeout",
        "20s",
    ];
    args.extend_from_slice(&quic);
    let out = process::go(&args).await;
    let mut lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.pop(), Some("end"), "{out}");
    assert_eq!(lines.len(), 2, "{out}");
}

/// The Go peer serving QUIC (and its address), until dropped.
struct GoServer {
    _child: tokio::process::Child,
    quic: SocketAddr,
}

async fn go_serve(pki: &pki::Pki) -> GoServer {
    let ready = pki.path("ready");
    let mut child = tokio::process::Command::new(process::go_peer())
        .args([
            "serve",
            "--quic",
            "127.0.0.1:0",
            "--tls-cert",
            pki.path("server.pem").to_str().unwrap(),
            "--tls-key",
            pki.path("server.key").to_str().unwrap(),
            "--ready-file",
            ready.to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    use tokio::io::AsyncBufReadExt;
    let stdout = child.stdout.take().unwrap();
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("the Go peer is ready within 30 s")
        .unwrap()
        .expect("a ready line");
    let quic = line
        .split_whitespace()
        .find_map(|w| w.strip_prefix("quic="))
        .expect(&line)
        .parse()
        .unwrap();
    GoServer {
        _child: child,
        quic,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the Go peer: ../shared/peers/zap-go/build.sh target/zapgo, then cargo test -p eth-rpc --test integration quic:: -- --ignored"]
async fn our_quic_client_against_the_go_server() {
    let pki = pki::Pki::new();
    let go = go_serve(&pki).await;
    let client = connect(&pki, go.quic).await;
    // 300 echo calls on one connection: past the Go server's 100 stream credits, which
    // come back only when each stream's FIN has been read with its request.
    for i in 0..300u32 {
        let payload = i.to_le_bytes();
        assert_eq!(client.call(1, &payload).await.unwrap(), payload);
    }
    // Method 2 fails with 500; an unknown one is 404.
    let failed = client.call(2, b"").await.unwrap_err().to_string();
    assert!(failed.contains("500"), "{failed}");
    let unknown = client.call(99, b"").await.unwrap_err().to_string();
    assert!(unknown.contains("404"), "{unknown}");
    // The count stream: five messages, 0..5, then the end.
    let mut count = client.open_stream(11, &5u32.to_le_bytes()).await.unwrap();
    let mut got = Vec::new();
    while let Some(message) = count.inbound.next().await.unwrap() {
        got.push(u32::from_le_bytes(message[..4].try_into().unwrap()));
    }
    assert_eq!(got, [0, 1, 2, 3, 4]);
    // The echo stream: what we send comes back, and our end ends it.
    let mut echo = client.open_stream(10, b"").await.unwrap();
    for word in [&b"alpha"[..], b"", b"gamma"] {
        echo.outbound.send(word).await.unwrap();
        assert_eq!(&echo.inbound.next().await.unwrap().unwrap()[..], word);
    }
    echo.outbound.end();
    assert_eq!(echo.inbound.next().await.unwrap(), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deadline_ends_a_quic_stream_and_bounds_a_call() {
    use zap_runtime::context::CallOptions;
    let pki = pki::Pki::new();
    let server = serve(&pki, &["--block-time", "0.2"]).await;
    let quic = server.quic.expect("a QUIC address in the log");
    let client = EthClient::new(connect(&pki, quic).await);
    // Endless heads, under a deadline: a few arrive, then the stream ends with 504
    // (from the server's reset, or this side's own clock, whichever is first).
    let mut heads = CallOptions::new()
        .deadline_in(Duration::from_millis(700))
        .scope(client.new_heads(&HeadsRequest { count: 0 }))
        .await
        .unwrap();
    let mut seen = 0;
    let err = loop {
        match heads.next().await {
            Ok(Some(_)) => seen += 1,
            Ok(None) => panic!("an endless stream ended without its deadline"),
            Err(e) => break e,
        }
    };
    assert!(err.is_deadline_exceeded(), "{err}");
    assert!(seen >= 1, "the head arrives before the deadline");
    // A call within its deadline is answered; the connection goes on.
    let answer = CallOptions::new()
        .deadline_in(Duration::from_secs(5))
        .scope(client.chain_id())
        .await
        .unwrap();
    assert_eq!(answer.chain_id, eth_rpc::CHAIN_ID);
    // A call whose deadline has passed is not run: the server answers 504.
    let err = CallOptions::new()
        .deadline_in(Duration::ZERO)
        .scope(client.chain_id())
        .await
        .unwrap_err();
    assert!(err.is_deadline_exceeded(), "{err}");
}

//! The `quic_stream` target: the QUIC server's stream path (`zap_runtime::quic`: the
//! first frame `[len u32][op u8][envelope]`, the frames after it `[len u32][bytes]`, a
//! FIN anywhere, the call and stream-open handling and the message pumps) on the bytes
//! a client writes on one bidirectional QUIC stream, over a live connection to an
//! in-process `QuicServer` on loopback (TLS with a certificate made at start), with
//! [`Streamer`](super::zap_conn::Streamer) behind it. Every input is a new QUIC stream
//! of the same connection; a new connection is made if the server closed the last one.
//!
//! Input: the bytes the client writes, then its FIN.
//!
//! Checked: the server either resets the stream (its refusals) or answers with whole
//! frames and nothing left over, and then its FIN; a call (op 1) whose envelope reads
//! is answered by exactly one frame, a response envelope with a status this server
//! answers with and the call's PromiseID. Each exchange must end within 10 s (the
//! server never waits on a stream whose client has finished; the health watch, which
//! lasts until its client drops it, is read up to its first status).

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use zap_runtime::builtin;
use zap_runtime::quic::{QuicConfig, QuicServer, ALPN, OP_CALL, OP_STREAM};
use zap_runtime::rpc::{Request, Response};
use zap_runtime::server::CancellationToken;
use zap_runtime::tls::{ClientTls, ServerTls};

use super::zap_conn::Streamer;

/// The statuses a ZAP server answers with.
const STATUSES: [u32; 10] = [200, 400, 401, 403, 404, 408, 413, 500, 503, 504];

/// The server, its client's QUIC settings, and the runtime both run on.
struct Harness {
    runtime: tokio::runtime::Runtime,
    addr: SocketAddr,
    client: quinn::ClientConfig,
    connection: std::sync::Mutex<Option<quinn::Connection>>,
    _endpoint: std::sync::Mutex<Option<quinn::Endpoint>>,
}

fn harness() -> &'static Harness {
    static HARNESS: OnceLock<Harness> = OnceLock::new();
    HARNESS.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let dir = std::env::temp_dir().join(format!("zap-fuzz-quic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a folder for the certificate");
        let cert = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()])
            .expect("a self-signed certificate");
        std::fs::write(dir.join("cert.pem"), cert.cert.pem()).expect("write the certificate");
        std::fs::write(dir.join("key.pem"), cert.signing_key.serialize_pem())
            .expect("write the key");
        let server_tls = ServerTls::from_pem_files(dir.join("cert.pem"), dir.join("key.pem"))
            .build()
            .expect("server TLS");
        let client_tls = ClientTls::builder("localhost")
            .ca_pem_file(dir.join("cert.pem"))
            .build()
            .expect("client TLS");
        let _ = std::fs::remove_dir_all(&dir);
        let addr = runtime.block_on(async {
            let server = QuicServer::bind(
                "127.0.0.1:0".parse().expect("an address"),
                Arc::new(Streamer),
                &server_tls,
                QuicConfig {
                    // A stream whose first frame never completes is reset at once.
                    first_frame_timeout: Duration::from_secs(5),
                    ..QuicConfig::default()
                },
            )
            .expect("bind the QUIC server");
            let addr = server.local_addr().expect("its address");
            // Runs for the life of the process.
            tokio::spawn(server.run(CancellationToken::new()));
            addr
        });
        let mut rustls = (**client_tls.rustls_config()).clone();
        rustls.alpn_protocols = vec![ALPN.to_vec()];
        let crypto = quinn::crypto::rustls::QuicClientConfig::try_from(rustls)
            .expect("TLS settings that carry QUIC");
        Harness {
            runtime,
            addr,
            client: quinn::ClientConfig::new(Arc::new(crypto)),
            connection: std::sync::Mutex::new(None),
            _endpoint: std::sync::Mutex::new(None),
        }
    })
}

impl Harness {
    /// The connection, made again if the server closed it.
    async fn connection(&self) -> quinn::Connection {
        let live = self.connection.lock().expect("the connection").clone();
        if let Some(connection) = live.filter(|c| c.close_reason().is_none()) {
            return connection;
        }
        let mut endpoint = quinn::Endpoint::client("127.0.0.1:0".parse().expect("an address"))
            .expect("a client endpoint");
        endpoint.set_default_client_config(self.client.clone());
        let connection = endpoint
            .connect(self.addr, "localhost")
            .expect("connect")
            .await
            .expect("the QUIC handshake");
        *self.connection.lock().expect("the connection") = Some(connection.clone());
        *self._endpoint.lock().expect("the endpoint") = Some(endpoint);
        connection
    }
}

/// Whether `sent` opens the health watch, a server stream that lasts until the client
/// drops it (its first status is read, then the stream is let go).
fn opens_watch(sent: &[u8]) -> bool {
    sent.get(4) == Some(&OP_STREAM)
        && sent
            .get(5..)
            .and_then(|envelope| Request::parse(envelope).ok())
            .is_some_and(|req| req.method == builtin::HEALTH_WATCH)
}

/// Write `sent` on a new stream with a FIN; the server's bytes (for a health watch, its
/// first frame), or `None` if it reset the stream (or stopped reading it).
pub fn exchange(sent: &[u8]) -> Option<Vec<u8>> {
    let harness = harness();
    harness.runtime.block_on(async {
        let exchanged = async {
            let connection = harness.connection().await;
            let (mut send, mut recv) = connection.open_bi().await.ok()?;
            // A refusal may stop the stream before everything is written.
            let _ = send.write_all(sent).await;
            let _ = send.finish();
            if opens_watch(sent) {
                let mut len = [0u8; 4];
                recv.read_exact(&mut len).await.ok()?;
                let mut status = vec![0u8; u32::from_le_bytes(len) as usize];
                recv.read_exact(&mut status).await.ok()?;
                return Some([&len[..], &status].concat());
            }
            recv.read_to_end(usize::MAX).await.ok()
        };
        tokio::time::timeout(Duration::from_secs(10), exchanged)
            .await
            .expect("the server ends the stream within 10 s")
    })
}

/// `[len u32][bytes]` frames, all of `bytes`.
fn frames(bytes: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let (len, body) = rest
            .split_first_chunk::<4>()
            .unwrap_or_else(|| panic!("a frame length cut short: {rest:?}"));
        let len = u32::from_le_bytes(*len) as usize;
        assert!(
            body.len() >= len,
            "a frame of {len} bytes with {} left",
            body.len()
        );
        out.push(&body[..len]);
        rest = &body[len..];
    }
    out
}

pub fn run(data: &[u8]) {
    let Some(answer) = exchange(data) else {
        return;
    };
    let frames = frames(&answer);
    // A whole first frame that is a call whose envelope reads.
    let call = data
        .split_first_chunk::<4>()
        .and_then(|(len, rest)| rest.get(..u32::from_le_bytes(*len) as usize))
        .and_then(|frame| frame.split_first())
        .filter(|(op, _)| **op == OP_CALL)
        .and_then(|(_, envelope)| Request::parse(envelope).ok());
    if let Some(call) = call {
        let [one] = frames.as_slice() else {
            panic!("a call is answered with one frame, got {}", frames.len());
        };
        let response = Response::parse(one).expect("a response envelope");
        assert!(
            STATUSES.contains(&response.status.0),
            "status {}",
            response.status
        );
        assert_eq!(response.promise_id, call.promise_id);
    }
}

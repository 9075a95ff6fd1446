//! The QUIC client: one QUIC connection, a QUIC stream per call or stream, as the
//! [`Transport`] the generated clients take (`EthClient::new(quic_client)`).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use quinn::{Connection, Endpoint};

use super::{put_frame, read_frame, Side, OP_CALL, OP_STREAM, OUTBOX_LIMIT};
use crate::rpc::{Request, Response, Status};
use crate::stream::{self, Outbox, StreamIo};
use crate::tls::ClientTls;
use crate::transport::{ClientError, Transport};
use crate::Builder;

/// Settings of a [`QuicClient`].
#[derive(Clone, Debug)]
pub struct QuicClientConfig {
    /// A call without its answer after this long fails with [`ClientError::Timeout`]
    /// (default 30 s).
    pub call_timeout: Duration,
    /// The deadline of every call and stream, sent to the server (see
    /// `zap_runtime::context`), as `ClientConfig::deadline` on ZAP/TCP. Default `None`.
    pub deadline: Option<Duration>,
    /// The handshake must finish within this (default 10 s).
    pub connect_timeout: Duration,
    /// Largest frame accepted from the server (default 64 MiB).
    pub max_frame: usize,
    /// The connection is closed after this long without a packet (default 30 s).
    pub idle_timeout: Duration,
    /// Send a keep-alive this often, so an idle connection stays open (default none).
    pub keep_alive: Option<Duration>,
    /// Messages a stream queues for its receiver (default 16).
    pub stream_queue: usize,
    /// The capability sent in every call's and stream open's `Cap` field.
    pub cap: Vec<u8>,
}

impl Default for QuicClientConfig {
    fn default() -> Self {
        QuicClientConfig {
            call_timeout: Duration::from_secs(30),
            deadline: None,
            connect_timeout: Duration::from_secs(10),
            max_frame: super::DEFAULT_MAX_FRAME,
            idle_timeout: Duration::from_secs(30),
            keep_alive: None,
            stream_queue: 16,
            cap: Vec::new(),
        }
    }
}

/// A ZAP client over one QUIC connection: every call and stream opens a QUIC stream of
/// its own, so they neither wait for each other nor for a lost packet of another.
///
/// Clones share the connection (as clones of the TCP client do), so one connection can
/// serve many tasks: `EthClient::new(quic.clone())`.
#[derive(Clone, Debug)]
pub struct QuicClient {
    endpoint: Endpoint,
    connection: Connection,
    next_id: Arc<AtomicU32>,
    config: Arc<QuicClientConfig>,
}

impl QuicClient {
    /// Connect to `addr`, checking its certificate with `tls` (its server name, roots,
    /// key exchange and client certificate; ALPN `zap/1` is set here).
    pub async fn connect(
        addr: SocketAddr,
        tls: &ClientTls,
        config: QuicClientConfig,
    ) -> Result<QuicClient, ClientError> {
        let mut rustls = (**tls.rustls_config()).clone();
        rustls.alpn_protocols = vec![super::ALPN.to_vec()];
        rustls.enable_early_data = false;
        let crypto = quinn::crypto::rustls::QuicClientConfig::try_from(rustls).map_err(|e| {
            ClientError::Protocol(format!("these TLS settings cannot carry QUIC: {e}"))
        })?;
        let mut client = quinn::ClientConfig::new(Arc::new(crypto));
        let mut transport = quinn::TransportConfig::default();
        transport.max_concurrent_uni_streams(0u32.into());
        transport.max_idle_timeout(Some(
            quinn::IdleTimeout::try_from(config.idle_timeout)
                .map_err(|e| ClientError::Protocol(format!("idle timeout: {e}")))?,
        ));
        transport.keep_alive_interval(config.keep_alive);
        client.transport_config(Arc::new(transport));
        let bind: SocketAddr = if addr.is_ipv6() {
            (std::net::Ipv6Addr::UNSPECIFIED, 0).into()
        } else {
            (std::net::Ipv4Addr::UNSPECIFIED, 0).into()
        };
        let mut endpoint = Endpoint::client(bind)?;
        endpoint.set_default_client_config(client);
        let name = server_name(tls);
        let connecting = endpoint
            .connect(addr, &name)
            .map_err(|e| ClientError::Protocol(format!("cannot connect to {addr}: {e}")))?;
        let connection = tokio::time::timeout(config.connect_timeout, connecting)
            .await
            .map_err(|_| ClientError::Timeout(config.connect_timeout))?
            .map_err(|e| ClientError::Closed(format!("QUIC handshake with {addr}: {e}")))?;
        Ok(QuicClient {
            endpoint,
            connection,
            next_id: Arc::new(AtomicU32::new(1)),
            config: Arc::new(config),
        })
    }

    /// The server's address.
    pub fn remote_address(&self) -> SocketAddr {
        self.connection.remote_address()
    }

    /// Whether the connection has closed (by either side, or its idle timeout).
    pub fn is_closed(&self) -> bool {
        self.connection.close_reason().is_some()
    }

    /// Resolves when the connection closes, for whatever reason.
    pub fn closed(&self) -> impl std::future::Future<Output = ()> + Send + '_ {
        let closed = self.connection.closed();
        async move {
            closed.await;
        }
    }

    /// Close the connection (calls in flight fail) and wait until the server knows.
    pub async fn close(&self) {
        self.connection.close(0u32.into(), b"client closing");
        self.endpoint.wait_idle().await;
    }

    fn next_id(&self) -> u32 {
        // Non-zero, as the envelope requires.
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        if id == 0 {
            self.next_id.fetch_add(1, Ordering::Relaxed)
        } else {
            id
        }
    }

    /// The first frame of a call or stream: `[len][op][request envelope]`, followed by
    /// the call context extension when the call carries a deadline or metadata; and
    /// the call's budget.
    fn first_frame(
        &self,
        op: u8,
        ordinal: u32,
        payload: &[u8],
    ) -> Result<(u32, Vec<u8>, Option<Duration>), ClientError> {
        let id = self.next_id();
        let mut b = Builder::new();
        let envelope = Request {
            method: ordinal,
            promise_id: id,
            target: 0,
            cap: &self.config.cap,
            payload,
        }
        .encode(&mut b)?;
        let (mut message, budget) = crate::context::CallOptions::with_outgoing(
            self.config.deadline,
            |budget, metadata, answer| {
                let mut message = envelope.to_vec();
                if budget.is_some() || !metadata.is_empty() || answer {
                    crate::context::write_extension(&mut message, budget, metadata);
                }
                (message, budget)
            },
        );
        let mut frame = Vec::with_capacity(message.len() + 5);
        put_frame(&mut frame, Some(op), &message);
        message.clear();
        Ok((id, frame, budget))
    }

    async fn call_inner(&self, id: u32, frame: Vec<u8>) -> Result<Vec<u8>, ClientError> {
        let (mut send, mut recv) = self.connection.open_bi().await.map_err(closed)?;
        // The request and its FIN together: a server that reads only the request still
        // completes the stream and returns its credit.
        send.write_all(&frame)
            .await
            .map_err(|e| ClientError::Closed(e.to_string()))?;
        let _ = send.finish();
        let answer = read_frame(&mut recv, &Side::client(self.config.max_frame))
            .await
            .map_err(|e| ClientError::Closed(format!("reading the answer: {e}")))?
            .ok_or_else(|| {
                ClientError::Closed("the server ended the call without an answer".into())
            })?;
        super::take_fin(&mut recv);
        let response = Response::parse(&answer).map_err(|e| {
            ClientError::Protocol(format!("the answer is not a response envelope: {e}"))
        })?;
        if response.promise_id != id {
            return Err(ClientError::Protocol(format!(
                "the answer is for PromiseID {}, not {id}",
                response.promise_id
            )));
        }
        // Metadata the answer carries back, after the envelope.
        let metadata = crate::context::answer_metadata(&answer, 0..answer.len())
            .map_err(|e| ClientError::Protocol(format!("the answer's metadata: {e}")))?;
        if let Some(metadata) = metadata {
            crate::context::CallOptions::deliver_answer(metadata);
        }
        if response.status == Status::OK {
            Ok(response.body.to_vec())
        } else {
            Err(ClientError::from_answer(response.status, response.body))
        }
    }
}

impl Transport for QuicClient {
    /// A call; dropping it before its answer resets its QUIC stream, which stops the
    /// handler on a zapc server.
    async fn call(&self, ordinal: u32, payload: &[u8]) -> Result<Vec<u8>, ClientError> {
        let (id, frame, budget) = self.first_frame(OP_CALL, ordinal, payload)?;
        let call_timeout = self.config.call_timeout;
        let (wait, timed_out) = match budget {
            Some(budget) if budget <= call_timeout => {
                (budget, ClientError::DeadlineExceeded(budget))
            }
            _ => (call_timeout, ClientError::Timeout(call_timeout)),
        };
        tokio::time::timeout(wait, self.call_inner(id, frame))
            .await
            .map_err(|_| timed_out)?
    }

    async fn open_stream(&self, ordinal: u32, open: &[u8]) -> Result<StreamIo, ClientError> {
        let (id, frame, budget) = self.first_frame(OP_STREAM, ordinal, open)?;
        let (mut send, recv) = self.connection.open_bi().await.map_err(closed)?;
        send.write_all(&frame)
            .await
            .map_err(|e| ClientError::Closed(e.to_string()))?;
        let outbox = Arc::new(Outbox::new(OUTBOX_LIMIT, self.config.max_frame));
        let (tx, rx) = stream::queue(self.config.stream_queue);
        let side = Side::client(self.config.max_frame);
        tokio::spawn(super::pump_in(recv, tx, side.clone()));
        tokio::spawn(super::pump_out(Arc::clone(&outbox), send, side));
        let mut io = StreamIo::new(id, rx, outbox);
        if let Some(budget) = budget {
            io.set_deadline(tokio::time::Instant::now() + budget);
        }
        Ok(io)
    }
}

fn closed(e: quinn::ConnectionError) -> ClientError {
    ClientError::Closed(e.to_string())
}

/// The name the certificate is checked against, as text (quinn takes a `&str`).
fn server_name(tls: &ClientTls) -> String {
    match tls.server_name() {
        rustls::pki_types::ServerName::DnsName(name) => name.as_ref().to_owned(),
        rustls::pki_types::ServerName::IpAddress(ip) => std::net::IpAddr::from(*ip).to_string(),
        other => format!("{other:?}"),
    }
}

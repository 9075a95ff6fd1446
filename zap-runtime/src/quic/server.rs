//! The QUIC server: quinn's endpoint, a task per connection, a task per QUIC stream, and
//! the same call core, admission and stream handlers as ZAP/TCP.

use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use quinn::{Connection, Endpoint, RecvStream, SendStream};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::{read_first, Side, OP_CALL, OP_STREAM, OUTBOX_LIMIT, REFUSED};
use crate::accept::ServerStats;
use crate::budget::BufferBudget;
use crate::call::{self, NoPipeline, Payload};
use crate::rpc::{Request, Status};
use crate::service::{Authorizer, Service};
use crate::stream::{self, Outbox, StreamIo};
use crate::tls::ServerTls;
use crate::BuilderPool;
use quinn::VarInt;

/// Limits and settings of a [`QuicServer`].
#[derive(Clone, Debug)]
pub struct QuicConfig {
    /// Calls and streams open at once on one connection (QUIC's MAX_STREAMS for
    /// bidirectional streams; default 100, as quic-go's): a client past it waits for
    /// credit, nothing is refused.
    pub max_streams: u32,
    /// Largest frame, in either direction (default 64 MiB, as the Go runtime); a larger
    /// first frame resets the stream, a larger later frame ends its input.
    pub max_frame: usize,
    /// A connection with no packet for this long is closed (default 30 s, as quic-go).
    pub idle_timeout: Duration,
    /// A connection whose handshake has not finished in this long is dropped (10 s).
    pub handshake_timeout: Duration,
    /// Most connections at once (default 10,000); more are refused at the handshake.
    pub max_connections: usize,
    /// Messages waiting for a stream's handler (default 16); past it the peer's sends
    /// wait on QUIC's flow control for that stream alone.
    pub stream_queue: usize,
    /// After shutdown, how long calls in flight may take (default 10 s). Streams end
    /// when the shutdown begins: their handlers are dropped and each peer sees its
    /// stream end.
    pub drain_timeout: Duration,
    /// A stream whose first frame (op and envelope) has not fully arrived in this long
    /// is reset (default 60 s): a silent or trickling stream holds one of
    /// [`max_streams`](Self::max_streams) for this long, not for the connection's life.
    pub first_frame_timeout: Duration,
    /// Bytes a connection's peer may send ahead of what the server has read, across all
    /// its streams (QUIC's connection flow-control window; default 8 MiB); each stream
    /// may send 1 MiB ahead, or this if smaller. With `max_connections` this bounds what
    /// QUIC buffers for peers.
    pub receive_window: u32,
    /// The budget that frames still arriving are held against past their first 16 KiB,
    /// shared with the other servers of the process by default
    /// ([`BufferBudget::process`]): while it is spent, such streams are not read and
    /// QUIC's flow control holds their peers back.
    pub buffer_budget: BufferBudget,
    /// Consulted for every call and stream open, as on ZAP/TCP.
    pub authorize: Option<Authorizer>,
    /// Calls in flight past which a call is answered "overloaded", as on ZAP/TCP.
    pub load_limit: Option<crate::shed::LoadLimit>,
    /// What the health methods answer, as on ZAP/TCP (`ServerConfig::readiness`):
    /// marked draining when the server's shutdown token is cancelled.
    pub readiness: crate::shutdown::Readiness,
}

/// Each stream's own receive window, or the connection's if smaller.
const STREAM_RECEIVE_WINDOW: u32 = 1 << 20;

impl Default for QuicConfig {
    fn default() -> Self {
        QuicConfig {
            max_streams: 100,
            max_frame: super::DEFAULT_MAX_FRAME,
            idle_timeout: Duration::from_secs(30),
            handshake_timeout: Duration::from_secs(10),
            max_connections: 10_000,
            stream_queue: 16,
            drain_timeout: Duration::from_secs(10),
            first_frame_timeout: Duration::from_secs(60),
            receive_window: 8 << 20,
            buffer_budget: BufferBudget::process(),
            authorize: None,
            load_limit: None,
            readiness: crate::shutdown::Readiness::new(),
        }
    }
}

/// ZAP over QUIC, bound and ready to run.
#[derive(Debug)]
pub struct QuicServer<S> {
    endpoint: Endpoint,
    service: Arc<S>,
    config: Arc<Settings>,
    stats: ServerStats,
}

/// The configuration, and how streams read and count frames.
#[derive(Debug)]
struct Settings {
    config: QuicConfig,
    side: Side,
}

impl std::ops::Deref for Settings {
    type Target = QuicConfig;

    fn deref(&self) -> &QuicConfig {
        &self.config
    }
}

impl<S: Service> QuicServer<S> {
    /// Bind a UDP socket at `addr` and serve `service` there with `tls` (its
    /// certificate, key exchange and client-certificate settings; ALPN `zap/1` is set
    /// here).
    pub fn bind(
        addr: SocketAddr,
        service: Arc<S>,
        tls: &ServerTls,
        config: QuicConfig,
    ) -> io::Result<QuicServer<S>> {
        let mut rustls = (**tls.rustls_config()).clone();
        rustls.alpn_protocols = vec![super::ALPN.to_vec()];
        rustls.max_early_data_size = 0;
        let crypto = quinn::crypto::rustls::QuicServerConfig::try_from(rustls)
            .map_err(|e| io::Error::other(format!("these TLS settings cannot serve QUIC: {e}")))?;
        let mut server = quinn::ServerConfig::with_crypto(Arc::new(crypto));
        let mut transport = quinn::TransportConfig::default();
        transport.max_concurrent_bidi_streams(config.max_streams.into());
        transport.max_concurrent_uni_streams(0u32.into());
        transport.receive_window(config.receive_window.into());
        transport.stream_receive_window(config.receive_window.min(STREAM_RECEIVE_WINDOW).into());
        transport.max_idle_timeout(Some(
            quinn::IdleTimeout::try_from(config.idle_timeout)
                .map_err(|e| io::Error::other(format!("idle timeout: {e}")))?,
        ));
        server.transport_config(Arc::new(transport));
        let endpoint = Endpoint::server(server, addr)?;
        let stats = ServerStats::default();
        let side = Side {
            max_frame: config.max_frame,
            budget: Some(config.buffer_budget.clone()),
            stats: Some(stats.clone()),
        };
        Ok(QuicServer {
            endpoint,
            service,
            config: Arc::new(Settings { config, side }),
            stats,
        })
    }

    /// The server's counters: connections (accepted once their handshake finishes,
    /// active, refused past `max_connections`), application bytes (frames, before
    /// QUIC's encryption) and handshakes by outcome and group. Register them with
    /// `Metrics::register_server` to have them scraped.
    pub fn stats(&self) -> ServerStats {
        self.stats.clone()
    }

    /// The bound address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.endpoint.local_addr()
    }

    /// Serve until `shutdown` is cancelled; then stop accepting, let what is in flight
    /// finish (within the drain timeout) and close every connection.
    pub async fn run(self, shutdown: CancellationToken) -> io::Result<()> {
        let local = self.local_addr()?;
        tracing::info!(%local, service = S::NAME, "serving ZAP over QUIC");
        let live = Arc::new(AtomicUsize::new(0));
        let mut connections = JoinSet::new();
        loop {
            let incoming = tokio::select! {
                incoming = self.endpoint.accept() => incoming,
                () = shutdown.cancelled() => {
                    self.config.readiness.set_draining();
                    break;
                }
            };
            let Some(incoming) = incoming else { break };
            if live.load(Ordering::Relaxed) >= self.config.max_connections {
                tracing::warn!(peer = %incoming.remote_address(), "quic: refused a connection: {} are open (the limit)", self.config.max_connections);
                self.stats.refused_one();
                incoming.refuse();
                continue;
            }
            live.fetch_add(1, Ordering::Relaxed);
            let (service, config, shutdown, live, stats) = (
                Arc::clone(&self.service),
                Arc::clone(&self.config),
                shutdown.clone(),
                Arc::clone(&live),
                self.stats.clone(),
            );
            connections.spawn(async move {
                let peer = incoming.remote_address();
                let tls = stats.tls_counters();
                match tokio::time::timeout(config.handshake_timeout, incoming).await {
                    Ok(Ok(connection)) => {
                        // quinn does not tell which group was agreed: counted as neither.
                        tls.completed_with(None);
                        let _open = stats.open();
                        serve(service, connection, config, shutdown).await;
                    }
                    Ok(Err(e)) => {
                        tls.failed();
                        tracing::debug!(%peer, "quic: handshake failed: {e}");
                    }
                    Err(_) => {
                        tls.timed_out();
                        tracing::debug!(%peer, "quic: handshake timed out");
                    }
                }
                live.fetch_sub(1, Ordering::Relaxed);
            });
            while connections.try_join_next().is_some() {}
        }
        while connections.join_next().await.is_some() {}
        self.endpoint.close(0u32.into(), b"server shutting down");
        self.endpoint.wait_idle().await;
        Ok(())
    }
}

/// One connection: a task per QUIC stream until the peer closes it or shutdown.
async fn serve<S: Service>(
    service: Arc<S>,
    connection: Connection,
    config: Arc<Settings>,
    shutdown: CancellationToken,
) {
    let pool = Arc::new(BuilderPool::new());
    let mut streams = JoinSet::new();
    loop {
        let accepted = tokio::select! {
            accepted = connection.accept_bi() => accepted,
            () = shutdown.cancelled() => break,
        };
        let (send, recv) = match accepted {
            Ok(pair) => pair,
            Err(e) => {
                tracing::debug!(peer = %connection.remote_address(), "quic: connection ended: {e}");
                streams.abort_all();
                return;
            }
        };
        let (service, config, pool) =
            (Arc::clone(&service), Arc::clone(&config), Arc::clone(&pool));
        streams.spawn(crate::context::with_peer(
            Some(connection.remote_address()),
            serve_stream(service, send, recv, config, pool, shutdown.clone()),
        ));
        while streams.try_join_next().is_some() {}
    }
    // Shutdown: the calls in flight finish (or are dropped at the drain timeout); the
    // streams have ended with it.
    let drained = tokio::time::timeout(config.drain_timeout, async {
        while streams.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        streams.abort_all();
    }
    connection.close(0u32.into(), b"server shutting down");
}

/// One QUIC stream: a call or a stream, by its first frame's op. A ZAP stream ends
/// when `shutdown` begins (its handler dropped), as it does when a ZAP/TCP connection
/// closes; a call is left to finish.
async fn serve_stream<S: Service>(
    service: Arc<S>,
    mut send: SendStream,
    mut recv: RecvStream,
    config: Arc<Settings>,
    pool: Arc<BuilderPool>,
    shutdown: CancellationToken,
) {
    let first = tokio::time::timeout(
        config.first_frame_timeout,
        read_first(&mut recv, &config.side),
    )
    .await;
    let why = match first {
        Ok(Ok((OP_CALL, envelope))) => {
            super::take_fin(&mut recv);
            return answer(&*service, send, envelope, &config, &pool).await;
        }
        Ok(Ok((OP_STREAM, envelope))) => {
            return open_stream(service, send, recv, envelope, &config, shutdown).await;
        }
        Ok(Ok((other, _))) => format!("unknown op {other}"),
        Ok(Err(e)) => format!("its first frame: {e}"),
        Err(_) => format!("no first frame within {:?}", config.first_frame_timeout),
    };
    // Refused as the Go runtime refuses: STOP_SENDING and RESET_STREAM, code 0.
    tracing::debug!("quic: refused a stream: {why}");
    let _ = recv.stop(REFUSED);
    let _ = send.reset(REFUSED);
}

/// A call: run it through the call core and write the response frame, then FIN.
async fn answer<S: Service>(
    service: &S,
    mut send: SendStream,
    envelope: Bytes,
    config: &Settings,
    pool: &BuilderPool,
) {
    let req = match Request::parse(&envelope) {
        Ok(req) => req,
        Err(e) => {
            tracing::debug!("quic: refused a call: malformed envelope: {e}");
            let _ = send.reset(REFUSED);
            return;
        }
    };
    let context = match call::context_after(&envelope, 0..envelope.len()) {
        Ok(context) => context,
        Err(e) => {
            let text = format!("malformed call context: {e}");
            tracing::debug!("quic: refused a call: {text}");
            let frame = response_frame(Status::BAD_REQUEST, req.promise_id, text.as_bytes(), &[]);
            if send.write_all(&frame).await.is_ok() {
                config.side.wrote(frame.len());
                let _ = send.finish();
            }
            return;
        }
    };
    let answer = context.as_ref().and_then(|c| c.answer_slot()).cloned();
    let context = call::with_capability(context, S::CAPABILITY, || {
        config
            .authorize
            .is_some()
            .then(|| crate::owned::share(&envelope, req.cap))
    });
    let call = call::Call {
        ordinal: req.method,
        cap: req.cap,
        target: req.target,
        payload: Payload::Shared(crate::owned::share(&envelope, req.payload)),
    };
    let mut out = pool.get();
    let mut text = String::new();
    // No pipelining: each call has its own QUIC stream, and no result outlives it. A
    // caller that gives up resets its stream (STOP_SENDING reaches this side): the
    // handler is dropped then.
    let mut admit = config.authorize.as_ref();
    if crate::builtin::is_builtin(req.method) {
        let outcome = crate::builtin::serve::admitted_call::<S>(
            &mut admit,
            req.cap,
            req.method,
            req.payload,
            &config.readiness,
            &mut out,
            &mut text,
        );
        let (status, body) = outcome.answer(&out, &mut text);
        let frame = response_frame(status, req.promise_id, body, &[]);
        if send.write_all(&frame).await.is_ok() {
            config.side.wrote(frame.len());
            let _ = send.finish();
        }
        return;
    }
    let mut no_pipeline = NoPipeline;
    let run = call::run(
        service,
        &mut admit,
        &mut no_pipeline,
        call,
        &mut out,
        &mut text,
        call::Around {
            context,
            limit: config.load_limit.as_ref(),
        },
    );
    let outcome = tokio::select! {
        outcome = run => outcome,
        _ = send.stopped() => {
            tracing::debug!(method = req.method, "quic: the caller gave up on a call: its handler is dropped");
            return;
        }
    };
    let (status, body) = outcome.answer(&out, &mut text);
    // Metadata the handler sends back follows the envelope.
    let extension = answer.and_then(|answer| answer.take_extension());
    let frame = response_frame(
        status,
        req.promise_id,
        body,
        extension.as_deref().unwrap_or(&[]),
    );
    if send.write_all(&frame).await.is_ok() {
        config.side.wrote(frame.len());
        let _ = send.finish();
    }
}

/// `[len][response envelope][extension]`; an extension that would take the frame past
/// a u32 length is left out.
fn response_frame(status: Status, promise_id: u32, body: &[u8], extension: &[u8]) -> Vec<u8> {
    let Some(head) = crate::rpc::response_head(status, promise_id, body.len()) else {
        let text = format!("the answer of {} bytes cannot be sent", body.len());
        return response_frame(Status::INTERNAL, promise_id, text.as_bytes(), &[]);
    };
    // The message fits a u32 (`response_head` checked it); with the extension it may not.
    let Ok(len) = u32::try_from(head.len() + body.len() + extension.len()) else {
        return response_frame(status, promise_id, body, &[]);
    };
    let mut frame = Vec::with_capacity(4 + len as usize);
    frame.extend_from_slice(&len.to_le_bytes());
    frame.extend_from_slice(&head);
    frame.extend_from_slice(body);
    frame.extend_from_slice(extension);
    frame
}

/// A stream: checked and admitted as on ZAP/TCP, then the handler with its messages
/// pumped in from `recv` and out to `send`.
async fn open_stream<S: Service>(
    service: Arc<S>,
    mut send: SendStream,
    recv: RecvStream,
    envelope: Bytes,
    config: &Settings,
    shutdown: CancellationToken,
) {
    let req = match Request::parse(&envelope) {
        Ok(req) => req,
        Err(e) => {
            tracing::debug!("quic: refused a stream open: malformed envelope: {e}");
            let _ = send.reset(REFUSED);
            return;
        }
    };
    let context = match call::context_after(&envelope, 0..envelope.len()) {
        Ok(context) => context,
        Err(e) => {
            tracing::debug!(
                method = req.method,
                "quic: stream refused: malformed call context: {e}"
            );
            let _ = send.reset(VarInt::from_u32(Status::BAD_REQUEST.0));
            return;
        }
    };
    // A refused open is reset with its status as the code (the Go runtime's receiver
    // sees the stream fail; ours, the status).
    let method = match call::admit_stream::<S>(
        &mut config.authorize.as_ref(),
        req.method,
        req.target,
        req.cap,
    ) {
        Ok(method) => method,
        Err((status, why)) => {
            tracing::debug!(method = req.method, %status, "quic: stream refused: {why}");
            let _ = send.reset(VarInt::from_u32(status.0));
            return;
        }
    };
    let context = call::with_capability(context, S::CAPABILITY, || {
        config
            .authorize
            .is_some()
            .then(|| crate::owned::share(&envelope, req.cap))
    });
    let open = crate::owned::share(&envelope, req.payload);
    let outbox = Arc::new(Outbox::new(OUTBOX_LIMIT, config.max_frame));
    let (tx, rx) = stream::queue(config.stream_queue);
    let mut io = StreamIo::new(req.promise_id, rx, Arc::clone(&outbox));
    let end = io.end_handle();
    let name = method.name;
    tokio::spawn(super::pump_in(recv, tx, config.side.clone()));
    let out = tokio::spawn(super::pump_out(
        Arc::clone(&outbox),
        send,
        config.side.clone(),
    ));
    let run =
        crate::builtin::serve::stream(service, req.method, open, io, context, &config.readiness);
    tokio::select! {
        biased;
        // The server shuts down: the stream ends with it.
        () = shutdown.cancelled() => end.end(None),
        done = run => if let Err(e) = done {
            tracing::debug!(
                method = name,
                "quic: stream handler ended with an error: {}",
                e.message
            );
        },
    }
    // The stream's end (with the handler's outcome) is in the outbox: let it go out.
    let _ = out.await;
}

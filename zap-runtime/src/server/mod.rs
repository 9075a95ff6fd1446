//! The ZAP/TCP server (feature `server`): an accept loop and one task per connection.
//!
//! **Both TCP framings on one port** (`docs/transports.md`): the RPC transport
//! (`[len u32][dir u8][envelope]`, spec §6) and the node transport (a NodeID handshake,
//! then `[len u32][reqID u32][flag u32][envelope]`), told apart by the fifth byte of the
//! connection. Each connection is served in its own framing with everything below; on
//! the node transport answers carry their request's reqID, a request reusing a reqID
//! whose answer is not yet sent closes the connection, and the peer's NodeID is in
//! [`CallContext`].
//!
//! Each connection reads frames into a buffer
//! it reuses, answers every complete request **in order** by calling
//! [`Service::call`] with a builder it reuses, writes each response frame straight into
//! a reused write buffer and flushes once per batch of frames. On a warm connection a
//! successful call allocates nothing in the server.
//!
//! * **Errors are answers.** 404 unknown method, 400 malformed envelope / bad payload /
//!   PromiseID 0 / unusable pipelining target, 500 handler failure, 401/403 from
//!   [`ServerConfig::authorize`]: each is answered with the error text as body and the
//!   connection keeps serving.
//! * **Promise pipelining** (spec §5 `Target`): a call whose Target names the PromiseID
//!   of an earlier call on the same connection runs with that call's result body as its
//!   payload. The last [`ServerConfig::pipeline_results`] results are remembered.
//! * **Limits.** A broken stream (frame over [`ServerConfig::max_frame`], length 0,
//!   unknown direction) closes that connection only, with a warning. Connections past
//!   [`ServerConfig::max_connections`] are refused: closed at once, not queued, and
//!   counted in [`ServerStats::refused`] (the HTTP server does the same); a
//!   connection without a complete frame for [`ServerConfig::idle_timeout`] is
//!   closed. A peer that does not read its answers stops being read (back-pressure),
//!   and is dropped if it stalls for the idle timeout.
//! * **Graceful shutdown.** When the `shutdown` [`CancellationToken`] is cancelled,
//!   [`Server::run`] stops accepting; every connection answers the requests it has
//!   fully read, flushes and closes; `run` returns when all are done or
//!   [`ServerConfig::drain_timeout`] passed.
//!
//! ```no_run
//! use std::sync::Arc;
//! use zap_runtime::server::{CancellationToken, Server, ServerConfig};
//! use zap_runtime::{Builder, CallError, MethodInfo, Reply, Service};
//!
//! /// Method 1 answers an empty body; nothing else exists.
//! struct Ping;
//!
//! impl Service for Ping {
//!     const NAME: &'static str = "Ping";
//!     const METHODS: &'static [MethodInfo] = &[];
//!     async fn call<'a>(&'a self, ordinal: u32, _: &'a [u8], _: &'a mut Builder)
//!         -> Result<Reply, CallError> {
//!         match ordinal {
//!             1 => Ok(Reply::Empty),
//!             n => Err(CallError::unknown_method(Self::NAME, n)),
//!         }
//!     }
//! }
//!
//! # async fn run() -> std::io::Result<()> {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:9000").await?;
//! let server = Server::new(listener, Arc::new(Ping), ServerConfig::default());
//! let stats = server.stats(); // live counters, e.g. stats.active_connections()
//! let stop = CancellationToken::new();
//! let running = tokio::spawn(server.run(stop.clone()));
//! // ... later: stop accepting, answer what was read, wait for the drain.
//! stop.cancel();
//! running.await.expect("server task")
//! # }
//! ```

mod answers;
mod conn;
mod context;
mod faults;
mod framing;
mod respond;
mod results;
mod streams;
#[cfg(unix)]
mod unix;

pub use self::context::CallContext;
pub use self::faults::peer_faults;
#[cfg(unix)]
pub use self::unix::UnixServer;
pub use crate::accept::{Bound, ServerStats};
/// The shutdown signal of [`Server::run`] and [`serve`] (from `tokio-util`).
pub use tokio_util::sync::CancellationToken;

use std::io;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};

use crate::accept::{Counted, Limits};

use crate::frame::node::{NodeId, NODE_DEFAULT_MAX_FRAME};
use crate::frame::DEFAULT_MAX_FRAME;
use crate::service::{Authorizer, Service};

/// The default [`ServerConfig::vectored_write_min`]: 128 KiB. An answer sent from its
/// own buffer costs the connection's builder that buffer (it gets a new one of the same
/// capacity). In the echo benchmark (benches/README.md, "Owned answers and vectored
/// writes") 64 KiB answers were slower sent from their own buffer than copied in every
/// round; from 128 KiB on the two are level within the noise, with one copy fewer.
pub const DEFAULT_VECTORED_WRITE_MIN: usize = 128 << 10;

/// Limits and timeouts of a server. Every field has a sane default.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Largest accepted RPC-transport frame length (the `len` field). A larger one
    /// closes the connection. Default [`DEFAULT_MAX_FRAME`] (16 MiB).
    pub max_frame: u32,
    /// The budget for bytes buffered of frames still arriving, shared with the other
    /// servers of the process by default ([`BufferBudget::process`](crate::BufferBudget::process),
    /// 1 GiB): what a connection's read buffer grows past 16 KiB is counted, and when
    /// the budget is spent the connection reads nothing more until bytes are given back
    /// (or its idle timeout closes it).
    pub buffer_budget: crate::BufferBudget,
    /// Most connections served at once; more are closed as soon as they are accepted
    /// (refused, not queued) and counted in [`ServerStats::refused`]. Default 10 000.
    /// Each takes a file descriptor: when the server starts, the process's soft limit
    /// on open files is raised to its hard limit, and a WARN line says so if this and
    /// the other servers' limits do not fit in it.
    pub max_connections: usize,
    /// Most connections from one IP address at once; more are refused like those past
    /// [`max_connections`](Self::max_connections). Default `None` (no limit per
    /// address: behind a load balancer or NAT, many clients share one).
    pub max_connections_per_address: Option<usize>,
    /// A connection that sends no complete frame (or does not take its answers) for this
    /// long is closed. Default 5 minutes.
    pub idle_timeout: Duration,
    /// A new connection (after its TLS handshake, if any) that has not sent the first
    /// 5 bytes, which tell its framing, within this long is closed: a silent socket
    /// holds one of [`max_connections`](Self::max_connections) for this long, not the
    /// idle timeout. Default 10 s.
    pub first_bytes_timeout: Duration,
    /// Most requests answered on one connection before their answers are flushed, even
    /// within one batch of frames read together. Calls run in order, so nothing else
    /// is ever in flight. Default 1024.
    pub max_in_flight: usize,
    /// How many results each connection remembers for promise pipelining (0 disables
    /// pipelining). Default 256.
    pub pipeline_results: usize,
    /// How many bytes of result bodies each connection keeps for pipelining; allocated
    /// once per connection that makes a call. Results larger than this cannot be
    /// pipelined on. Default 64 KiB.
    pub pipeline_bytes: usize,
    /// Answers are flushed early once this many bytes are waiting; while the peer does
    /// not take them, nothing more is read from it (back-pressure). Default 256 KiB.
    pub write_buffer_limit: usize,
    /// After shutdown is triggered, how long connections get to finish before they
    /// are dropped. Default 10 s.
    pub drain_timeout: Duration,
    /// An answer of at least this many bytes is not copied into the write buffer: its
    /// headers are, and the handler's message goes out from its own buffer in the same
    /// vectored write (`writev`). Smaller answers keep the single coalesced write.
    /// Default [`DEFAULT_VECTORED_WRITE_MIN`] (128 KiB); `usize::MAX` turns it off.
    pub vectored_write_min: usize,
    /// Consulted before every call with the request's `Cap` field: a refusal is answered
    /// with its status (401 or 403) and reason, and the handler does not run. `None`
    /// (the default) serves everyone. See `zap_runtime::cap::Policy` (feature `cap`).
    pub authorize: Option<Authorizer>,
    /// Calls in flight past which a call is answered "overloaded" (503) without
    /// running: see [`LoadLimit`](crate::shed::LoadLimit). Default `None`: no limit.
    pub load_limit: Option<crate::shed::LoadLimit>,
    /// The NodeID this server announces to node-transport peers (see
    /// `docs/transports.md`). Default `None`: the service's name, cut to 60 bytes.
    pub node_id: Option<NodeId>,
    /// Largest accepted node-transport frame length (the `len` field); a larger one
    /// closes the connection. Default [`NODE_DEFAULT_MAX_FRAME`] (10 MiB, the peers' cap).
    pub node_max_frame: u32,
    /// A node-transport connection must complete its NodeID handshake within this long
    /// of starting it, or it is closed. Default 10 s.
    pub handshake_timeout: Duration,
    /// Most streams open at once on one connection; an open past it is ended at once
    /// (the wire has no way to say why). Default 100, as the Go runtime's QUIC
    /// transport allows.
    pub max_streams: usize,
    /// Messages each stream queues for its handler; when full, the connection stops
    /// reading until the handler takes one. Default [`DEFAULT_STREAM_QUEUE`] (16).
    ///
    /// [`DEFAULT_STREAM_QUEUE`]: crate::stream::DEFAULT_STREAM_QUEUE
    pub stream_queue: usize,
    /// Largest stream message a handler may send (bytes); a larger one fails its
    /// send. Default the largest a default frame holds: 16 MiB minus 5 bytes.
    pub max_stream_message: usize,
    /// A stream with no message either way for this long (checked once per period,
    /// so it ends after one to two periods) has its handler dropped and is ended.
    /// Default 10 minutes: raise it for streams that may be quiet longer.
    pub stream_idle_timeout: Duration,
    /// Serve over TLS with these settings (feature `tls`); `None` (the default) serves
    /// plain TCP. With TLS every connection must finish a TLS handshake within
    /// [`ServerTls::handshake_timeout`](crate::tls::ServerTls::handshake_timeout) before
    /// its first frame is read; one that fails or stalls is closed and counted in
    /// [`ServerStats::tls`].
    #[cfg(feature = "tls")]
    pub tls: Option<crate::tls::ServerTls>,
    /// What the health methods ([`crate::builtin`]) answer: serving until draining
    /// starts. Share [`Shutdown::readiness`](crate::shutdown::Shutdown::readiness) (and
    /// the HTTP server's `HttpConfig::readiness`) so that health turns "not serving"
    /// when SIGTERM starts the drain, before the listener closes. The server marks it
    /// draining itself when its `shutdown` token is cancelled. Default: a state of its
    /// own, serving.
    pub readiness: crate::shutdown::Readiness,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            max_frame: DEFAULT_MAX_FRAME,
            buffer_budget: crate::BufferBudget::process(),
            max_connections: 10_000,
            max_connections_per_address: None,
            idle_timeout: Duration::from_secs(300),
            first_bytes_timeout: Duration::from_secs(10),
            max_in_flight: 1024,
            pipeline_results: 256,
            pipeline_bytes: 64 << 10,
            write_buffer_limit: 256 << 10,
            drain_timeout: Duration::from_secs(10),
            vectored_write_min: DEFAULT_VECTORED_WRITE_MIN,
            authorize: None,
            load_limit: None,
            node_id: None,
            node_max_frame: NODE_DEFAULT_MAX_FRAME,
            handshake_timeout: Duration::from_secs(10),
            max_streams: 100,
            stream_queue: crate::stream::DEFAULT_STREAM_QUEUE,
            max_stream_message: (DEFAULT_MAX_FRAME - crate::stream::MESSAGE_OVERHEAD) as usize,
            stream_idle_timeout: Duration::from_secs(600),
            #[cfg(feature = "tls")]
            tls: None,
            readiness: crate::shutdown::Readiness::new(),
        }
    }
}

/// A ZAP/TCP server, ready to run: a listener, the service it serves and its limits.
/// `Server::new(listener, service, config)`; take [`stats`](Bound::stats) before
/// [`run`](Bound::run) to watch it while it runs.
pub type Server<S> = Bound<S, ServerConfig>;

impl<S: Service> Bound<S, ServerConfig> {
    /// Serve until `shutdown` is cancelled, then drain (see the [module docs](self)).
    /// Returns once every connection task has ended. Accept errors (e.g. out of file
    /// descriptors) are logged and retried, so the result is currently always `Ok`.
    pub async fn run(self, shutdown: CancellationToken) -> io::Result<()> {
        let limits = Limits {
            name: "zap",
            max_connections: self.config.max_connections,
            max_per_address: self.config.max_connections_per_address,
            drain_timeout: self.config.drain_timeout,
        };
        let stats = self.stats();
        let draining =
            crate::builtin::serve::mark_draining(self.config.readiness.clone(), shutdown.clone());
        let serving = self.accept_and_drain(limits, shutdown, |service, mut config, shutdown| {
            config.node_id = Some(framing::server_node_id(config.node_id, S::NAME));
            let config = Arc::new(config);
            move |stream: TcpStream, peer| {
                let _ = stream.set_nodelay(true);
                let (service, config, shutdown) =
                    (Arc::clone(&service), Arc::clone(&config), shutdown.clone());
                let stats = stats.clone();
                async move {
                    // The handshake runs here, in the connection's own task: a slow or
                    // hostile one holds up no other connection.
                    #[cfg(feature = "tls")]
                    if let Some(tls) = &config.tls {
                        let Some(stream) =
                            tls.handshake(stream, peer, &stats, &shutdown, "zap").await
                        else {
                            return;
                        };
                        let stream = Counted::new(stream, &stats);
                        return conn::run(stream, peer, &service, &config, &shutdown).await;
                    }
                    let stream = Counted::new(stream, &stats);
                    conn::run(stream, peer, &service, &config, &shutdown).await
                }
            }
        });
        tokio::select! {
            () = serving => {}
            never = draining => match never {},
        }
        Ok(())
    }
}

/// Serve `service` on every connection accepted from `listener` until `shutdown` is
/// cancelled, then drain: `Server::new(listener, service, config).run(shutdown)`. Use
/// [`Server`] to watch its [`ServerStats`].
pub async fn serve<S: Service>(
    listener: TcpListener,
    service: Arc<S>,
    config: ServerConfig,
    shutdown: CancellationToken,
) -> io::Result<()> {
    Server::new(listener, service, config).run(shutdown).await
}

/// Serve one connection over `stream`, any byte stream, as [`Server`] serves each
/// accepted one (both framings, pipelining, cancel frames, streams, the built-in
/// methods, every limit and timeout of `config`), until the peer closes it, a timeout
/// or a limit does, or `shutdown` asks it to finish what it has read. For fuzzing and
/// tests of the whole connection path without sockets; not a stable API.
#[doc(hidden)]
pub async fn serve_stream<S, IO>(
    service: Arc<S>,
    mut config: ServerConfig,
    stream: IO,
    shutdown: CancellationToken,
) where
    S: Service,
    IO: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    config.node_id = Some(framing::server_node_id(config.node_id, S::NAME));
    let peer = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    conn::run(stream, peer, &service, &config, &shutdown).await;
}

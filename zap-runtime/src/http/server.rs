//! The HTTP server: the shared accept loop ([`crate::accept`]) with a hyper HTTP/1.1
//! connection per accepted socket, keep-alive with a header (and idle) timeout, and
//! graceful shutdown.

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Body, Bytes, Frame, SizeHint};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::routes::{route, Shared};
use super::stall::{Progress, WriteDeadline};
use super::ws::SessionSlot;
use super::HttpConfig;
use crate::accept::{Bound, Counted, Limits};
use crate::service::Service;
use crate::BuilderPool;

/// A JSON-RPC 2.0 over HTTP/1.1 server, ready to run: a listener, the service it serves
/// and its limits. `HttpServer::new(listener, service, config)`; take
/// [`stats`](Bound::stats) before [`run`](Bound::run) to watch it.
pub type HttpServer<S> = Bound<S, HttpConfig>;

impl<S: Service> Bound<S, HttpConfig> {
    /// Serve until `shutdown` is cancelled.
    ///
    /// Routes: `POST /rpc` (JSON-RPC, single or batch) and `GET /health`. See the
    /// [module documentation](super) for the status codes and error codes.
    ///
    /// Connections past [`HttpConfig::max_connections`] are refused (closed at once,
    /// counted in [`ServerStats::refused`](super::ServerStats::refused)). On shutdown the listener is closed at once;
    /// requests in flight are finished and answered, idle keep-alive connections are
    /// closed, and the function returns when every connection is gone, or after
    /// [`HttpConfig::drain_timeout`], when the stragglers are dropped. Failed accepts
    /// are logged and retried, so the result is `Ok` unless the listener itself is
    /// unusable.
    pub async fn run(self, shutdown: CancellationToken) -> io::Result<()> {
        let local = self.local_addr()?;
        tracing::info!(%local, service = S::NAME, "serving JSON-RPC over HTTP at POST /rpc");
        let limits = Limits {
            name: "http",
            max_connections: self.config.max_connections,
            max_per_address: self.config.max_connections_per_address,
            drain_timeout: self.config.drain_timeout,
        };
        let stats = self.stats();
        #[cfg(feature = "tls")]
        let tls = self
            .config
            .tls
            .as_ref()
            .map(|tls| tls.with_default_alpn(b"http/1.1"));
        self.accept_and_drain(limits, shutdown, |service, config, shutdown| {
            let shared = Arc::new(Shared {
                service,
                pool: BuilderPool::new(),
                config,
            });
            move |stream: TcpStream, peer| {
                // Answers are small and written whole: do not let Nagle hold them back.
                let _ = stream.set_nodelay(true);
                let (shared, shutdown) = (Arc::clone(&shared), shutdown.clone());
                let stats = stats.clone();
                #[cfg(feature = "tls")]
                let tls = tls.clone();
                async move {
                    // The handshake runs in the connection's own task, never in the
                    // accept loop.
                    #[cfg(feature = "tls")]
                    if let Some(tls) = tls {
                        let Some(stream) =
                            tls.handshake(stream, peer, &stats, &shutdown, "http").await
                        else {
                            return;
                        };
                        let stream = Counted::new(stream, &stats);
                        let connection = serve_connection(shared, stream, peer, shutdown);
                        return crate::context::with_peer(Some(peer), connection).await;
                    }
                    let stream = Counted::new(stream, &stats);
                    let connection = serve_connection(shared, stream, peer, shutdown);
                    crate::context::with_peer(Some(peer), connection).await
                }
            }
        })
        .await;
        Ok(())
    }
}

/// Serve `service` as JSON-RPC 2.0 over HTTP/1.1 on `listener` until `shutdown` is
/// cancelled: `HttpServer::new(listener, service, config).run(shutdown)`. Use
/// [`HttpServer`] to watch its [`ServerStats`](super::ServerStats).
pub async fn serve_http<S: Service>(
    listener: TcpListener,
    service: Arc<S>,
    config: HttpConfig,
    shutdown: CancellationToken,
) -> io::Result<()> {
    HttpServer::new(listener, service, config)
        .run(shutdown)
        .await
}

/// Serve one connection over `stream`, any byte stream, as [`HttpServer`] serves each
/// accepted one (routing, limits, timeouts, the JSON-RPC path), until the peer closes
/// it or a timeout does. For fuzzing and tests of the whole HTTP path without sockets;
/// not a stable API.
#[doc(hidden)]
pub async fn serve_stream<S: Service, IO>(service: Arc<S>, config: HttpConfig, stream: IO)
where
    IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let shared = Arc::new(Shared {
        service,
        pool: BuilderPool::new(),
        config,
    });
    let peer = SocketAddr::from(([127, 0, 0, 1], 0));
    serve_connection(shared, stream, peer, CancellationToken::new()).await;
}

/// Serve one connection (TCP, or TLS over TCP) until the peer closes it, a timeout
/// closes it, or shutdown asks it to finish what is in flight and close.
async fn serve_connection<S: Service, IO>(
    shared: Arc<Shared<S>>,
    stream: IO,
    peer: SocketAddr,
    shutdown: CancellationToken,
) where
    IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let header_read_timeout = shared.config.header_read_timeout;
    let pipeline_flush = shared.config.pipeline_flush;
    let conn = Arc::new(ConnShared {
        shared,
        session: SessionSlot::default(),
        shutdown,
        idle: IdleClock::new(),
    });
    let stream = WriteDeadline::new(
        stream,
        conn.shared.config.write_stall_timeout,
        Arc::clone(&conn),
    );
    let service = {
        let conn = Arc::clone(&conn);
        service_fn(move |req| {
            // One reference count per request: the future, then the answer's body, hold it.
            let conn = Arc::clone(&conn);
            async move {
                conn.idle.busy();
                let reply = route(&conn.shared, req, &conn.session, &conn.shutdown).await;
                Ok::<_, Infallible>(reply.map(|body| Answer { body, conn }))
            }
        })
    };
    // hyper's own header timer costs an allocation and a timer registration per request;
    // the idle clock below keeps the same deadline with one clock read per answer.
    let connection = http1::Builder::new()
        .keep_alive(true)
        // Every answer is flattened into one write buffer, never queued as separate
        // buffers behind its head. With queued buffers, hyper (1.x, `Conn::on_parse_error`)
        // writes the 400 for a malformed pipelined request into its head buffer while
        // the previous answer's body still waits in the queue, so the 400 goes out in
        // the middle of that body whenever the peer reads slower than it pipelines
        // (and its own debug assertion, `can_write_head`, panics the connection task in
        // debug builds). Flattened, the 400 follows the bytes before it. The copy this
        // costs is of answers the server caps (`max_answer`) and mostly small.
        .writev(false)
        // Opt-in (see `HttpConfig::pipeline_flush`): answers to pipelined requests wait
        // for one flush instead of each taking its own write.
        .pipeline_flush(pipeline_flush)
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades();
    tokio::pin!(connection);
    let result = tokio::select! {
        result = connection.as_mut() => result,
        () = conn.idle.expired(header_read_timeout) => {
            tracing::debug!(
                %peer,
                "closing HTTP connection: no request head within {header_read_timeout:?} of the last answer"
            );
            return;
        }
        () = conn.shutdown.cancelled() => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(e) = result {
        tracing::debug!(%peer, "HTTP connection ended with an error: {e}");
    }
    // Upgraded to a WebSocket: the session is this connection now (it closes itself on
    // shutdown).
    let session = conn
        .session
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take();
    if let Some(session) = session {
        session.await;
    }
}

/// What one connection's requests share.
struct ConnShared<S> {
    shared: Arc<Shared<S>>,
    session: SessionSlot,
    shutdown: CancellationToken,
    idle: IdleClock,
}

impl<S> Progress for ConnShared<S> {
    fn wrote(&self) {
        self.idle.wrote();
    }
}

/// The header-read (idle) deadline of a connection without a timer per request: how
/// many requests are being answered, the time the last answer was handed to hyper, and a
/// count of completed writes. One timer per connection wakes when the deadline could
/// have passed and looks.
struct IdleClock {
    origin: Instant,
    /// Requests whose answer hyper has not yet let go of.
    answering: AtomicU32,
    /// Nanoseconds after `origin` when the last answer was handed over (0: none yet).
    since: AtomicU64,
    /// Writes that completed: an answer still being written is not idleness.
    writes: AtomicU64,
}

impl IdleClock {
    fn new() -> Self {
        IdleClock {
            origin: Instant::now(),
            answering: AtomicU32::new(0),
            since: AtomicU64::new(0),
            writes: AtomicU64::new(0),
        }
    }

    /// A request head arrived: no header deadline until its answer is handed over.
    fn busy(&self) {
        self.answering.fetch_add(1, Ordering::Relaxed);
    }

    /// An answer was handed to hyper: unless another request is being answered, the
    /// next head is due within the timeout.
    fn idle(&self) {
        let now = u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.since.store(now, Ordering::Relaxed);
        self.answering.fetch_sub(1, Ordering::Relaxed);
    }

    fn wrote(&self) {
        self.writes.fetch_add(1, Ordering::Relaxed);
    }

    /// Resolves when no request head has arrived for `timeout` since the last answer
    /// was handed over and written (or since the connection started).
    async fn expired(&self, timeout: Duration) {
        let mut deadline = self.origin + timeout;
        let mut writes = self.writes.load(Ordering::Relaxed);
        loop {
            tokio::time::sleep_until(deadline).await;
            let now = Instant::now();
            let seen = self.writes.load(Ordering::Relaxed);
            if self.answering.load(Ordering::Relaxed) > 0 || seen != writes {
                // A request is being answered, or bytes of an answer went out since
                // the last look: count from now.
                deadline = now + timeout;
            } else {
                let since = Duration::from_nanos(self.since.load(Ordering::Relaxed));
                let due = self.origin + since + timeout;
                if now >= due {
                    return;
                }
                deadline = due;
            }
            writes = seen;
        }
    }
}

/// A response body that marks its connection idle when hyper is done with it.
struct Answer<S> {
    body: Full<Bytes>,
    conn: Arc<ConnShared<S>>,
}

impl<S> Drop for Answer<S> {
    fn drop(&mut self) {
        self.conn.idle.idle();
    }
}

impl<S> Body for Answer<S> {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;

    use super::*;

    const LIMIT: Duration = Duration::from_secs(30);

    /// How long after now `clock.expired(LIMIT)` resolves, while `during` runs beside it
    /// (time is paused: the runtime jumps to each next timer).
    async fn expires_after(clock: &IdleClock, during: impl Future<Output = ()>) -> Duration {
        let started = Instant::now();
        let expired = async {
            clock.expired(LIMIT).await;
            started.elapsed()
        };
        let (elapsed, ()) = tokio::join!(expired, during);
        elapsed
    }

    #[tokio::test(start_paused = true)]
    async fn a_connection_that_sends_nothing_expires_at_the_limit() {
        let clock = IdleClock::new();
        assert_eq!(expires_after(&clock, async {}).await, LIMIT);
    }

    #[tokio::test(start_paused = true)]
    async fn the_limit_counts_from_the_last_answer() {
        let clock = IdleClock::new();
        let during = async {
            tokio::time::sleep(Duration::from_secs(20)).await;
            clock.busy();
            tokio::time::sleep(Duration::from_secs(5)).await;
            clock.idle();
        };
        assert_eq!(
            expires_after(&clock, during).await,
            Duration::from_secs(25) + LIMIT
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_request_being_answered_never_expires() {
        let clock = IdleClock::new();
        let during = async {
            clock.busy();
            tokio::time::sleep(LIMIT * 10).await;
            clock.idle();
        };
        // Looked at every LIMIT while busy: the last look before the answer is at
        // 10 * LIMIT, then one more LIMIT of idleness.
        assert_eq!(expires_after(&clock, during).await, LIMIT * 11);
    }

    /// Answers handed over out of turn (a pipelined request's head arriving before the
    /// previous answer is let go of) leave the connection busy until the last one.
    #[tokio::test(start_paused = true)]
    async fn overlapping_requests_keep_the_connection_busy() {
        let clock = IdleClock::new();
        let during = async {
            clock.busy();
            clock.busy();
            clock.idle();
            tokio::time::sleep(LIMIT * 3).await;
            clock.idle();
        };
        // Busy at the looks at LIMIT, 2 and 3 LIMIT; idle from 3 LIMIT on.
        assert_eq!(expires_after(&clock, during).await, LIMIT * 4);
    }

    #[tokio::test(start_paused = true)]
    async fn an_answer_still_being_written_is_not_idleness() {
        let clock = IdleClock::new();
        let during = async {
            clock.busy();
            clock.idle(); // handed to hyper at once; its bytes go out slowly
            for _ in 0..4 {
                tokio::time::sleep(Duration::from_secs(20)).await;
                clock.wrote();
            }
        };
        // Writes at 20, 40, 60 and 80 s: the looks at 30 and 60 s see new writes and
        // look again a LIMIT later; at 90 s one more write (at 80 s) was seen; at 120 s
        // none, and the answer was handed over long before.
        assert_eq!(expires_after(&clock, during).await, LIMIT * 4);
    }
}

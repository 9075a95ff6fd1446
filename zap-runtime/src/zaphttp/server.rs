//! The zaphttp server: any tower service of `http::Request<Body>`, served over TCP or a
//! unix socket.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::{Buf, Bytes};
use futures_util::FutureExt;
use http::{HeaderMap, Request, Response, StatusCode};
use http_body::Body as HttpBody;
use http_body_util::BodyExt;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;
use tower::Service;

use super::codec::{Frame, FrameKind, HEADER_LEN, OBJECT_LEN};
use super::convert::{decode_request, encode_data, encode_end, encode_response};
use super::io::{write_all, FrameReader, Waits};
use super::{Body, BoxError, Error};
use crate::accept::{Bound, Counted, Limits};
use crate::budget::Held;

/// The address of the peer of the connection a request came on, in the request's
/// extensions (`None` on a unix socket).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeerAddr(pub Option<SocketAddr>);

/// Limits and timeouts of a zaphttp server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerConfig {
    /// Largest frame read (default [`MAX_FRAME`](super::MAX_FRAME), 64 MiB, as Go): a
    /// longer one closes the connection. Answers are bounded by what Go reads: a
    /// response body that would not fit 64 MiB is streamed.
    pub max_frame: usize,
    /// How long a kept-alive connection may wait for its next request (default 60 s).
    pub idle_timeout: Duration,
    /// How long a request frame may take to arrive once its first byte has (default
    /// 30 s): a peer that sends a frame slowly holds a connection no longer than this.
    pub read_timeout: Duration,
    /// How long an answer may wait without a byte of it being taken by the peer (default
    /// 30 s); past it the connection is closed and what it held is freed. A client that
    /// never reads a streamed answer holds its connection no longer than this.
    pub write_stall_timeout: Duration,
    /// Most connections served at once (default 1024); more are closed at once.
    pub max_connections: usize,
    /// Most connections from one IP address at once (default `None`: no limit).
    pub max_connections_per_address: Option<usize>,
    /// After shutdown, how long exchanges in flight get to finish (default 30 s).
    pub drain_timeout: Duration,
    /// The budget for request bytes being held, shared with the process's other servers
    /// by default: a frame past 16 KiB is counted from when its length is read until its
    /// exchange is answered, and waits to be read while the budget is spent.
    pub buffer_budget: crate::BufferBudget,
    /// What the server counts, for `/metrics` (`Metrics::register_counter` takes each
    /// of them). A fresh set by default.
    pub counters: Counters,
}

/// What a zaphttp server counts over all its connections: shared by clones, read at any
/// time. Two are equal when they are the same counters.
#[derive(Clone, Debug, Default)]
pub struct Counters {
    /// Requests answered (whole or streamed), those the service failed on included.
    pub requests: Arc<AtomicU64>,
    /// Answers streamed (a head, data frames, an end).
    pub streamed: Arc<AtomicU64>,
    /// Requests the service failed on or panicked on (answered 500 or 503).
    pub failed: Arc<AtomicU64>,
    /// Frames refused as malformed (answered 400, the connection then closed).
    pub malformed: Arc<AtomicU64>,
}

impl PartialEq for Counters {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.requests, &other.requests)
    }
}

impl Eq for Counters {}

fn count(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            max_frame: super::MAX_FRAME,
            idle_timeout: Duration::from_secs(60),
            read_timeout: Duration::from_secs(30),
            write_stall_timeout: Duration::from_secs(30),
            max_connections: 1024,
            max_connections_per_address: None,
            drain_timeout: Duration::from_secs(30),
            buffer_budget: crate::BufferBudget::process(),
            counters: Counters::default(),
        }
    }
}

/// A zaphttp server, ready to run: `Server::new(listener, Arc::new(service), config)`,
/// then [`run`](Bound::run). Its [`stats`](Bound::stats) count connections and bytes.
///
/// ```no_run
/// # async fn doc() -> std::io::Result<()> {
/// use std::sync::Arc;
/// use zap_runtime::zaphttp::{Body, Server, ServerConfig};
///
/// // Any tower service of http::Request<Body>; an axum Router is one.
/// let hello = tower::service_fn(|_req: http::Request<Body>| async {
///     Ok::<_, std::convert::Infallible>(http::Response::new(Body::from("hello\n")))
/// });
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:9653").await?;
/// let shutdown = tokio_util::sync::CancellationToken::new();
/// Server::new(listener, Arc::new(hello), ServerConfig::default()).run(shutdown).await
/// # }
/// ```
pub type Server<S> = Bound<S, ServerConfig>;

/// What an answer's body must be to be served: an [`http_body::Body`] that can move
/// between threads, whose errors can be boxed (implemented for every such body; not to
/// be implemented by hand).
pub trait AnswerBody: HttpBody<Data: Send, Error: Into<BoxError> + Send> + Send + 'static {}

impl<B> AnswerBody for B where B: HttpBody<Data: Send, Error: Into<BoxError> + Send> + Send + 'static
{}

/// What a service must be to be served: a cloneable tower service of
/// `http::Request<Body>` answering `http::Response<B>` for any body `B` of bytes
/// (implemented for every such [`tower::Service`]; not to be implemented by hand).
pub trait HttpService<B>: Clone + Send + Sync + 'static {
    /// The service's error.
    type Failure: Into<BoxError>;
    /// The service's future.
    type Answer: Future<Output = Result<Response<B>, Self::Failure>> + Send + 'static;
    /// [`Service::poll_ready`].
    fn ready_http(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Failure>>;
    /// [`Service::call`].
    fn call_http(&mut self, request: Request<Body>) -> Self::Answer;
}

impl<S, B> HttpService<B> for S
where
    S: Service<Request<Body>, Response = Response<B>> + Clone + Send + Sync + 'static,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
{
    type Failure = S::Error;
    type Answer = S::Future;
    fn ready_http(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), S::Error>> {
        self.poll_ready(cx)
    }
    fn call_http(&mut self, request: Request<Body>) -> S::Future {
        self.call(request)
    }
}

impl<S> Bound<S, ServerConfig> {
    /// Serve until `shutdown` is cancelled. On shutdown the listener closes at once,
    /// exchanges in flight are finished, idle connections are closed, and the function
    /// returns when every connection is gone or after
    /// [`drain_timeout`](ServerConfig::drain_timeout).
    pub async fn run<B>(self, shutdown: CancellationToken) -> io::Result<()>
    where
        S: HttpService<B>,
        B: AnswerBody,
    {
        let local = self.local_addr()?;
        tracing::info!(%local, "serving HTTP over ZAP frames (zaphttp)");
        let limits = Limits {
            name: "zaphttp",
            max_connections: self.config.max_connections,
            max_per_address: self.config.max_connections_per_address,
            drain_timeout: self.config.drain_timeout,
        };
        let stats = self.stats();
        self.accept_and_drain(limits, shutdown, |service, config, shutdown| {
            let config = Arc::new(config);
            move |stream: TcpStream, peer| {
                let _ = stream.set_nodelay(true);
                let service = S::clone(&service);
                let (config, shutdown) = (Arc::clone(&config), shutdown.clone());
                let stream = Counted::new(stream, &stats);
                async move {
                    let connection =
                        serve_connection(service, stream, Some(peer), &config, &shutdown);
                    crate::context::with_peer(Some(peer), connection).await;
                }
            }
        })
        .await;
        Ok(())
    }
}

/// Serve `service` over zaphttp on `listener` until `shutdown` is cancelled:
/// `Server::new(listener, Arc::new(service), config).run(shutdown)`.
pub async fn serve<S, B>(
    listener: TcpListener,
    service: S,
    config: ServerConfig,
    shutdown: CancellationToken,
) -> io::Result<()>
where
    S: HttpService<B>,
    B: AnswerBody,
{
    Server::new(listener, Arc::new(service), config)
        .run(shutdown)
        .await
}

/// A zaphttp server on a unix socket, bound and ready to run: the same frames as over
/// TCP. The socket file is created with mode 0600 (the owner) unless bound with another;
/// a stale file left by a crashed server is replaced, a live one refused, and the file
/// is removed when the server stops.
#[cfg(unix)]
pub struct UnixServer<S> {
    socket: crate::unix_socket::Bound,
    service: S,
    config: ServerConfig,
    stats: crate::accept::ServerStats,
}

#[cfg(unix)]
impl<S> std::fmt::Debug for UnixServer<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UnixServer")
            .field("path", &self.socket.path)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

#[cfg(unix)]
impl<S> UnixServer<S> {
    /// Bind a socket file at `path` (mode 0600) for `service`.
    pub fn bind(
        path: impl AsRef<std::path::Path>,
        service: S,
        config: ServerConfig,
    ) -> io::Result<Self> {
        UnixServer::bind_with_mode(path, service, config, crate::unix_socket::DEFAULT_MODE)
    }

    /// Bind a socket file at `path` with permission bits `mode` for `service`.
    pub fn bind_with_mode(
        path: impl AsRef<std::path::Path>,
        service: S,
        config: ServerConfig,
        mode: u32,
    ) -> io::Result<Self> {
        let path = path.as_ref().to_path_buf();
        let (listener, identity) = crate::unix_socket::bind(&path, mode)?;
        Ok(UnixServer {
            socket: crate::unix_socket::Bound {
                listener,
                path,
                identity,
            },
            service,
            config,
            stats: crate::accept::ServerStats::default(),
        })
    }

    /// The socket file's path.
    pub fn path(&self) -> &std::path::Path {
        &self.socket.path
    }

    /// The live counters of this server (connections, bytes).
    pub fn stats(&self) -> crate::accept::ServerStats {
        self.stats.clone()
    }

    /// Serve until `shutdown` is cancelled, then drain as [`Server::run`] does.
    pub async fn run<B>(self, shutdown: CancellationToken) -> io::Result<()>
    where
        S: HttpService<B>,
        B: AnswerBody,
    {
        let UnixServer {
            socket,
            service,
            config,
            stats,
        } = self;
        tracing::info!(path = %socket.path.display(), "serving HTTP over ZAP frames (zaphttp) on a unix socket");
        let config = Arc::new(config);
        let limits = (config.max_connections, config.drain_timeout);
        crate::unix_socket::serve(
            socket,
            "zaphttp",
            limits,
            &stats,
            shutdown,
            || {},
            |stream, shutdown| {
                let service = service.clone();
                let config = Arc::clone(&config);
                async move { serve_connection(service, stream, None, &config, &shutdown).await }
            },
        )
        .await;
        Ok(())
    }
}

/// Serve `service` over zaphttp on a unix socket at `path` until `shutdown` is
/// cancelled: `UnixServer::bind(path, service, config)?.run(shutdown)`.
#[cfg(unix)]
pub async fn serve_unix<S, B>(
    path: impl AsRef<std::path::Path>,
    service: S,
    config: ServerConfig,
    shutdown: CancellationToken,
) -> io::Result<()>
where
    S: HttpService<B>,
    B: AnswerBody,
{
    UnixServer::bind(path, service, config)?.run(shutdown).await
}

/// Serve one connection over `io`, any byte stream, as [`Server`] serves each accepted
/// one, until the peer closes it or a timeout does. For fuzzing and tests of the whole
/// connection path without sockets; not a stable API.
#[doc(hidden)]
pub async fn serve_stream<S, B, IO>(service: S, config: ServerConfig, io: IO)
where
    S: HttpService<B>,
    B: AnswerBody,
    IO: AsyncRead + AsyncWrite + Unpin,
{
    serve_connection(service, io, None, &config, &CancellationToken::new()).await;
}

/// Serve one connection: exchange after exchange until the peer closes it, a timeout
/// or a malformed frame closes it, or shutdown does (between exchanges).
pub(crate) async fn serve_connection<S, B, IO>(
    mut service: S,
    mut io: IO,
    peer: Option<SocketAddr>,
    config: &ServerConfig,
    shutdown: &CancellationToken,
) where
    S: HttpService<B>,
    B: AnswerBody,
    IO: AsyncRead + AsyncWrite + Unpin,
{
    let mut reader = FrameReader::new(config.max_frame);
    let mut out = Vec::with_capacity(4 << 10);
    let mut held = Held::new(config.buffer_budget.clone());
    // Between requests the idle timeout is one sleep per connection, moved on only when
    // it fires early (a request came meanwhile): no timer per request.
    let waits = Waits {
        first: None,
        rest: config.read_timeout,
    };
    let idle_limit = config.idle_timeout;
    let mut last_answer = tokio::time::Instant::now();
    let idle = tokio::time::sleep(idle_limit);
    let mut idle = std::pin::pin!(idle);
    loop {
        let next = tokio::select! {
            biased;
            // Between exchanges only: an exchange in flight is finished first.
            () = shutdown.cancelled(), if reader.buffered() == 0 => return,
            next = reader.next(&mut io, waits, Some(&mut held)) => next,
            () = &mut idle, if reader.buffered() == 0 => {
                if last_answer.elapsed() >= idle_limit {
                    log_end(peer, &Error::Timeout("waiting for the next request"));
                    return;
                }
                idle.as_mut().reset(last_answer + idle_limit);
                continue;
            }
        };
        let frame = match next {
            Ok(Some(frame)) => frame,
            Ok(None) => return,
            Err(e) => {
                log_end(peer, &e);
                return;
            }
        };
        let request = match Frame::parse(&frame) {
            Ok(Frame::Request(parts)) => decode_request(&frame, parts),
            Ok(other) => Err(Error::Frame(super::FrameError::Unexpected {
                want: "request",
                got: other.kind(),
            })),
            Err(e) => Err(Error::Frame(e)),
        };
        let mut request = match request {
            Ok(request) => request,
            Err(e) => {
                // As Go: a 400 with the reason, then the connection closes.
                tracing::debug!(?peer, "zaphttp: refusing a request: {e}");
                count(&config.counters.malformed);
                out.clear();
                let message = format!("malformed request frame: {e}\n");
                let refusal = text(StatusCode::BAD_REQUEST, message);
                let (parts, body) = refusal.into_parts();
                encode_response(&mut out, FrameKind::Response, &parts, &body, None);
                let _ = write_all(&mut io, &out, config.write_stall_timeout).await;
                return;
            }
        };
        request.extensions_mut().insert(PeerAddr(peer));
        drop(frame);
        let answer = call(&mut service, request).await;
        count(&config.counters.requests);
        if matches!(answer, Answer::Failed(_)) {
            count(&config.counters.failed);
        }
        held.hold(0).await;
        out.clear();
        if let Err(e) = respond(&mut io, &mut out, answer, config).await {
            log_end(peer, &e);
            return;
        }
        last_answer = tokio::time::Instant::now();
        if out.capacity() > 64 << 10 {
            out = Vec::with_capacity(4 << 10);
        }
    }
}

fn log_end(peer: Option<SocketAddr>, e: &Error) {
    match e {
        Error::Io(_) | Error::Closed(_) => tracing::debug!(?peer, "zaphttp: connection ended: {e}"),
        _ => tracing::info!(?peer, "zaphttp: closing a connection: {e}"),
    }
}

fn text(status: StatusCode, message: String) -> Response<Bytes> {
    let mut response = Response::new(Bytes::from(message));
    *response.status_mut() = status;
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// What the service answered, a panic being a 500 as Go answers one.
enum Answer<B> {
    Ok(Response<B>),
    Failed(Response<Bytes>),
}

async fn call<S, B>(service: &mut S, request: Request<Body>) -> Answer<B>
where
    S: HttpService<B>,
{
    match std::future::poll_fn(|cx| service.ready_http(cx)).await {
        Ok(()) => {}
        Err(e) => {
            let e: BoxError = e.into();
            tracing::warn!("zaphttp: the service is not ready: {e}");
            return Answer::Failed(text(StatusCode::SERVICE_UNAVAILABLE, format!("{e}\n")));
        }
    };
    match AssertUnwindSafe(service.call_http(request))
        .catch_unwind()
        .await
    {
        Ok(Ok(response)) => Answer::Ok(response),
        Ok(Err(e)) => {
            let e: BoxError = e.into();
            tracing::warn!("zaphttp: the service failed: {e}");
            Answer::Failed(text(StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")))
        }
        Err(_) => {
            tracing::error!("zaphttp: the service panicked; answering 500");
            let mut response = Response::new(Bytes::new());
            *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
            Answer::Failed(response)
        }
    }
}

/// Write the answer: one response frame when the body's size is known and fits a frame,
/// else a head, data frames and an end frame.
async fn respond<B, IO>(
    io: &mut IO,
    out: &mut Vec<u8>,
    answer: Answer<B>,
    config: &ServerConfig,
) -> Result<(), Error>
where
    B: AnswerBody,
    IO: AsyncWrite + Unpin,
{
    let stall = config.write_stall_timeout;
    let response = match answer {
        Answer::Ok(response) => response,
        Answer::Failed(response) => {
            let (parts, body) = response.into_parts();
            encode_response(out, FrameKind::Response, &parts, &body, None);
            return write_all(io, out, stall).await;
        }
    };
    let (parts, body) = response.into_parts();
    // What a peer reads: Go's bound, whatever this server's own bound for reading is.
    let room = super::MAX_FRAME - (HEADER_LEN + OBJECT_LEN + (64 << 10));
    let whole = body.size_hint().exact().is_some_and(|n| n <= room as u64);
    let mut body = std::pin::pin!(body);
    if whole {
        let mut data: Vec<u8> = Vec::new();
        let mut single: Option<Bytes> = None;
        let mut trailers: Option<HeaderMap> = None;
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| Error::Body(e.into()))?;
            match frame.into_data() {
                Ok(mut chunk) => {
                    let bytes = chunk.copy_to_bytes(chunk.remaining());
                    match single.take() {
                        None if data.is_empty() => single = Some(bytes),
                        Some(first) => {
                            data.extend_from_slice(&first);
                            data.extend_from_slice(&bytes);
                        }
                        None => data.extend_from_slice(&bytes),
                    }
                }
                Err(frame) => {
                    if let Ok(t) = frame.into_trailers() {
                        trailers.get_or_insert_with(HeaderMap::new).extend(t);
                    }
                }
            }
        }
        let bytes = match &single {
            Some(single) => &single[..],
            None => &data[..],
        };
        encode_response(out, FrameKind::Response, &parts, bytes, trailers.as_ref());
        return write_all(io, out, stall).await;
    }
    // Streamed: the head goes out at once, each chunk as the body yields it. The head
    // says `Transfer-Encoding: chunked`, as the Go server's does.
    let mut parts = parts;
    if !parts.headers.contains_key(http::header::TRANSFER_ENCODING) {
        parts.headers.insert(
            http::header::TRANSFER_ENCODING,
            http::HeaderValue::from_static("chunked"),
        );
    }
    encode_response(out, FrameKind::ResponseHead, &parts, &[], None);
    count(&config.counters.streamed);
    write_all(io, out, stall).await?;
    let mut trailers: Option<HeaderMap> = None;
    while let Some(frame) = body.frame().await {
        let frame = match frame {
            Ok(frame) => frame,
            Err(e) => {
                // Mid-stream there is no status left to send: close, so the client sees
                // a body cut short rather than a clean end.
                let e: BoxError = e.into();
                return Err(Error::Body(e));
            }
        };
        match frame.into_data() {
            Ok(mut chunk) => {
                while chunk.has_remaining() {
                    let piece = chunk.chunk();
                    let n = piece.len().min(room.max(1));
                    out.clear();
                    encode_data(out, &piece[..n]);
                    chunk.advance(n);
                    write_all(io, out, stall).await?;
                }
            }
            Err(frame) => {
                if let Ok(t) = frame.into_trailers() {
                    trailers.get_or_insert_with(HeaderMap::new).extend(t);
                }
            }
        }
    }
    out.clear();
    encode_end(out, trailers.as_ref());
    write_all(io, out, stall).await
}

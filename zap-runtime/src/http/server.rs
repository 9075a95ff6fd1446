//! The HTTP server: the shared accept loop ([`crate::accept`]) with a hyper HTTP/1.1
//! connection per accepted socket, keep-alive with a header (and idle) timeout, and
//! graceful shutdown.

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use super::routes::{route, Shared};
use super::stall::WriteDeadline;
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
                        return serve_connection(shared, stream, peer, shutdown).await;
                    }
                    let stream = Counted::new(stream, &stats);
                    serve_connection(shared, stream, peer, shutdown).await
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
    let stream = WriteDeadline::new(stream, shared.config.write_stall_timeout);
    let pipeline_flush = shared.config.pipeline_flush;
    let session: SessionSlot = Arc::default();
    let service = {
        let (session, shutdown) = (session.clone(), shutdown.clone());
        service_fn(move |req| {
            let (shared, session, shutdown) = (shared.clone(), session.clone(), shutdown.clone());
            async move { Ok::<_, Infallible>(route(&shared, req, &session, &shutdown).await) }
        })
    };
    let connection = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout)
        .keep_alive(true)
        // Opt-in (see `HttpConfig::pipeline_flush`): answers to pipelined requests wait
        // for one flush instead of each taking its own write.
        .pipeline_flush(pipeline_flush)
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades();
    tokio::pin!(connection);
    let result = tokio::select! {
        result = connection.as_mut() => result,
        () = shutdown.cancelled() => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(e) = result {
        tracing::debug!(%peer, "HTTP connection ended with an error: {e}");
    }
    // Upgraded to a WebSocket: the session is this connection now (it closes itself on
    // shutdown).
    let session = session.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(session) = session {
        session.await;
    }
}

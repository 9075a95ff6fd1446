//! The HTTP server's routes as a tower service, to serve over HTTP over ZAP frames.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::{Request, Response};

use super::routes::{route_any, Shared};
use super::HttpConfig;
use crate::service::Service;
use crate::zaphttp;
use crate::BuilderPool;

/// The routes [`HttpServer`](super::HttpServer) answers (`POST /rpc` and `POST /`
/// with JSON-RPC, `GET /health`, `/health/live`, `/metrics`, the explorer page), with the
/// same limits and capability rules, as a tower service of
/// `http::Request<`[`zaphttp::Body`]`>`: serve it with [`zaphttp::Server`] to answer the
/// same requests over HTTP over ZAP frames. WebSocket upgrades and TLS are HTTP/1.1's and
/// do not apply; a request body is whole when it arrives, so
/// [`body_read_timeout`](HttpConfig::body_read_timeout) is the zaphttp server's
/// [`read_timeout`](zaphttp::ServerConfig::read_timeout) instead.
///
/// ```no_run
/// # async fn doc<S: zap_runtime::Service>(service: std::sync::Arc<S>) -> std::io::Result<()> {
/// use std::sync::Arc;
/// use zap_runtime::http::{HttpConfig, HttpRoutes};
/// use zap_runtime::zaphttp;
///
/// let routes = HttpRoutes::new(service, HttpConfig::default());
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8547").await?;
/// let shutdown = tokio_util::sync::CancellationToken::new();
/// zaphttp::serve(listener, routes, zaphttp::ServerConfig::default(), shutdown).await
/// # }
/// ```
pub struct HttpRoutes<S> {
    shared: Arc<Shared<S>>,
}

impl<S> Clone for HttpRoutes<S> {
    fn clone(&self) -> Self {
        HttpRoutes {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<S> std::fmt::Debug for HttpRoutes<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpRoutes")
            .field("config", &self.shared.config)
            .finish_non_exhaustive()
    }
}

impl<S: Service> HttpRoutes<S> {
    /// The routes of `service` with the limits and rules of `config`.
    pub fn new(service: Arc<S>, config: HttpConfig) -> Self {
        HttpRoutes {
            shared: Arc::new(Shared {
                service,
                pool: BuilderPool::new(),
                config,
            }),
        }
    }
}

impl<S: Service> tower::Service<Request<zaphttp::Body>> for HttpRoutes<S> {
    type Response = Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<zaphttp::Body>) -> Self::Future {
        let shared = Arc::clone(&self.shared);
        Box::pin(async move { Ok(route_any(&shared, request).await) })
    }
}

//! The accept loop and the per-connection task: a connection limit, keep-alive with a
//! header (and idle) timeout, and graceful shutdown.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;

use super::routes::{route, Shared};
use super::HttpConfig;
use crate::service::Service;
use crate::BuilderPool;

/// How long the accept loop pauses after a failed `accept` (e.g. out of file
/// descriptors), so that it does not spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// Serve `service` as JSON-RPC 2.0 over HTTP/1.1 on `listener` until `shutdown`
/// resolves.
///
/// Routes: `POST /rpc` (JSON-RPC, single or batch) and `GET /health`. See the
/// [module documentation](super) for the status codes and error codes.
///
/// On shutdown the listener is closed at once; requests in flight are finished and
/// answered, idle keep-alive connections are closed, and the function returns when every
/// connection is gone, or after [`HttpConfig::shutdown_timeout`], when the stragglers are
/// dropped. Failed accepts are logged and retried, so the result is `Ok` unless the
/// listener itself is unusable.
pub async fn serve_http<S: Service>(
    listener: TcpListener,
    service: Arc<S>,
    config: HttpConfig,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    let local = listener.local_addr()?;
    tracing::info!(%local, service = S::NAME, "serving JSON-RPC over HTTP at POST /rpc");
    let permits = Arc::new(Semaphore::new(config.max_connections.max(1)));
    let shutdown_timeout = config.shutdown_timeout;
    let shared = Arc::new(Shared {
        service,
        pool: BuilderPool::new(),
        config,
    });
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut connections = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            biased;
            () = &mut shutdown => break,
            Some(done) = connections.join_next() => report_panic(done),
            accepted = accept(&listener, &permits) => match accepted {
                Ok((stream, peer, permit)) => {
                    let task = serve_connection(shared.clone(), stream, peer, stop_rx.clone(), permit);
                    connections.spawn(task);
                }
                Err(e) => {
                    tracing::warn!(%local, "accept failed: {e}; retrying");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                }
            },
        }
    }
    drop(listener);
    let _ = stop_tx.send(true);
    tracing::info!(%local, open = connections.len(), "HTTP server stopping: finishing requests in flight");
    let drain = async {
        while let Some(done) = connections.join_next().await {
            report_panic(done);
        }
    };
    if tokio::time::timeout(shutdown_timeout, drain).await.is_err() {
        tracing::warn!(%local, left = connections.len(), "connections still open after {shutdown_timeout:?}: dropping them");
        connections.shutdown().await;
    }
    tracing::info!(%local, "HTTP server stopped");
    Ok(())
}

/// Wait for a connection slot, then for a connection.
async fn accept(
    listener: &TcpListener,
    permits: &Arc<Semaphore>,
) -> std::io::Result<(TcpStream, SocketAddr, OwnedSemaphorePermit)> {
    // The semaphore is never closed, so acquiring only waits.
    let permit = permits
        .clone()
        .acquire_owned()
        .await
        .map_err(std::io::Error::other)?;
    let (stream, peer) = listener.accept().await?;
    Ok((stream, peer, permit))
}

fn report_panic(done: Result<(), tokio::task::JoinError>) {
    if let Err(e) = done {
        if e.is_panic() {
            tracing::error!("an HTTP connection task panicked: {e}");
        }
    }
}

/// Serve one connection until the peer closes it, a timeout closes it, or shutdown asks
/// it to finish what is in flight and close.
async fn serve_connection<S: Service>(
    shared: Arc<Shared<S>>,
    stream: TcpStream,
    peer: SocketAddr,
    mut stop: watch::Receiver<bool>,
    _permit: OwnedSemaphorePermit,
) {
    // Answers are small and written whole: do not let Nagle hold them back.
    let _ = stream.set_nodelay(true);
    let header_read_timeout = shared.config.header_read_timeout;
    let service = service_fn(move |req| {
        let shared = shared.clone();
        async move { Ok::<_, Infallible>(route(&shared, req).await) }
    });
    let connection = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout)
        .keep_alive(true)
        .serve_connection(TokioIo::new(stream), service);
    tokio::pin!(connection);
    let stopping = async move {
        // Err means the server is gone: stop as well.
        let _ = stop.wait_for(|stopping| *stopping).await;
    };
    let result = tokio::select! {
        result = connection.as_mut() => result,
        () = stopping => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(e) = result {
        tracing::debug!(%peer, "HTTP connection ended with an error: {e}");
    }
}

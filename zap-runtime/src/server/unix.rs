//! ZAP on a unix socket: the same connections as on TCP (both framings, pipelining,
//! streams, the call context), for callers on the same machine, guarded by the socket
//! file's permissions instead of a port.
//!
//! The socket file is created with mode 0600 unless told otherwise and appears at its
//! path with that mode already set; a socket file left by a killed server is replaced,
//! one a live server listens on is not, nor any other kind of file (binding fails and
//! says why); the file is removed when the server stops, if it is still the one it
//! bound. A unix socket has no peer address: logs and [`CallContext`](super::CallContext)
//! show the unspecified address `0.0.0.0:0` for its connections. The server's TLS
//! settings do not apply to it.

use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::net::UnixListener;
use tokio_util::sync::CancellationToken;

use super::{conn, framing, ServerConfig, ServerStats};
use crate::service::Service;
use crate::unix_socket::{self, Identity, DEFAULT_MODE};

/// The peer address of a unix socket's connections, which have none.
const NO_PEER: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED), 0);

/// A ZAP server on a unix socket: the same connections as on TCP (both framings,
/// pipelining, streams, the call context), for callers on the same machine
/// (`Client::connect_unix`, `zapc call unix:PATH`).
///
/// The socket file is created with mode 0600 unless told otherwise and appears at its
/// path with that mode already set; a socket file left by a killed server is replaced,
/// one a live server listens on is not, nor any other kind of file (binding fails and
/// says why); the file is removed when the server stops, if it is still the one it
/// bound. A unix socket has no peer address: logs and [`CallContext`](super::CallContext)
/// show `0.0.0.0:0` for its connections. `ServerConfig::tls` does not apply to it.
pub struct UnixServer<S> {
    listener: UnixListener,
    path: PathBuf,
    identity: Identity,
    service: Arc<S>,
    config: ServerConfig,
    stats: ServerStats,
}

impl<S> std::fmt::Debug for UnixServer<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UnixServer")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl<S: Service> UnixServer<S> {
    /// Listen on the unix socket `path` (mode 0600), serving `service` with the
    /// limits of `config`.
    pub fn bind(path: impl AsRef<Path>, service: Arc<S>, config: ServerConfig) -> io::Result<Self> {
        Self::bind_with_mode(path, service, config, DEFAULT_MODE)
    }

    /// As [`bind`](Self::bind), with the socket file's permission bits (`0o660` lets
    /// the owner's group connect too).
    pub fn bind_with_mode(
        path: impl AsRef<Path>,
        service: Arc<S>,
        config: ServerConfig,
        mode: u32,
    ) -> io::Result<Self> {
        let path = path.as_ref().to_path_buf();
        let (listener, identity) = unix_socket::bind(&path, mode)?;
        Ok(UnixServer {
            listener,
            path,
            identity,
            service,
            config,
            stats: ServerStats::default(),
        })
    }

    /// The socket's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The live counters of this server (open, accepted and refused connections,
    /// bytes).
    pub fn stats(&self) -> ServerStats {
        self.stats.clone()
    }

    /// Serve until `shutdown`: then stop accepting, remove the socket file, and give
    /// the connections `ServerConfig::drain_timeout` to answer what they have read.
    pub async fn run(self, shutdown: CancellationToken) -> io::Result<()> {
        let UnixServer {
            listener,
            path,
            identity,
            service,
            mut config,
            stats,
        } = self;
        config.node_id = Some(framing::server_node_id(config.node_id, S::NAME));
        let config = Arc::new(config);
        let limits = (config.max_connections, config.drain_timeout);
        let readiness = config.readiness.clone();
        let socket = unix_socket::Bound {
            listener,
            path,
            identity,
        };
        unix_socket::serve(
            socket,
            "zap",
            limits,
            &stats,
            shutdown,
            || readiness.set_draining(),
            |stream, shutdown| {
                let (service, config) = (Arc::clone(&service), Arc::clone(&config));
                async move { conn::run(stream, NO_PEER, &service, &config, &shutdown).await }
            },
        )
        .await;
        Ok(())
    }
}

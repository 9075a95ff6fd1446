//! Unix socket files for the servers that listen on one (JSON-RPC over IPC, ZAP/TCP's
//! framings on a path): bound with their mode already set, a stale one replaced, a live
//! one or another kind of file refused, removed when the server stops if still theirs.

use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use tokio::net::UnixListener;

/// The mode of a socket file unless the server is told otherwise: read and write for
/// its owner only.
pub const DEFAULT_MODE: u32 = 0o600;

/// The device and inode of a socket file bound.
pub(crate) type Identity = (u64, u64);

/// Listen on `path` with permission bits `mode`: bound under a temporary name, given
/// its mode, then renamed, so that the path never names a socket others may connect
/// to. Errors name the path.
pub(crate) fn bind(path: &Path, mode: u32) -> io::Result<(UnixListener, Identity)> {
    let describe =
        |e: io::Error| io::Error::new(e.kind(), format!("socket {}: {e}", path.display()));
    clear_stale(path).map_err(describe)?;
    let mut temporary = path.to_path_buf().into_os_string();
    temporary.push(format!(".{}.tmp", std::process::id()));
    let temporary = PathBuf::from(temporary);
    let _ = std::fs::remove_file(&temporary);
    let listener = UnixListener::bind(&temporary).map_err(describe)?;
    let placed = std::fs::set_permissions(&temporary, std::fs::Permissions::from_mode(mode))
        .and_then(|()| std::fs::rename(&temporary, path));
    if let Err(e) = placed {
        let _ = std::fs::remove_file(&temporary);
        return Err(describe(e));
    }
    let meta = std::fs::symlink_metadata(path).map_err(describe)?;
    Ok((listener, (meta.dev(), meta.ino())))
}

/// Make way for a socket at `path`: nothing there, or a socket nobody listens on
/// (removed). A live socket, or a file of another kind, is refused.
fn clear_stale(path: &Path) -> io::Result<()> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    if !meta.file_type().is_socket() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "the path exists and is not a socket; not replacing it",
        ));
    }
    match std::os::unix::net::UnixStream::connect(path) {
        Ok(_) => Err(io::Error::new(
            io::ErrorKind::AddrInUse,
            "a server is listening on it already",
        )),
        // Nobody listens: a socket a killed server left behind.
        Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
            tracing::info!(path = %path.display(), "unix socket: replacing a stale socket file");
            std::fs::remove_file(path)
        }
        Err(e) => Err(e),
    }
}

pub(crate) fn remove_if_ours(path: &Path, identity: Identity) {
    let ours = std::fs::symlink_metadata(path).is_ok_and(|m| (m.dev(), m.ino()) == identity);
    if ours {
        if let Err(e) = std::fs::remove_file(path) {
            tracing::warn!(path = %path.display(), "unix socket: cannot remove the socket file: {e}");
        }
    }
}

/// A bound socket file, ready to serve: what [`serve`] takes.
pub(crate) struct Bound {
    pub(crate) listener: UnixListener,
    pub(crate) path: PathBuf,
    pub(crate) identity: Identity,
}

/// The accept loop and the drain of a server on a unix socket (JSON-RPC over IPC,
/// ZAP): each connection accepted runs `serve(stream, shutdown)` in a task of its own,
/// past `max_connections` open at once one is closed at once (counted refused), until
/// `shutdown`; then `on_shutdown` runs, the listener closes, the socket file is removed
/// if still ours, and the connections get `drain_timeout` to finish before they are
/// dropped. `what` names the server in logs.
pub(crate) async fn serve<F, Fut>(
    socket: Bound,
    what: &'static str,
    (max_connections, drain_timeout): (usize, std::time::Duration),
    stats: &crate::accept::ServerStats,
    shutdown: tokio_util::sync::CancellationToken,
    on_shutdown: impl FnOnce(),
    serve: F,
) where
    F: Fn(
        crate::accept::Counted<tokio::net::UnixStream>,
        tokio_util::sync::CancellationToken,
    ) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let Bound {
        listener,
        path,
        identity,
    } = socket;
    let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(max_connections.max(1)));
    let mut connections = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            () = shutdown.cancelled() => break,
            // Finished connections are reaped as they end.
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    // A failed accept (out of file descriptors) ends no connection.
                    Err(e) => {
                        tracing::warn!(path = %path.display(), "{what}: accept failed: {e}");
                        continue;
                    }
                };
                let Ok(slot) = std::sync::Arc::clone(&slots).try_acquire_owned() else {
                    stats.refused_one();
                    tracing::warn!(
                        path = %path.display(),
                        "{what}: refusing a connection: {max_connections} are open, the limit"
                    );
                    continue;
                };
                let open = stats.open();
                let served = serve(crate::accept::Counted::new(stream, stats), shutdown.clone());
                connections.spawn(async move {
                    served.await;
                    drop((open, slot));
                });
            }
        }
    }
    on_shutdown();
    drop(listener);
    remove_if_ours(&path, identity);
    let drained = async { while connections.join_next().await.is_some() {} };
    if tokio::time::timeout(drain_timeout, drained).await.is_err() {
        connections.abort_all();
    }
}

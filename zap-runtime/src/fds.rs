//! Open-file descriptors: every connection holds one. When the first server of a
//! process starts, the soft limit on open files is raised to the hard limit (as the Go
//! runtime does at start), and each server's `max_connections` is checked against it,
//! together with those of the other servers running in the process and a reserve for
//! everything else (listeners, logs, outgoing connections). When they do not fit, a
//! WARN line says so at start: past the limit, `accept` fails and every listener of the
//! process stops taking connections, whatever its own limit.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Descriptors left for everything but the servers' connections.
pub(crate) const RESERVE: usize = 64;

/// `max_connections` of the servers running now, summed.
static CLAIMED: AtomicUsize = AtomicUsize::new(0);

/// The soft limit on open files after the one attempt to raise it to the hard limit;
/// `None` when unlimited or unknown.
pub(crate) fn open_file_limit() -> Option<usize> {
    static LIMIT: OnceLock<Option<usize>> = OnceLock::new();
    *LIMIT.get_or_init(raise)
}

#[cfg(unix)]
fn raise() -> Option<usize> {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let before = getrlimit(Resource::Nofile);
    let raised = Rlimit {
        current: before.maximum,
        maximum: before.maximum,
    };
    let limit = if before.current == before.maximum {
        before.current
    } else {
        match setrlimit(Resource::Nofile, raised) {
            Ok(()) => {
                tracing::debug!(
                    "raised the open-file soft limit from {} to {}",
                    show(before.current),
                    show(raised.current)
                );
                raised.current
            }
            Err(e) => {
                tracing::warn!(
                    "could not raise the open-file soft limit from {} to {}: {e}",
                    show(before.current),
                    show(raised.current)
                );
                before.current
            }
        }
    };
    limit.map(|n| usize::try_from(n).unwrap_or(usize::MAX))
}

#[cfg(unix)]
fn show(limit: Option<u64>) -> String {
    limit.map_or_else(|| "unlimited".to_owned(), |n| n.to_string())
}

#[cfg(not(unix))]
fn raise() -> Option<usize> {
    None
}

/// A server's share of the descriptors, given back when it stops.
pub(crate) struct Claim(usize);

impl Drop for Claim {
    fn drop(&mut self) {
        CLAIMED.fetch_sub(self.0, Ordering::Relaxed);
    }
}

/// Count server `name`'s `max_connections` against the open-file limit; WARN when
/// the servers running now could together open more connections than it allows.
pub(crate) fn claim(name: &'static str, max_connections: usize) -> Claim {
    let total = CLAIMED.fetch_add(max_connections, Ordering::Relaxed) + max_connections;
    if let Some(limit) = open_file_limit() {
        if total.saturating_add(RESERVE) > limit {
            let others = total - max_connections;
            tracing::warn!(
                server = name,
                "max_connections {max_connections} (with {others} of this process's other \
                 servers and {RESERVE} descriptors for the rest) is more than the open-file \
                 limit of {limit}: once it is reached no listener of this process accepts \
                 connections. Raise the hard limit (ulimit -Hn, systemd's LimitNOFILE=) or \
                 lower max_connections"
            );
        }
    }
    Claim(max_connections)
}

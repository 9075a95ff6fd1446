//! Live counters of a server: cheap (three atomics, touched once per connection, never
//! per call), shared by every clone, readable from anywhere.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::sync::OwnedSemaphorePermit;

/// Counters of a running [`serve`](super::serve): connections open now, accepted and
/// refused (over [`max_connections`](super::ServerConfig::max_connections)) so far.
///
/// ```
/// use zap_runtime::server::ServerConfig;
///
/// let config = ServerConfig::default();
/// let stats = config.stats.clone(); // keep a handle, then pass `config` to `serve`
/// assert_eq!(stats.active_connections(), 0);
/// ```
#[derive(Clone, Debug, Default)]
pub struct ServerStats(Arc<Counters>);

#[derive(Debug, Default)]
struct Counters {
    active: AtomicUsize,
    accepted: AtomicU64,
    refused: AtomicU64,
}

impl ServerStats {
    /// Connections being served now: accepted, and their task not yet ended.
    pub fn active_connections(&self) -> usize {
        self.0.active.load(Ordering::Relaxed)
    }

    /// Connections accepted (and served) since the server started.
    pub fn accepted(&self) -> u64 {
        self.0.accepted.load(Ordering::Relaxed)
    }

    /// Connections closed at once because `max_connections` were already open.
    pub fn refused(&self) -> u64 {
        self.0.refused.load(Ordering::Relaxed)
    }

    pub(super) fn refused_one(&self) {
        self.0.refused.fetch_add(1, Ordering::Relaxed);
    }

    /// Count a connection open until the returned guard is dropped, which also gives
    /// its slot (`permit`) back.
    pub(super) fn open(&self, permit: OwnedSemaphorePermit) -> Open {
        self.0.accepted.fetch_add(1, Ordering::Relaxed);
        self.0.active.fetch_add(1, Ordering::Relaxed);
        Open {
            stats: self.clone(),
            _permit: permit,
        }
    }
}

/// One open connection: counted until dropped.
pub(super) struct Open {
    stats: ServerStats,
    _permit: OwnedSemaphorePermit,
}

impl Drop for Open {
    fn drop(&mut self) {
        self.stats.0.active.fetch_sub(1, Ordering::Relaxed);
    }
}

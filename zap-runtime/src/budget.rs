//! A budget for the bytes connections buffer while a request is still arriving, shared
//! by the servers of a process, so that many peers each sending most of a large frame
//! (or body) cannot together take more memory than the operator allowed.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use tokio::sync::Notify;

/// The process-wide budget's default size: 1 GiB.
pub const DEFAULT_BUFFER_BUDGET: usize = 1 << 30;

/// Bytes that connections may buffer for requests not yet complete, across every
/// server that shares it. A ZAP/TCP connection counts what its read buffer grows past
/// its first 16 KiB (so ordinary small frames never touch it); an HTTP connection counts
/// a request body as it arrives. When the budget is spent, connections that need more
/// wait without reading (the peer's sends back up into its socket: back-pressure) until
/// others finish, or until their own timeout (the ZAP idle timeout, the HTTP body
/// timeout) closes them.
///
/// Clones share one budget. [`BufferBudget::process`] is the one every server uses
/// unless configured otherwise. A budget smaller than a server's largest frame or body
/// can never hold such a request.
#[derive(Clone, Debug)]
pub struct BufferBudget(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    limit: usize,
    used: AtomicUsize,
    freed: Notify,
}

impl BufferBudget {
    /// A budget of `bytes` of its own.
    pub fn new(bytes: usize) -> Self {
        BufferBudget(Arc::new(Inner {
            limit: bytes,
            used: AtomicUsize::new(0),
            freed: Notify::new(),
        }))
    }

    /// The process-wide budget ([`DEFAULT_BUFFER_BUDGET`]), the default of
    /// `ServerConfig::buffer_budget` and `HttpConfig::buffer_budget`.
    pub fn process() -> Self {
        static PROCESS: OnceLock<BufferBudget> = OnceLock::new();
        PROCESS
            .get_or_init(|| BufferBudget::new(DEFAULT_BUFFER_BUDGET))
            .clone()
    }

    /// Its size in bytes.
    pub fn limit(&self) -> usize {
        self.0.limit
    }

    /// Bytes held now.
    pub fn used(&self) -> usize {
        self.0.used.load(Ordering::Relaxed)
    }

    /// Take `n` bytes if they are free now.
    fn try_take(&self, n: usize) -> bool {
        self.0
            .used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(n).filter(|&after| after <= self.0.limit)
            })
            .is_ok()
    }

    /// Take `n` bytes, waiting until they are free. Cancel-safe: a dropped wait takes
    /// nothing.
    pub(crate) async fn take(&self, n: usize) {
        loop {
            let freed = self.0.freed.notified();
            tokio::pin!(freed);
            // Registered before the check, so a release between the two wakes it.
            freed.as_mut().enable();
            if self.try_take(n) {
                return;
            }
            freed.await;
        }
    }

    /// Take `n` bytes whether or not they are free (an allocator gave more than asked).
    #[cfg(feature = "server")]
    pub(crate) fn force(&self, n: usize) {
        self.0.used.fetch_add(n, Ordering::AcqRel);
    }

    /// Give `n` bytes back.
    pub(crate) fn give(&self, n: usize) {
        if n > 0 {
            self.0.used.fetch_sub(n, Ordering::AcqRel);
            self.0.freed.notify_waiters();
        }
    }
}

/// Two are equal when they are the same budget.
impl PartialEq for BufferBudget {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for BufferBudget {}

/// Bytes held from a budget, given back when dropped.
#[derive(Debug)]
pub(crate) struct Held {
    budget: BufferBudget,
    bytes: usize,
}

impl Held {
    pub(crate) fn new(budget: BufferBudget) -> Self {
        Held { budget, bytes: 0 }
    }

    /// Hold `total` bytes in all: take what is missing (waiting for it), give back what
    /// is over.
    pub(crate) async fn hold(&mut self, total: usize) {
        if total > self.bytes {
            self.budget.take(total - self.bytes).await;
        } else {
            self.budget.give(self.bytes - total);
        }
        self.bytes = total;
    }

    /// Hold `total` bytes in all without waiting (memory already allocated).
    #[cfg(feature = "server")]
    pub(crate) fn hold_now(&mut self, total: usize) {
        if total > self.bytes {
            self.budget.force(total - self.bytes);
        } else {
            self.budget.give(self.bytes - total);
        }
        self.bytes = total;
    }

    /// True while more than half of the budget is in use.
    #[cfg(feature = "server")]
    pub(crate) fn pressed(&self) -> bool {
        self.budget.used() > self.budget.limit() / 2
    }

    /// Bytes held.
    #[cfg(feature = "server")]
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.budget.give(self.bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_spent_budget_waits_until_bytes_come_back() {
        let budget = BufferBudget::new(100);
        let mut a = Held::new(budget.clone());
        a.hold(80).await;
        let mut b = Held::new(budget.clone());
        let waiting = tokio::spawn(async move {
            b.hold(50).await;
            b
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        assert_eq!(budget.used(), 80);
        a.hold(40).await;
        let b = waiting.await.unwrap();
        assert_eq!((b.bytes(), budget.used()), (50, 90));
        drop(a);
        drop(b);
        assert_eq!(budget.used(), 0);
    }
}

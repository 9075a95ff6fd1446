//! Peer faults (malformed envelopes, PromiseID 0, broken frames) are answered or end
//! their connection, and are logged at most once a second, process-wide: a peer that
//! sends ten million bad frames costs ten million answers, not ten million log lines.
//! Every fault is counted ([`peer_faults`]); a line that follows suppressed ones says
//! how many it stands for.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

/// Faults seen since the process started.
static FAULTS: AtomicU64 = AtomicU64::new(0);
/// Faults not logged since the last line.
static SUPPRESSED: AtomicU64 = AtomicU64::new(0);
/// When the last line was written, in milliseconds since [`start`], plus one (0: never).
static LAST_LINE_MS: AtomicU64 = AtomicU64::new(0);

/// The gap between two lines.
const EVERY_MS: u64 = 1000;

fn start() -> Instant {
    static START: OnceLock<Instant> = OnceLock::new();
    *START.get_or_init(Instant::now)
}

/// Every peer fault counted so far, logged or not.
pub fn peer_faults() -> u64 {
    FAULTS.load(Ordering::Relaxed)
}

/// Count one fault; `Some(n)` when it may be logged now, `n` being the faults suppressed
/// since the last line.
pub(crate) fn note() -> Option<u64> {
    FAULTS.fetch_add(1, Ordering::Relaxed);
    let now = start().elapsed().as_millis() as u64 + 1;
    let last = LAST_LINE_MS.load(Ordering::Relaxed);
    if last != 0 && now < last + EVERY_MS {
        SUPPRESSED.fetch_add(1, Ordering::Relaxed);
        return None;
    }
    // One caller wins the slot; the others count as suppressed.
    if LAST_LINE_MS
        .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
        .is_err()
    {
        SUPPRESSED.fetch_add(1, Ordering::Relaxed);
        return None;
    }
    Some(SUPPRESSED.swap(0, Ordering::Relaxed))
}

/// Log a peer fault at WARN, rate-limited (see the module docs).
macro_rules! warn_fault {
    ($($arg:tt)+) => {
        if let Some(suppressed) = $crate::server::faults::note() {
            tracing::warn!(suppressed_since_last_line = suppressed, $($arg)+);
        }
    };
}
pub(crate) use warn_fault;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_logs_one_line_and_counts_every_fault() {
        let before = peer_faults();
        let logged = (0..10_000).filter(|_| note().is_some()).count();
        assert_eq!(peer_faults() - before, 10_000);
        // The whole burst takes far less than the gap: at most the first may log (none
        // if another test logged within the last second).
        assert!(logged <= 1, "{logged} lines");
    }
}

//! Load shedding: a limit on the calls a server runs at once, server-wide and per
//! method. A call over it is not queued: it is answered at once "overloaded" (ZAP
//! status 503, JSON-RPC -32006), which tells a client (the balanced client, HAProxy's
//! retry) to try another server, instead of waiting behind work that already takes all
//! of this one.
//!
//! One [`LoadLimit`] may be given to several servers (ZAP/TCP, HTTP, QUIC): clones
//! share their counts, so the limit is one for the process.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::rpc::Status;

/// Limits on calls in flight; see the module documentation.
///
/// ```
/// use zap_runtime::shed::LoadLimit;
///
/// // At most 512 calls at once, and at most 16 of them of method 3.
/// let limit = LoadLimit::new(512).method(3, 16);
/// # let _ = limit;
/// ```
#[derive(Clone, Debug)]
pub struct LoadLimit(Arc<Limits>);

#[derive(Debug)]
struct Limits {
    total: Slot,
    methods: Vec<(u32, Slot)>,
}

#[derive(Debug)]
struct Slot {
    max: usize,
    now: AtomicUsize,
}

impl Slot {
    fn new(max: usize) -> Self {
        Slot {
            max,
            now: AtomicUsize::new(0),
        }
    }

    fn enter(&self) -> bool {
        if self.now.fetch_add(1, Ordering::AcqRel) < self.max {
            true
        } else {
            self.now.fetch_sub(1, Ordering::AcqRel);
            false
        }
    }

    fn leave(&self) {
        self.now.fetch_sub(1, Ordering::AcqRel);
    }
}

impl LoadLimit {
    /// At most `max` calls in flight in all (`usize::MAX`: no server-wide limit).
    pub fn new(max: usize) -> Self {
        LoadLimit(Arc::new(Limits {
            total: Slot::new(max),
            methods: Vec::new(),
        }))
    }

    /// And at most `max` calls of method `ordinal` (set before the limit is shared:
    /// on a clone that is already shared, the method limit applies to a new, separate
    /// count).
    pub fn method(self, ordinal: u32, max: usize) -> Self {
        let mut limits = Arc::try_unwrap(self.0).unwrap_or_else(|shared| Limits {
            total: Slot::new(shared.total.max),
            methods: shared
                .methods
                .iter()
                .map(|(o, s)| (*o, Slot::new(s.max)))
                .collect(),
        });
        limits.methods.retain(|(o, _)| *o != ordinal);
        limits.methods.push((ordinal, Slot::new(max)));
        LoadLimit(Arc::new(limits))
    }

    /// Calls in flight now, in all.
    pub fn in_flight(&self) -> usize {
        self.0.total.now.load(Ordering::Relaxed)
    }

    /// Count a call of method `ordinal` in, or say why it may not run (the reason in
    /// `why`).
    pub(crate) fn enter(&self, ordinal: u32, why: &mut String) -> Result<Permit<'_>, Status> {
        use std::fmt::Write as _;
        if !self.0.total.enter() {
            let _ = write!(
                why,
                "overloaded: the server is running its limit of {} calls; retry later or on another server",
                self.0.total.max
            );
            return Err(Status::OVERLOADED);
        }
        let method = self
            .0
            .methods
            .iter()
            .find(|(o, _)| *o == ordinal)
            .map(|(_, s)| s);
        if let Some(slot) = method {
            if !slot.enter() {
                self.0.total.leave();
                let _ = write!(
                    why,
                    "overloaded: method {ordinal} is running its limit of {} calls; retry later or on another server",
                    slot.max
                );
                return Err(Status::OVERLOADED);
            }
        }
        Ok(Permit {
            limits: &self.0,
            method,
        })
    }
}

/// Two limits are equal when they are the same shared counts.
impl PartialEq for LoadLimit {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for LoadLimit {}

/// A call counted in; counted out when dropped.
pub(crate) struct Permit<'a> {
    limits: &'a Limits,
    method: Option<&'a Slot>,
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        if let Some(slot) = self.method {
            slot.leave();
        }
        self.limits.total.leave();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_count_in_and_out() {
        let limit = LoadLimit::new(3).method(7, 1);
        let mut why = String::new();
        let a = limit.enter(7, &mut why).expect("first of method 7");
        assert_eq!(limit.enter(7, &mut why).err(), Some(Status::OVERLOADED));
        assert!(why.contains("method 7"), "{why}");
        let b = limit.enter(1, &mut why).expect("another method");
        let c = limit.enter(1, &mut why).expect("the third call");
        why.clear();
        assert_eq!(limit.enter(1, &mut why).err(), Some(Status::OVERLOADED));
        assert!(why.contains("limit of 3 calls"), "{why}");
        assert_eq!(limit.in_flight(), 3);
        drop((a, b, c));
        assert_eq!(limit.in_flight(), 0);
        let _again = limit.enter(7, &mut why).expect("room again");
    }
}

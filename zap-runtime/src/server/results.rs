//! The per-connection table of remembered call results, for promise pipelining
//! (spec §5 `Target`).
//!
//! Every answered call is recorded under its PromiseID: an OK answer with a copy of its
//! body, a failed one with its status. The table is bounded twice: at most `max_entries`
//! records, and the bodies live in one ring of `max_bytes` bytes, so the oldest records are
//! forgotten first. The ring is allocated once (on the first recorded body) and then
//! reused, so recording a result allocates nothing.
//!
//! With capabilities on, each record is also stamped with the capability its call was
//! made under ([`Results::set_caller`]), and a `Target` is honoured only for a call that
//! presents the very same `Cap` bytes: a connection shared by several callers (a gateway)
//! does not let one pipeline on another's result. The connection remembers the last
//! [`CALLERS`] distinct capabilities; a record made under one it has forgotten can no
//! longer be targeted.

use std::collections::VecDeque;

/// What the table knows about a PromiseID.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Lookup<'a> {
    /// The call answered 200 with this body.
    Ok(&'a [u8]),
    /// The call answered with this non-200 status.
    Failed(u32),
    /// The call answered 200, but its body (this many bytes) was too large to keep.
    TooLarge(u32),
    /// No record: never called on this connection, or forgotten (evicted).
    Unknown,
    /// The call was made with another capability than the one asking.
    OtherCaller,
}

/// Distinct capabilities a connection remembers for stamping its results.
pub(crate) const CALLERS: usize = 4;
/// The longest `Cap` field remembered; results of calls with a longer one cannot be
/// targeted (with capabilities on).
const MAX_CALLER_LEN: usize = 64 << 10;

/// Which capability a record was made under: a slot of the caller table and the slot's
/// generation (bumped when the slot is given to another capability).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Stamp {
    slot: u8,
    generation: u32,
}

/// One remembered capability: its bytes (`None` when too long to keep, so that no
/// later call matches it) and the slot's generation.
#[derive(Debug)]
struct Caller {
    bytes: Option<Vec<u8>>,
    generation: u32,
}

impl Caller {
    fn is(&self, cap: &[u8]) -> bool {
        self.bytes.as_deref() == Some(cap)
    }
}

/// The capabilities seen on a connection, for stamping.
#[derive(Debug, Default)]
struct Callers {
    slots: Vec<Caller>,
    /// The next slot to give away once all are taken.
    next: usize,
    current: Stamp,
}

impl Callers {
    fn set(&mut self, cap: &[u8]) {
        let current = self.slots.get(usize::from(self.current.slot));
        if current.is_some_and(|c| c.generation == self.current.generation && c.is(cap)) {
            return;
        }
        if let Some(i) = self.slots.iter().position(|c| c.is(cap)) {
            self.current = Stamp {
                slot: i as u8,
                generation: self.slots[i].generation,
            };
            return;
        }
        let i = if self.slots.len() < CALLERS {
            self.slots.push(Caller {
                bytes: None,
                generation: 0,
            });
            self.slots.len() - 1
        } else {
            let i = self.next;
            self.next = (self.next + 1) % CALLERS;
            i
        };
        let slot = &mut self.slots[i];
        slot.generation += 1;
        // A capability too long to keep matches no later call: each such call gets a
        // stamp of its own (a new generation). A kept buffer is reused.
        let mut bytes = slot.bytes.take().unwrap_or_default();
        if cap.len() <= MAX_CALLER_LEN {
            bytes.clear();
            bytes.extend_from_slice(cap);
            slot.bytes = Some(bytes);
        }
        self.current = Stamp {
            slot: i as u8,
            generation: slot.generation,
        };
    }
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Ok { start: u64, len: u32 },
    Failed(u32),
    TooLarge(u32),
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    id: u32,
    kind: Kind,
    stamp: Stamp,
}

/// Bounded memory of recent results on one connection.
#[derive(Debug)]
pub(crate) struct Results {
    entries: VecDeque<Entry>,
    max_entries: usize,
    /// The body ring; `ring.len()` grows up to `max_bytes` within its one allocation.
    ring: Vec<u8>,
    max_bytes: usize,
    /// Logical write position: total bytes ever placed, counting skipped ring tails.
    head: u64,
    callers: Callers,
}

impl Results {
    /// A table keeping at most `max_entries` results whose bodies total at most
    /// `max_bytes`. Either limit 0 disables the table (every lookup is `Unknown`).
    pub(crate) fn new(max_entries: usize, max_bytes: usize) -> Self {
        Results {
            entries: VecDeque::with_capacity(max_entries),
            max_entries,
            ring: Vec::new(),
            max_bytes,
            head: 0,
            callers: Callers::default(),
        }
    }

    /// The capability (`Cap` bytes) of the calls recorded and looked up from now on,
    /// when capabilities are on. Without calls to this, every record has one stamp.
    pub(crate) fn set_caller(&mut self, cap: &[u8]) {
        if self.enabled() {
            self.callers.set(cap);
        }
    }

    /// The most results kept.
    pub(crate) fn max_entries(&self) -> usize {
        self.max_entries
    }

    /// The most body bytes kept.
    pub(crate) fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    /// Whether results are kept at all (both limits above 0).
    pub(crate) fn enabled(&self) -> bool {
        self.max_entries > 0 && self.max_bytes > 0
    }

    /// Remember an OK answer.
    pub(crate) fn record_ok(&mut self, id: u32, body: &[u8]) {
        if !self.enabled() {
            return;
        }
        let Ok(len) = u32::try_from(body.len()) else {
            return self.push(id, Kind::TooLarge(u32::MAX));
        };
        if body.len() > self.max_bytes {
            return self.push(id, Kind::TooLarge(len));
        }
        if self.ring.capacity() < self.max_bytes {
            self.ring.reserve_exact(self.max_bytes - self.ring.len());
        }
        let size = self.max_bytes as u64;
        let mut phys = (self.head % size) as usize;
        if phys + body.len() > self.max_bytes {
            // Does not fit before the end of the ring: skip the tail, start over at 0.
            self.head += size - phys as u64;
            phys = 0;
        }
        let start = self.head;
        self.head += u64::from(len);
        // A body is intact while it lies within the last `size` logical bytes.
        let oldest_intact = self.head.saturating_sub(size);
        while let Some(Entry {
            kind: Kind::Ok { start, .. },
            ..
        }) = self.entries.front()
        {
            if *start >= oldest_intact {
                break;
            }
            self.entries.pop_front();
        }
        crate::copies::note(body.len());
        let end = phys + body.len();
        if phys == self.ring.len() {
            // The ring is still filling: append (no zeroing first).
            self.ring.extend_from_slice(body);
        } else {
            if self.ring.len() < end {
                self.ring.resize(end, 0);
            }
            self.ring[phys..end].copy_from_slice(body);
        }
        self.push(id, Kind::Ok { start, len });
    }

    /// Remember a failed answer.
    pub(crate) fn record_failed(&mut self, id: u32, status: u32) {
        if self.enabled() {
            self.push(id, Kind::Failed(status));
        }
    }

    fn push(&mut self, id: u32, kind: Kind) {
        if self.entries.len() >= self.max_entries {
            self.entries.pop_front();
        }
        let stamp = self.callers.current;
        self.entries.push_back(Entry { id, kind, stamp });
    }

    /// The newest record for `id`.
    pub(crate) fn get(&self, id: u32) -> Lookup<'_> {
        let Some(entry) = self.entries.iter().rev().find(|e| e.id == id) else {
            return Lookup::Unknown;
        };
        if entry.stamp != self.callers.current {
            return Lookup::OtherCaller;
        }
        match entry.kind {
            Kind::Failed(status) => Lookup::Failed(status),
            Kind::TooLarge(len) => Lookup::TooLarge(len),
            Kind::Ok { start, len } => {
                if start.saturating_add(self.max_bytes as u64) < self.head {
                    // Overwritten since (normally evicted already; a failed record at
                    // the front can hold an older body's record back).
                    return Lookup::Unknown;
                }
                let phys = (start % self.max_bytes as u64) as usize;
                match self.ring.get(phys..phys.saturating_add(len as usize)) {
                    Some(body) => Lookup::Ok(body),
                    None => Lookup::Unknown,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_and_evicts_oldest_by_count() {
        let mut r = Results::new(2, 1024);
        r.record_ok(1, b"one");
        r.record_failed(2, 500);
        assert_eq!(r.get(1), Lookup::Ok(b"one"));
        assert_eq!(r.get(2), Lookup::Failed(500));
        r.record_ok(3, b"three");
        assert_eq!(r.get(1), Lookup::Unknown);
        assert_eq!(r.get(3), Lookup::Ok(b"three"));
        assert_eq!(r.get(9), Lookup::Unknown);
    }

    #[test]
    fn ring_wraps_and_forgets_overwritten_bodies() {
        let mut r = Results::new(100, 10);
        r.record_ok(1, b"aaaa");
        r.record_ok(2, b"bbbb");
        r.record_ok(3, b"cccc"); // does not fit at 8: wraps to 0, overwriting 1 only
        assert_eq!(r.get(1), Lookup::Unknown);
        assert_eq!(r.get(2), Lookup::Ok(b"bbbb"));
        assert_eq!(r.get(3), Lookup::Ok(b"cccc"));
        r.record_ok(4, b"dddd"); // at 4: overwrites 2
        assert_eq!(r.get(2), Lookup::Unknown);
        assert_eq!(r.get(3), Lookup::Ok(b"cccc"));
        assert_eq!(r.get(4), Lookup::Ok(b"dddd"));
        r.record_ok(5, b"");
        assert_eq!(r.get(5), Lookup::Ok(b""));
        r.record_ok(6, b"0123456789abc");
        assert_eq!(r.get(6), Lookup::TooLarge(13));
        for i in 0..1000u32 {
            let body = [i as u8; 3];
            r.record_ok(100 + i, &body);
            assert_eq!(r.get(100 + i), Lookup::Ok(&body[..]));
        }
        assert!(r.ring.capacity() >= 10 && r.ring.len() <= 10);
    }

    #[test]
    fn newest_record_wins_and_disabled_table_knows_nothing() {
        let mut r = Results::new(4, 64);
        r.record_ok(1, b"old");
        r.record_failed(1, 404);
        assert_eq!(r.get(1), Lookup::Failed(404));
        let mut off = Results::new(0, 64);
        off.record_ok(1, b"x");
        assert_eq!(off.get(1), Lookup::Unknown);
    }

    #[test]
    fn a_result_is_for_the_capability_that_made_it() {
        let mut r = Results::new(16, 1024);
        r.set_caller(b"alice");
        r.record_ok(1, b"alice's");
        r.set_caller(b"bob");
        r.record_ok(2, b"bob's");
        assert_eq!(r.get(1), Lookup::OtherCaller);
        assert_eq!(r.get(2), Lookup::Ok(b"bob's"));
        r.set_caller(b"alice");
        assert_eq!(r.get(1), Lookup::Ok(b"alice's"));
        assert_eq!(r.get(2), Lookup::OtherCaller);
        // Four more capabilities push alice's out of the table: her record is no longer
        // hers to target, even when she comes back.
        for other in [&b"c"[..], b"d", b"e", b"f"] {
            r.set_caller(other);
        }
        r.set_caller(b"alice");
        assert_eq!(r.get(1), Lookup::OtherCaller);
        // A capability too long to keep matches nothing, not even itself.
        let long = vec![7u8; MAX_CALLER_LEN + 1];
        r.set_caller(&long);
        r.record_ok(3, b"long's");
        r.set_caller(&long);
        assert_eq!(r.get(3), Lookup::OtherCaller);
    }

    #[test]
    fn never_returns_wrong_bytes() {
        let mut r = Results::new(16, 100);
        let mut model: Vec<Vec<u8>> = Vec::new();
        for i in 0..2000u32 {
            let len = (i.wrapping_mul(2_654_435_761) % 37) as usize;
            let body: Vec<u8> = (0..len).map(|j| (i as usize + j) as u8).collect();
            r.record_ok(i, &body);
            model.push(body);
            assert_eq!(r.get(i), Lookup::Ok(&model[i as usize][..]));
            for old in i.saturating_sub(40)..i {
                match r.get(old) {
                    Lookup::Ok(b) => assert_eq!(b, &model[old as usize][..], "id {old}"),
                    Lookup::Unknown => {}
                    other => panic!("id {old}: {other:?}"),
                }
            }
        }
    }
}

//! Each thread's own memo of the capabilities it last found verified, consulted before
//! the shared [`Cache`](super::cache::Cache): no lock, no fingerprint, no LRU
//! bookkeeping. A server's worker threads see the same few capabilities call after
//! call (one per client connection, usually), so most checks end here.
//!
//! It is exactly as safe as the shared cache: an entry is found only for the very
//! bytes that were verified, compared in full, under the same policy (each policy has
//! an id of its own), and what may change (expiry, not-before, revocation) is re-checked
//! on every hit by the caller. Four entries per thread of at most [`MAX_LEN`] bytes
//! each (a single capability of any scheme, or a short chain): at most 64 KiB a thread,
//! allocated when first filled and reused after.

use std::cell::RefCell;

use super::cache::Entry;

/// Entries per thread, replaced in turn.
const ENTRIES: usize = 4;
/// The longest `Cap` field remembered here (longer ones use the shared cache only).
pub(crate) const MAX_LEN: usize = 16 << 10;

struct Slot {
    policy: u64,
    bytes: Vec<u8>,
    entry: Entry,
}

struct Memo {
    slots: Vec<Slot>,
    next: usize,
}

thread_local! {
    static MEMO: RefCell<Memo> = const {
        RefCell::new(Memo {
            slots: Vec::new(),
            next: 0,
        })
    };
}

/// What `hit` makes of the entry this thread remembers for exactly `bytes` under
/// policy `policy`; `None` when there is none (or the memo is in use further up this
/// thread's stack: a revocation hook that checks a capability itself).
#[inline]
pub(crate) fn get<R>(policy: u64, bytes: &[u8], hit: impl FnOnce(&Entry) -> R) -> Option<R> {
    MEMO.try_with(|memo| {
        let memo = memo.try_borrow().ok()?;
        let slot = memo
            .slots
            .iter()
            .find(|s| s.policy == policy && s.bytes.as_slice() == bytes)?;
        Some(hit(&slot.entry))
    })
    .ok()
    .flatten()
}

/// Remember that `bytes` verified as `entry` under policy `policy`, in place of this
/// thread's oldest entry.
pub(crate) fn put(policy: u64, bytes: &[u8], entry: &Entry) {
    if bytes.is_empty() || bytes.len() > MAX_LEN {
        return;
    }
    let _ = MEMO.try_with(|memo| {
        let Ok(mut memo) = memo.try_borrow_mut() else {
            return;
        };
        if memo.slots.len() < ENTRIES {
            memo.slots.push(Slot {
                policy,
                bytes: bytes.to_vec(),
                entry: *entry,
            });
            return;
        }
        let i = memo.next;
        memo.next = (i + 1) % ENTRIES;
        let slot = &mut memo.slots[i];
        slot.policy = policy;
        slot.bytes.clear();
        slot.bytes.extend_from_slice(bytes);
        slot.entry = *entry;
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cap::policy::Grant;

    fn entry(n: u8) -> Entry {
        Entry::new(Grant {
            id: [n; 32],
            ..Grant::NONE
        })
    }

    #[test]
    fn only_the_same_bytes_under_the_same_policy_hit() {
        let a = vec![7u8; 3600];
        put(1, &a, &entry(1));
        assert_eq!(get(1, &a, |e| e.grant.id), Some([1; 32]));
        assert_eq!(get(2, &a, |e| e.grant.id), None, "another policy");
        let mut b = a.clone();
        b[3599] ^= 1;
        assert_eq!(get(1, &b, |e| e.grant.id), None, "one byte differs");
        assert_eq!(get(1, &a[..3599], |e| e.grant.id), None, "a prefix");
    }

    #[test]
    fn the_oldest_entry_makes_way() {
        let caps: Vec<Vec<u8>> = (0..=ENTRIES as u8).map(|n| vec![n; 100]).collect();
        for (n, cap) in caps.iter().enumerate() {
            put(9, cap, &entry(n as u8));
        }
        assert_eq!(get(9, &caps[0], |_| ()), None, "the first was replaced");
        for (n, cap) in caps.iter().enumerate().skip(1) {
            assert_eq!(get(9, cap, |e| e.grant.id), Some([n as u8; 32]));
        }
    }

    #[test]
    fn long_fields_are_not_remembered() {
        let long = vec![1u8; MAX_LEN + 1];
        put(3, &long, &entry(1));
        assert_eq!(get(3, &long, |_| ()), None);
    }
}

//! A bounded, set-associative cache of verified capabilities, keyed by the very bytes
//! that were presented. All its memory is taken when it is made; a lookup or insert
//! never allocates.
//!
//! A hit needs no hashing of the capability and no decoding: a cheap fingerprint of the
//! presented bytes picks the set, and a way is taken only if a full comparison shows
//! that the presented bytes are byte for byte the ones that were verified. So a hit is
//! exactly as safe as a fresh verification (the fingerprint only chooses where to look;
//! it is never trusted). The entry keeps what a later check must re-judge (the chain's
//! validity window and every CapID to ask the revocation hook about, so no hashing is
//! needed on a hit) and what it grants. Only a chain whose every signature and link
//! verified is stored (a revoked one too: each hit asks the revocation hook again).
//!
//! ## Memory
//!
//! Each entry (way) takes a fixed-size slot of 648 bytes (the grant, room for
//! [`MAX_IDS`] CapIDs, bookkeeping) plus [`STORE_BYTES_PER_ENTRY`] (4 KiB) of a byte
//! store that holds the presented bytes, written as a ring: about 4.7 KiB per entry, so
//! the default 1024 entries take about 4.7 MiB. The store is at least
//! [`MIN_STORE_BYTES`] (256 KiB) however small the cache. A single capability is about
//! 3.6 KiB, a two-link chain 7–10 KiB; a presented `Cap` field longer than
//! [`MAX_CACHED_LEN`] (64 KiB, more than an eight-link ML-DSA-65 chain without caveats)
//! is not cached and is verified on every call.
//!
//! Ways are replaced least recently used first; the store is a ring, so an entry whose
//! bytes have since been overwritten is gone (its way is free again). A hit on an entry
//! in the older half of the ring copies its bytes (from the request, which equals them)
//! to the ring's head, so an entry in use keeps its place.

use std::hash::{BuildHasher as _, Hasher as _};

use super::chain::MAX_CHAIN_LINKS;
use super::error::Refusal;
use super::policy::Grant;

/// Room for the CapIDs of a maximal chain and each secp256k1 link's twin.
pub(crate) const MAX_IDS: usize = 2 * MAX_CHAIN_LINKS;
const WAYS: usize = 4;
/// Bytes of the store per entry of capacity.
pub(crate) const STORE_BYTES_PER_ENTRY: usize = 4096;
/// The longest `Cap` field that is cached; longer ones are verified on every call.
pub(crate) const MAX_CACHED_LEN: usize = 64 * 1024;
/// The smallest store: room for four of the longest cached fields.
pub(crate) const MIN_STORE_BYTES: usize = 4 * MAX_CACHED_LEN;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub grant: Grant,
    /// The CapID of every link, leaf first, then the twins' CapIDs.
    ids: [[u8; 32]; MAX_IDS],
    n_ids: usize,
}

impl Entry {
    pub fn new(grant: Grant) -> Entry {
        Entry {
            grant,
            ids: [[0; 32]; MAX_IDS],
            n_ids: 0,
        }
    }

    fn push(&mut self, id: [u8; 32]) -> Result<(), Refusal> {
        let slot = self
            .ids
            .get_mut(self.n_ids)
            .ok_or(Refusal::Malformed("chain longer than MAX_CHAIN_LINKS"))?;
        *slot = id;
        self.n_ids += 1;
        Ok(())
    }

    /// Record the next link's CapID.
    pub fn push_link(&mut self, id: [u8; 32]) -> Result<(), Refusal> {
        self.push(id)
    }

    /// Record the CapID of a link's secp256k1 twin (asked of the revocation hook only).
    pub fn push_twin(&mut self, id: [u8; 32]) -> Result<(), Refusal> {
        self.push(id)
    }

    /// The CapIDs the revocation hook is asked about.
    pub fn ids(&self) -> &[[u8; 32]] {
        &self.ids[..self.n_ids]
    }
}

#[derive(Clone, Copy)]
struct Slot {
    used: bool,
    /// Length of the presented bytes.
    len: u32,
    /// Fingerprint of the presented bytes.
    fp: u64,
    /// Where the bytes start in the store, counted in bytes ever written (not wrapped).
    start: u64,
    /// Last use, for least-recently-used replacement.
    tick: u64,
    entry: Entry,
}

/// The cache. The fingerprint's seed is fixed when the cache is made and needs no lock;
/// everything else is behind one mutex.
pub(crate) struct Cache {
    seed: u64,
    inner: std::sync::Mutex<Sets>,
}

struct Sets {
    slots: Box<[Slot]>,
    sets: usize,
    tick: u64,
    /// The presented bytes of the entries, written as a ring.
    store: Box<[u8]>,
    /// Bytes ever written to the store (the ring's head, not wrapped).
    head: u64,
}

impl Cache {
    /// Room for at least `capacity` entries (rounded up to whole sets of 4).
    pub fn new(capacity: usize) -> Cache {
        let sets = capacity.div_ceil(WAYS).max(1);
        let empty = Slot {
            used: false,
            len: 0,
            fp: 0,
            start: 0,
            tick: 0,
            entry: Entry::new(Grant::NONE),
        };
        let store = (sets * WAYS)
            .saturating_mul(STORE_BYTES_PER_ENTRY)
            .max(MIN_STORE_BYTES);
        // A per-cache secret seed, so which set a capability lands in cannot be chosen
        // from outside (it decides nothing else).
        let seed = std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish();
        Cache {
            seed,
            inner: std::sync::Mutex::new(Sets {
                slots: vec![empty; sets * WAYS].into_boxed_slice(),
                sets,
                tick: 0,
                store: vec![0; store].into_boxed_slice(),
                head: 0,
            }),
        }
    }

    /// The fingerprint of a presented `Cap` field (see [`fingerprint`]).
    pub fn fingerprint(&self, bytes: &[u8]) -> u64 {
        fingerprint(self.seed, bytes)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Sets> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What `read` takes from the entry verified from exactly `bytes` (whose
    /// fingerprint is `fp`), if it is cached. `read` runs under the cache's lock.
    pub fn get<R>(&self, fp: u64, bytes: &[u8], read: impl FnOnce(&Entry) -> R) -> Option<R> {
        let mut sets = self.lock();
        let i = sets.find(fp, bytes)?;
        sets.tick += 1;
        let tick = sets.tick;
        // Keep an entry in use out of the ring's tail: rewrite its bytes at the head
        // (from the request: they are equal) once it is in the older half.
        if sets.head - sets.slots[i].start > sets.store.len() as u64 / 2 {
            let start = sets.write(bytes);
            sets.slots[i].start = start;
        }
        let slot = &mut sets.slots[i];
        slot.tick = tick;
        Some(read(&slot.entry))
    }

    /// Remember that `bytes` (fingerprint `fp`) verified as `entry`, in a free or stale
    /// way, else the least recently used one. Fields over [`MAX_CACHED_LEN`] are not kept.
    pub fn put(&self, fp: u64, bytes: &[u8], entry: &Entry) {
        if bytes.is_empty() || bytes.len() > MAX_CACHED_LEN {
            return;
        }
        let mut sets = self.lock();
        sets.tick += 1;
        let tick = sets.tick;
        let set = sets.set(fp);
        let i = sets
            .find(fp, bytes)
            .or_else(|| set.clone().find(|&i| !sets.live(&sets.slots[i])))
            .unwrap_or_else(|| {
                set.clone()
                    .min_by_key(|&i| sets.slots[i].tick)
                    .unwrap_or(set.start)
            });
        // Written before the slot is filled: writing may end older entries, never this.
        let start = sets.write(bytes);
        sets.slots[i] = Slot {
            used: true,
            len: bytes.len() as u32,
            fp,
            start,
            tick,
            entry: *entry,
        };
    }
}

impl Sets {
    /// The ways of the set for fingerprint `fp`.
    fn set(&self, fp: u64) -> core::ops::Range<usize> {
        let start = (fp % self.sets as u64) as usize * WAYS;
        start..start + WAYS
    }

    /// True if the slot holds an entry whose bytes are still whole in the store.
    fn live(&self, s: &Slot) -> bool {
        // Bytes at ring position p are overwritten once the head passes p + store length.
        s.used && self.head <= s.start + self.store.len() as u64
    }

    /// The stored bytes of a live slot.
    fn bytes(&self, s: &Slot) -> &[u8] {
        let at = (s.start % self.store.len() as u64) as usize;
        self.store.get(at..at + s.len as usize).unwrap_or(&[])
    }

    /// The way holding exactly `bytes`: same fingerprint, same length, same bytes.
    fn find(&self, fp: u64, bytes: &[u8]) -> Option<usize> {
        self.set(fp).find(|&i| {
            let s = &self.slots[i];
            s.fp == fp && s.len as usize == bytes.len() && self.live(s) && self.bytes(s) == bytes
        })
    }

    /// Append `bytes` (at most a quarter of the store) at the head, contiguously
    /// (skipping to the ring's start if they do not fit before its end); where they start.
    fn write(&mut self, bytes: &[u8]) -> u64 {
        let cap = self.store.len() as u64;
        let len = bytes.len() as u64;
        let mut start = self.head;
        if start % cap + len > cap {
            start = start.div_ceil(cap) * cap;
        }
        let at = (start % cap) as usize;
        self.store[at..at + bytes.len()].copy_from_slice(bytes);
        self.head = start + len;
        start
    }
}

/// Distance between the words the fingerprint reads: any 64-byte run (a whole Ed25519 or
/// secp256k1 signature) contains at least one whole word read.
const STRIDE: usize = 56;
const LANES: usize = 8;
const K0: u64 = 0x9e37_79b9_7f4a_7c15;
const K1: u64 = 0xc2b2_ae3d_27d4_eb4f;

fn word(bytes: &[u8], at: usize) -> u64 {
    bytes
        .get(at..)
        .and_then(|b| b.first_chunk::<8>())
        .map_or(0, |w| u64::from_le_bytes(*w))
}

fn fold(a: u64, b: u64) -> u64 {
    let p = u128::from(a) * u128::from(b);
    (p as u64) ^ ((p >> 64) as u64)
}

/// A fast, seeded, non-cryptographic fingerprint of a presented `Cap` field: its length,
/// its last word and one 8-byte word every [`STRIDE`] bytes. It only picks the set and
/// rules ways out; a hit is decided by comparing every byte. Signatures are in every
/// capability and differ between any two, so it spreads real capabilities well.
pub(crate) fn fingerprint(seed: u64, bytes: &[u8]) -> u64 {
    // Eight independent lanes, so the multiplies overlap.
    let mut lanes = [0u64; LANES];
    for (j, lane) in lanes.iter_mut().enumerate() {
        *lane = seed ^ (j as u64).wrapping_mul(K1);
    }
    lanes[0] ^= bytes.len() as u64;
    let mut blocks = bytes.chunks_exact(LANES * STRIDE);
    for b in &mut blocks {
        for (j, lane) in lanes.iter_mut().enumerate() {
            *lane = (*lane ^ word(b, j * STRIDE))
                .wrapping_mul(K0)
                .rotate_left(29);
        }
    }
    let rest = blocks.remainder();
    for (j, lane) in lanes.iter_mut().enumerate() {
        *lane = (*lane ^ word(rest, j * STRIDE)).wrapping_mul(K1);
    }
    lanes[0] ^= word(bytes, bytes.len().saturating_sub(8));
    let mut h = seed;
    for pair in lanes.chunks_exact(2) {
        h ^= fold(pair[0] ^ K0, pair[1] ^ K1);
    }
    fold(h, K0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant(n: u8) -> Entry {
        Entry::new(Grant {
            id: [n; 32],
            permissions: u64::from(n),
            target: [0; 32],
            not_before: 0,
            expires_at: 0,
            links: 1,
        })
    }

    #[test]
    fn only_the_same_bytes_hit() {
        let cache = Cache::new(8);
        let a = vec![7u8; 3600];
        let fp = cache.fingerprint(&a);
        cache.put(fp, &a, &grant(1));
        assert_eq!(cache.get(fp, &a, |e| e.grant.id), Some([1; 32]));
        for i in [0, 1, 55, 56, 57, 1000, 3599] {
            let mut b = a.clone();
            b[i] ^= 1;
            // Even when told the fingerprint of the original, different bytes miss.
            assert!(cache.get(fp, &b, |e| e.grant.id).is_none(), "byte {i}");
            assert!(
                cache
                    .get(cache.fingerprint(&b), &b, |e| e.grant.id)
                    .is_none(),
                "byte {i}"
            );
        }
        assert!(cache.get(fp, &a[..3599], |e| e.grant.id).is_none());
    }

    #[test]
    fn the_ring_ends_overwritten_entries_and_keeps_used_ones() {
        // A 256 KiB store: room for four such fields.
        let cache = Cache::new(64);
        let len = 60_000;
        let caps: Vec<Vec<u8>> = (0..200u8).map(|i| vec![i; len]).collect();
        let hot = &caps[0];
        let hot_fp = cache.fingerprint(hot);
        cache.put(hot_fp, hot, &grant(0));
        for (n, cap) in caps.iter().enumerate().skip(1) {
            cache.put(cache.fingerprint(cap), cap, &grant(n as u8));
            // Used all along, the hot entry stays however much is written after it.
            assert!(
                cache.get(hot_fp, hot, |e| e.grant.id).is_some(),
                "after {n}"
            );
        }
        // 12 MB written since: the first cold entries are long gone, the last is there.
        let first = &caps[1];
        assert!(cache
            .get(cache.fingerprint(first), first, |e| e.grant.id)
            .is_none());
        let last = &caps[199];
        assert!(cache
            .get(cache.fingerprint(last), last, |e| e.grant.id)
            .is_some());
    }

    #[test]
    fn an_entry_takes_what_the_docs_say() {
        // The builder's docs: a 648-byte slot and 4 KiB of store per entry.
        assert_eq!(core::mem::size_of::<Slot>(), 648);
        assert_eq!(STORE_BYTES_PER_ENTRY, 4096);
    }

    #[test]
    fn long_fields_are_not_cached() {
        let cache = Cache::new(16);
        let long = vec![1u8; MAX_CACHED_LEN + 1];
        let fp = cache.fingerprint(&long);
        cache.put(fp, &long, &grant(1));
        assert!(cache.get(fp, &long, |e| e.grant.id).is_none());
    }

    #[test]
    fn fingerprints_see_every_64_byte_run() {
        let base = vec![0u8; 3600];
        let f0 = fingerprint(1, &base);
        for start in 0..3600 - 64 {
            let mut b = base.clone();
            b[start..start + 64].fill(0xa5);
            assert_ne!(fingerprint(1, &b), f0, "run at {start}");
        }
    }
}

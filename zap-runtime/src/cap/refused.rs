//! A short, bounded memory of refused capabilities, so that presenting the same bad
//! bytes again costs a hash, not another round of signature checks.
//!
//! Entries are keyed by SHA-256 of a per-memory secret and every presented byte (128
//! bits of it kept), and the length: which slot a field lands in, and whether two
//! fields collide, cannot be chosen from outside. A collision could only make a check
//! *refuse* (a remembered refusal answered for other bytes), never admit, and needs a
//! 2^-128 accident. Hashing costs far less than one signature check. A refusal is remembered for [`REFUSAL_MEMORY_SECONDS`]
//! and only when the bytes alone decide it (malformed, unknown issuer or scheme, a bad
//! signature, a broken or widening chain, a caveat): so the memory answers exactly as a
//! fresh check would. Refusals that depend on the clock or on the revocation hook are
//! found again each time (the clock ones before any signature check; a revoked chain
//! that verified is in the policy's cache, whose hits ask the hook again). The memory is taken
//! once (about 64 bytes per entry); lookups and inserts never allocate.

use std::hash::{BuildHasher as _, Hasher as _};

use sha2::{Digest, Sha256};

use super::error::Refusal;

/// Seconds a refusal is remembered.
pub const REFUSAL_MEMORY_SECONDS: u64 = 10;

#[derive(Clone, Copy)]
struct Slot {
    /// Unix second after which the slot is empty again (0: never used).
    until: u64,
    fp: u64,
    fp2: u64,
    len: usize,
    refusal: Refusal,
}

/// 128 bits of SHA-256 of the secret and the bytes, and their length.
pub(crate) struct Key {
    fp: u64,
    fp2: u64,
    len: usize,
}

pub(crate) struct Refused {
    secret: [u8; 32],
    slots: std::sync::Mutex<Box<[Slot]>>,
}

/// 32 bytes from the standard library's per-process random hash keys.
fn secret() -> [u8; 32] {
    let mut secret = [0u8; 32];
    for chunk in secret.chunks_exact_mut(8) {
        let word = std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish();
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    secret
}

impl Refused {
    /// Room for `capacity` refusals (at least one).
    pub fn new(capacity: usize) -> Refused {
        let empty = Slot {
            until: 0,
            fp: 0,
            fp2: 0,
            len: 0,
            refusal: Refusal::Missing,
        };
        Refused {
            secret: secret(),
            slots: std::sync::Mutex::new(vec![empty; capacity.max(1)].into_boxed_slice()),
        }
    }

    /// What `bytes` are remembered under: computed once per check, for the lookup and,
    /// on a fresh refusal, the insert.
    pub fn key(&self, bytes: &[u8]) -> Key {
        let digest: [u8; 32] = Sha256::new()
            .chain_update(self.secret)
            .chain_update(bytes)
            .finalize()
            .into();
        let word = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&digest[i..i + 8]);
            u64::from_le_bytes(w)
        };
        Key {
            fp: word(0),
            fp2: word(8),
            len: bytes.len(),
        }
    }

    /// The refusal remembered for exactly the bytes of `key` at `now`, if any.
    pub fn get(&self, key: &Key, now: u64) -> Option<Refusal> {
        let slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        let slot = &slots[key.fp as usize % slots.len()];
        let hit =
            now <= slot.until && slot.fp == key.fp && slot.fp2 == key.fp2 && slot.len == key.len;
        hit.then_some(slot.refusal)
    }

    /// Remember that the bytes of `key` were refused for `refusal` at `now`, when the
    /// bytes alone decide that refusal (see the module docs).
    pub fn put(&self, key: &Key, refusal: Refusal, now: u64) {
        if !decided_by_the_bytes(&refusal) {
            return;
        }
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        let n = slots.len();
        slots[key.fp as usize % n] = Slot {
            until: now.saturating_add(REFUSAL_MEMORY_SECONDS),
            fp: key.fp,
            fp2: key.fp2,
            len: key.len,
            refusal,
        };
    }
}

/// True for the refusals that no clock, revocation list or later call can change.
fn decided_by_the_bytes(refusal: &Refusal) -> bool {
    match refusal {
        Refusal::Malformed(_)
        | Refusal::UnknownIssuer
        | Refusal::ReservedScheme
        | Refusal::UnknownScheme(_)
        | Refusal::UnsupportedScheme(_)
        | Refusal::SchemeMismatch { .. }
        | Refusal::BadSignature(_)
        | Refusal::UnknownCaveat(_)
        | Refusal::BrokenChain(_)
        | Refusal::NotDelegable
        | Refusal::WidensParent(_) => true,
        Refusal::Missing
        | Refusal::Expired { .. }
        | Refusal::NotYetValid { .. }
        | Refusal::Revoked
        | Refusal::WrongTarget
        | Refusal::MissingPermission { .. }
        | Refusal::UnknownMethod(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_the_very_bytes_for_a_while() {
        let memory = Refused::new(8);
        let bad = Refusal::BadSignature("x");
        memory.put(&memory.key(b"forged"), bad, 100);
        assert_eq!(memory.get(&memory.key(b"forged"), 100), Some(bad));
        assert_eq!(
            memory.get(&memory.key(b"forged"), 100 + REFUSAL_MEMORY_SECONDS),
            Some(bad)
        );
        assert_eq!(
            memory.get(&memory.key(b"forged"), 101 + REFUSAL_MEMORY_SECONDS),
            None
        );
        assert_eq!(memory.get(&memory.key(b"forgee"), 100), None);
        assert_eq!(memory.get(&memory.key(b"forged!"), 100), None);
    }

    #[test]
    fn a_refusal_that_the_clock_or_the_hook_may_lift_is_not_remembered() {
        let memory = Refused::new(8);
        let early = Refusal::NotYetValid {
            issued_at: 200,
            now: 100,
        };
        let late = Refusal::Expired {
            expires_at: 50,
            now: 100,
        };
        memory.put(&memory.key(b"early"), early, 100);
        memory.put(&memory.key(b"late"), late, 100);
        memory.put(&memory.key(b"revoked"), Refusal::Revoked, 100);
        memory.put(&memory.key(b""), Refusal::Missing, 100);
        for bytes in [&b"early"[..], b"late", b"revoked", b""] {
            assert_eq!(memory.get(&memory.key(bytes), 100), None);
        }
    }
}

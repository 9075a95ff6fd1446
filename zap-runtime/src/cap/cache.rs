//! A bounded, set-associative cache of verified capabilities, keyed by the leaf's
//! CapID. All its memory is taken when it is made; a lookup or insert never allocates.
//!
//! An entry keeps what a later check must re-judge (the chain's validity window and
//! every CapID to ask the revocation hook about) and what it grants. Only a chain that
//! passed every check is stored; a CapID commits to its parent's CapID and so to the
//! whole chain, which is why the leaf's CapID is a sufficient key.

use super::error::Refusal;
use super::policy::Grant;

/// Room for the CapIDs of a maximal chain and each secp256k1 link's twin.
pub(crate) const MAX_IDS: usize = 16;
const WAYS: usize = 4;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub grant: Grant,
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

    pub fn push_id(&mut self, id: [u8; 32]) -> Result<(), Refusal> {
        let slot = self
            .ids
            .get_mut(self.n_ids)
            .ok_or(Refusal::Malformed("chain longer than MAX_CHAIN_LINKS"))?;
        *slot = id;
        self.n_ids += 1;
        Ok(())
    }

    /// The CapIDs the revocation hook is asked about.
    pub fn ids(&self) -> &[[u8; 32]] {
        &self.ids[..self.n_ids]
    }
}

#[derive(Clone, Copy)]
struct Slot {
    used: bool,
    tick: u64,
    entry: Entry,
}

pub(crate) struct Cache {
    slots: Vec<Slot>,
    sets: usize,
    tick: u64,
}

impl Cache {
    /// Room for at least `capacity` entries (rounded up to whole sets of 4).
    pub fn new(capacity: usize) -> Cache {
        let sets = capacity.div_ceil(WAYS).max(1);
        let empty = Slot {
            used: false,
            tick: 0,
            entry: Entry::new(Grant {
                id: [0; 32],
                permissions: 0,
                target: [0; 32],
                not_before: 0,
                expires_at: 0,
                links: 0,
            }),
        };
        Cache {
            slots: vec![empty; sets * WAYS],
            sets,
            tick: 0,
        }
    }

    fn set(&mut self, id: &[u8; 32]) -> &mut [Slot] {
        // CapIDs are SHA-256 outputs: their first bytes are as good as any hash of them.
        let h = u64::from_le_bytes([id[0], id[1], id[2], id[3], id[4], id[5], id[6], id[7]]);
        let start = (h % self.sets as u64) as usize * WAYS;
        &mut self.slots[start..start + WAYS]
    }

    /// The entry for this leaf CapID presented with `links` links.
    pub fn get(&mut self, id: &[u8; 32], links: usize) -> Option<Entry> {
        self.tick += 1;
        let tick = self.tick;
        let slot = self
            .set(id)
            .iter_mut()
            .find(|s| s.used && &s.entry.grant.id == id && s.entry.grant.links == links)?;
        slot.tick = tick;
        Some(slot.entry)
    }

    /// Remember `entry`, replacing the same CapID, a free way, or the least recently used.
    pub fn put(&mut self, entry: &Entry) {
        self.tick += 1;
        let tick = self.tick;
        let id = entry.grant.id;
        let set = self.set(&id);
        let i = set
            .iter()
            .position(|s| s.used && s.entry.grant.id == id)
            .or_else(|| set.iter().position(|s| !s.used))
            .unwrap_or_else(|| {
                set.iter()
                    .enumerate()
                    .min_by_key(|(_, s)| s.tick)
                    .map_or(0, |(i, _)| i)
            });
        set[i] = Slot {
            used: true,
            tick,
            entry: *entry,
        };
    }
}

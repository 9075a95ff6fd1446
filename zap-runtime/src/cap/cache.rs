//! A bounded, set-associative cache of verified capabilities, keyed by the leaf's
//! CapID. All its memory is taken when it is made; a lookup or insert never allocates.
//!
//! An entry keeps what a later check must re-judge (the chain's validity window and
//! every CapID to ask the revocation hook about), what it grants, and the CapID of every
//! link, so that a hit is taken only for exactly the links that were verified. Only a
//! chain that passed every check is stored.

use super::chain::MAX_CHAIN_LINKS;
use super::error::Refusal;
use super::policy::Grant;

/// Room for the CapIDs of a maximal chain and each secp256k1 link's twin.
pub(crate) const MAX_IDS: usize = 2 * MAX_CHAIN_LINKS;
const WAYS: usize = 4;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub grant: Grant,
    /// The CapID of every link, leaf first, then the twins' CapIDs.
    ids: [[u8; 32]; MAX_IDS],
    n_links: usize,
    n_ids: usize,
}

impl Entry {
    pub fn new(grant: Grant) -> Entry {
        Entry {
            grant,
            ids: [[0; 32]; MAX_IDS],
            n_links: 0,
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

    /// Record the next link's CapID (links must all come before any twin).
    pub fn push_link(&mut self, id: [u8; 32]) -> Result<(), Refusal> {
        debug_assert_eq!(self.n_links, self.n_ids);
        self.push(id)?;
        self.n_links += 1;
        Ok(())
    }

    /// Record the CapID of a link's secp256k1 twin (asked of the revocation hook only).
    pub fn push_twin(&mut self, id: [u8; 32]) -> Result<(), Refusal> {
        self.push(id)
    }

    /// The CapIDs of the links, leaf first.
    pub fn link_ids(&self) -> &[[u8; 32]] {
        &self.ids[..self.n_links]
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

//! The in-memory ledger: a fixed set of accounts derived from a seed, so every run (and
//! every machine) has the same addresses, balances and nonces.
//!
//! Nothing here is cryptographic: addresses, balances, nonces and block hashes come from
//! SplitMix64, a tiny well-known mixing function, which is all a demo needs.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A 20-byte account address.
pub type Address = [u8; 20];

/// What the ledger knows about an account.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Account {
    /// Balance in wei (below 10 ether, so it fits a `u64`).
    pub balance: u64,
    /// Number of transactions sent from the account (below 1000).
    pub nonce: u64,
}

/// The seed every ledger is derived from.
pub const SEED: u64 = 0x5eed_0000_0000_2a2a;
/// How many accounts the ledger holds.
pub const ACCOUNTS: usize = 1000;
/// One ether in wei.
const ETHER: u64 = 1_000_000_000_000_000_000;

/// SplitMix64: one step of the generator with state `state`.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A multiply-rotate hash of an address, eight bytes at a time: about a tenth of the
/// cost of the standard library's SipHash for a 20-byte key.
///
/// SipHash's keyed hashing defends a map into which an attacker inserts keys chosen to
/// collide (HashDoS). This map is filled once, from the seed, before any request, and
/// never changes: a request only looks up, and a lookup walks the probe sequence of its
/// hash's group among the ledger's own keys, whatever address it asks for. So an
/// unkeyed hash costs nothing in robustness here.
#[derive(Clone, Copy, Debug, Default)]
pub struct AddressHasher(u64);

impl AddressHasher {
    #[inline]
    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for AddressHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.mix(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(w));
        }
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.mix(n as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

type Accounts = HashMap<Address, Account, BuildHasherDefault<AddressHasher>>;

/// Accounts by address. Immutable once built: reads need no lock.
#[derive(Clone, Debug)]
pub struct Ledger {
    accounts: Accounts,
    /// Addresses in the order they were derived (for [`Ledger::address`]).
    order: Vec<Address>,
}

impl Default for Ledger {
    fn default() -> Self {
        Ledger::seeded(SEED, ACCOUNTS)
    }
}

impl Ledger {
    /// `count` accounts derived from `seed`: for each, 20 bytes of address, then a
    /// balance below 10 ether and a nonce below 1000, all from one SplitMix64 stream.
    pub fn seeded(seed: u64, count: usize) -> Ledger {
        let mut state = seed;
        let mut accounts = Accounts::with_capacity_and_hasher(count, Default::default());
        let mut order = Vec::with_capacity(count);
        while order.len() < count {
            let mut address = [0u8; 20];
            for chunk in address.chunks_mut(8) {
                let word = splitmix64(&mut state).to_be_bytes();
                chunk.copy_from_slice(&word[..chunk.len()]);
            }
            let account = Account {
                balance: splitmix64(&mut state) % (10 * ETHER),
                nonce: splitmix64(&mut state) % 1000,
            };
            // A repeated address (never seen with this seed) would only be skipped.
            if accounts.insert(address, account).is_none() {
                order.push(address);
            }
        }
        Ledger { accounts, order }
    }

    /// The account at `address`; an address the ledger has never seen has balance 0
    /// and nonce 0, as on a real chain.
    pub fn account(&self, address: &Address) -> Account {
        self.accounts.get(address).copied().unwrap_or_default()
    }

    /// The `i`-th derived address, if `i < len()`.
    pub fn address(&self, i: usize) -> Option<&Address> {
        self.order.get(i)
    }

    /// Number of accounts.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// True when the ledger has no account.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
}

/// The hash of block `number`: 32 bytes from a SplitMix64 stream seeded with the block
/// number, so the same number always has the same hash.
pub fn block_hash(number: u64) -> [u8; 32] {
    let mut state = number ^ SEED;
    let mut hash = [0u8; 32];
    for chunk in hash.chunks_mut(8) {
        chunk.copy_from_slice(&splitmix64(&mut state).to_be_bytes());
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_ledger_is_deterministic_and_full() {
        let a = Ledger::default();
        let b = Ledger::default();
        assert_eq!(a.len(), ACCOUNTS);
        for i in 0..a.len() {
            let address = a.address(i).unwrap();
            assert_eq!(b.address(i), Some(address));
            assert_eq!(a.account(address), b.account(address));
            assert!(a.account(address).balance < 10 * ETHER);
            assert!(a.account(address).nonce < 1000);
        }
    }

    /// The accounts the README and `--help` show: changing the seed or the derivation
    /// must change them too.
    #[test]
    fn documented_accounts() {
        let ledger = Ledger::default();
        let documented = [
            (
                "4725818c202ef848d7d3cce765e30646e63cdca1",
                6_392_545_128_281_133_694,
                671,
            ),
            (
                "bc47a0be7615e674b70072f1bbdf2a40aa869cac",
                2_166_011_245_706_151_519,
                100,
            ),
            (
                "1e94a3370487622db55f13b9d8671ed28f308846",
                1_463_243_263_390_098_683,
                445,
            ),
        ];
        for (i, (hex, balance, nonce)) in documented.into_iter().enumerate() {
            let address = ledger.address(i).unwrap();
            assert_eq!(zap_runtime::json::to_hex(address), format!("0x{hex}"));
            assert_eq!(ledger.account(address), Account { balance, nonce });
        }
    }

    /// Every address of a large ledger is found through the address hash, and the
    /// unknown neighbours of each (one bit flipped) are not.
    #[test]
    fn address_hash_finds_every_account() {
        let ledger = Ledger::seeded(SEED, 20_000);
        for i in 0..ledger.len() {
            let address = *ledger.address(i).unwrap();
            assert_ne!(ledger.account(&address), Account::default());
            let mut other = address;
            other[i % 20] ^= 1 << (i % 8);
            assert_eq!(ledger.account(&other), Account::default());
        }
    }

    #[test]
    fn unknown_account_is_empty() {
        let ledger = Ledger::default();
        assert_eq!(ledger.account(&[0xff; 20]), Account::default());
    }

    #[test]
    fn block_hash_depends_on_the_number_only() {
        assert_eq!(block_hash(68943), block_hash(68943));
        assert_ne!(block_hash(68943), block_hash(68944));
        assert_ne!(block_hash(0), [0; 32]);
    }
}

//! The values every codec carries, the handler's compute step, and the sink that folds
//! every decoded field so the optimiser cannot drop a read.
//!
//! The plain-binary peers serialize these types themselves (serde for postcard, the
//! rkyv derives for rkyv), as a user of those formats would.

use serde::{Deserialize, Serialize};

use crate::eth;

/// An `eth_getBalance` request, independent of any wire format.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Default,
    Serialize,
    Deserialize,
    rkyv::Archive,
    rkyv::Serialize,
)]
pub struct Request {
    pub id: u64,
    pub block: u64,
    pub account: [u8; 20],
}

/// An `eth_getBalance` response, independent of any wire format.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Default,
    Serialize,
    Deserialize,
    rkyv::Archive,
    rkyv::Serialize,
)]
pub struct Response {
    pub id: u64,
    pub balance: u64,
    pub nonce: u64,
    pub block_hash: [u8; 32],
}

/// The request of the shared vectors.
pub fn request() -> Request {
    Request {
        id: eth::ID,
        block: eth::BLOCK,
        account: eth::ACCOUNT,
    }
}

/// The response of the shared vectors (what [`compute`] answers to [`request`]).
pub fn response() -> Response {
    Response {
        id: eth::ID,
        balance: eth::BALANCE,
        nonce: eth::NONCE,
        block_hash: eth::BLOCK_HASH,
    }
}

/// The handler's work between decode and encode, the same for every codec: a one-entry
/// ledger lookup and a block-hash derivation. Kept tiny on purpose, so the handler
/// benchmark measures the codec, not the business logic.
#[inline]
pub fn compute(id: u64, block: u64, account: &[u8; 20]) -> Response {
    let known = account == &eth::ACCOUNT;
    let mut block_hash = eth::BLOCK_HASH;
    // Any other block gets a different hash: its number folded into the first word.
    let delta = (block ^ eth::BLOCK).to_le_bytes();
    for (h, d) in block_hash.iter_mut().zip(delta) {
        *h ^= d;
    }
    Response {
        id,
        balance: if known { eth::BALANCE } else { 0 },
        nonce: if known { eth::NONCE } else { 0 },
        block_hash,
    }
}

/// One log of an `eth_getLogs` response, independent of any wire format.
#[derive(
    Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize, rkyv::Archive, rkyv::Serialize,
)]
pub struct Log {
    pub block_number: u64,
    pub transaction_index: u32,
    pub log_index: u32,
    /// 1 to 4 topics.
    pub topics: Vec<[u8; 32]>,
    /// 0 to 256 bytes.
    pub data: Vec<u8>,
    pub address: [u8; 20],
    pub transaction_hash: [u8; 32],
}

/// How many logs the list-heavy record has.
pub const LOGS: usize = 100;
/// The log whose one field the single-field read takes (the 50th).
pub const PICK: usize = 49;

/// A byte pattern that differs with `seed` (no two logs, topics or hashes alike).
fn pattern<const N: usize>(seed: u64) -> [u8; N] {
    let mut out = [0u8; N];
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    for b in &mut out {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    out
}

/// The `eth_getLogs` response of the benches: [`LOGS`] logs from a handful of contracts,
/// 1 to 4 topics each, data of 0 to 256 bytes (every length class: empty, a word, a few
/// words, the largest), ten logs per block, one or two per transaction.
pub fn logs() -> Vec<Log> {
    const DATA_LENGTHS: [usize; 8] = [0, 32, 64, 96, 128, 160, 224, 256];
    (0..LOGS as u64)
        .map(|i| Log {
            block_number: 19_000_000 + i / 10,
            transaction_index: (i * 7 / 10 % 7) as u32,
            log_index: i as u32,
            topics: (0..1 + i % 4).map(|t| pattern(i * 8 + t + 1)).collect(),
            data: pattern::<256>(i + 1000)[..DATA_LENGTHS[i as usize % 8]].to_vec(),
            address: pattern(i % 7 + 500),
            transaction_hash: pattern(i * 7 / 10 + 2000),
        })
        .collect()
}

/// Folds every field a decoder produced into one word.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sink(pub u64);

impl Sink {
    /// A rotate and an xor: enough that no field can be skipped, cheap enough not to
    /// hide the decoder's own cost.
    #[inline]
    pub fn u64(&mut self, v: u64) {
        self.0 = self.0.rotate_left(7) ^ v;
    }

    /// Every byte of `b`, eight at a time.
    #[inline]
    pub fn bytes(&mut self, b: &[u8]) {
        let mut chunks = b.chunks_exact(8);
        for c in &mut chunks {
            self.u64(u64::from_le_bytes(c.try_into().unwrap_or_default()));
        }
        let mut tail = [0u8; 8];
        let rest = chunks.remainder();
        tail[..rest.len()].copy_from_slice(rest);
        self.u64(u64::from_le_bytes(tail) ^ b.len() as u64);
    }

    /// Every field of a decoded eth request, in declaration order.
    #[inline]
    pub fn request(&mut self, id: u64, block: u64, account: &[u8]) {
        self.u64(id);
        self.u64(block);
        self.bytes(account);
    }

    /// Every field of a decoded eth response, in declaration order.
    #[inline]
    pub fn response(&mut self, id: u64, balance: u64, nonce: u64, block_hash: &[u8]) {
        self.u64(id);
        self.u64(balance);
        self.u64(nonce);
        self.bytes(block_hash);
    }

    /// Every field of an owned log, in the order every codec folds them.
    #[inline]
    pub fn log(&mut self, l: &Log) {
        self.log_head(l.block_number, l.transaction_index, l.log_index);
        for t in &l.topics {
            self.bytes(t);
        }
        self.bytes(&l.data);
        self.bytes(&l.address);
        self.bytes(&l.transaction_hash);
    }

    /// The scalar fields of a log, in declaration order: a codec then folds the topics,
    /// the data, the address and the transaction hash.
    #[inline]
    pub fn log_head(&mut self, block_number: u64, transaction_index: u32, log_index: u32) {
        self.u64(block_number);
        self.u64(u64::from(transaction_index));
        self.u64(u64::from(log_index));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compute_answers_the_vector_response() {
        let r = request();
        assert_eq!(compute(r.id, r.block, &r.account), response());
        let other = compute(7, r.block + 1, &[0; 20]);
        assert_eq!((other.id, other.balance, other.nonce), (7, 0, 0));
        assert_ne!(other.block_hash, eth::BLOCK_HASH);
    }
}

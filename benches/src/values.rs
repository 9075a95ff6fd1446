//! The values every codec carries, the handler's compute step, and the sink that folds
//! every decoded field so the optimiser cannot drop a read.

use crate::eth;

/// An `eth_getBalance` request, independent of any wire format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Request {
    pub id: u64,
    pub block: u64,
    pub account: [u8; 20],
}

/// An `eth_getBalance` response, independent of any wire format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
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

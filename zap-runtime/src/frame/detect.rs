//! Telling the two TCP framings apart on one port, from the first bytes of a connection.
//!
//! A node-transport connection starts with its NodeID handshake `[len u32 = 80][ZAP
//! message]`, so its first four bytes are `50 00 00 00` and its fifth is the first byte
//! of the ZAP magic, `0x5A` (`'Z'`). An RPC-transport connection starts with a frame
//! `[len u32][dir u8]...`, so its fifth byte is a direction, 1 to 5.
//!
//! So: a first length word other than 80 cannot start a node connection, and the
//! connection is RPC (whose decoder then judges that length at once, as it always has:
//! 0 or over the maximum closes the connection). A length word of 80 is decided by the
//! fifth byte: `'Z'` is node, 1 to 5 is RPC, anything else is neither and is refused. A
//! connection is never guessed into a framing.

use thiserror::Error;

use super::node::HANDSHAKE_FRAME_LEN;
use super::Direction;
use crate::MAGIC;

/// Bytes [`detect`] needs to decide in every case.
pub const DETECT_LEN: usize = 5;

/// The framing a connection speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Framing {
    /// `[len u32][dir u8][envelope]`: the RPC transport (Go `zap-proto/go/transport`).
    #[default]
    Rpc,
    /// A NodeID handshake, then `[len u32][reqID u32][flag u32][envelope]`: the node
    /// transport (luxfi/zap nodes, the TypeScript `ZapClient`).
    Node,
}

/// The first bytes of a connection are neither framing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error(
    "the first frame has byte {byte:#04x} after its length word: neither an RPC direction \
     (1..=6) nor the start of a NodeID handshake (0x5a, the ZAP magic)"
)]
pub struct UnknownFraming {
    pub byte: u8,
}

/// The framing of a connection whose first bytes are `prefix`; `Ok(None)` while more
/// are needed (at most [`DETECT_LEN`]).
pub fn detect(prefix: &[u8]) -> Result<Option<Framing>, UnknownFraming> {
    let Some(len) = prefix.first_chunk::<4>() else {
        return Ok(None);
    };
    if u32::from_le_bytes(*len) != HANDSHAKE_FRAME_LEN {
        return Ok(Some(Framing::Rpc));
    }
    let Some(&byte) = prefix.get(DETECT_LEN - 1) else {
        return Ok(None);
    };
    if byte == MAGIC[0] {
        Ok(Some(Framing::Node))
    } else if Direction::from_byte(byte).is_some() {
        Ok(Some(Framing::Rpc))
    } else {
        Err(UnknownFraming { byte })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decides_on_the_length_word_then_the_fifth_byte() {
        assert_eq!(detect(&[80, 0, 0]), Ok(None));
        assert_eq!(detect(&[80, 0, 0, 0]), Ok(None));
        assert_eq!(detect(&[80, 0, 0, 0, b'Z', b'A']), Ok(Some(Framing::Node)));
        for dir in 1..=6 {
            assert_eq!(detect(&[80, 0, 0, 0, dir]), Ok(Some(Framing::Rpc)));
        }
        for byte in [0, 7, 90 - 1, 91, 255] {
            assert_eq!(detect(&[80, 0, 0, 0, byte]), Err(UnknownFraming { byte }));
        }
        // Any other length is not a handshake: RPC, whatever follows.
        for len in [0u32, 1, 79, 81, u32::MAX] {
            assert_eq!(detect(&len.to_le_bytes()), Ok(Some(Framing::Rpc)));
        }
    }
}

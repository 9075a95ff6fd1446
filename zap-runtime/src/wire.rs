//! The 16-byte message header (spec §1) in one place: its layout, its constants, the
//! one writer every message, envelope, answer and handshake goes through, and the
//! reads of its fields.
//!
//! ```text
//! 0..4    magic    "ZAP\0"
//! 4..6    version  u16 LE: 1 (plain messages) or 2 (RPC envelopes, node handshakes)
//! 6..8    flags    u16 LE: the high byte is the message type (RPC envelopes 0xC8)
//! 8..12   root     u32 LE: offset of the root object from the message start
//! 12..16  size     u32 LE: the message's length, header included
//! ```

/// Length of the message header.
pub const HEADER_SIZE: usize = 16;
/// The four magic bytes every message starts with: `"ZAP\0"`.
pub const MAGIC: [u8; 4] = *b"ZAP\0";
/// Header version 1: what builders stamp by default.
pub const VERSION1: u16 = 1;
/// Header version 2: what RPC envelopes stamp. The data segment is identical.
pub const VERSION2: u16 = 2;

/// Where each field of the header starts.
pub mod at {
    /// `magic`, 4 bytes.
    pub const MAGIC: usize = 0;
    /// `version`, u16.
    pub const VERSION: usize = 4;
    /// `flags`, u16.
    pub const FLAGS: usize = 6;
    /// `root`, u32.
    pub const ROOT: usize = 8;
    /// `size`, u32.
    pub const SIZE: usize = 12;
}

/// A header's fields (the magic is implied).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// [`VERSION1`] or [`VERSION2`].
    pub version: u16,
    /// The flags word.
    pub flags: u16,
    /// Offset of the root object (16 when it follows the header).
    pub root: u32,
    /// The message's length, header included.
    pub size: u32,
}

impl Header {
    /// The header's 16 bytes.
    ///
    /// Composed as two little-endian words (magic, version, flags; root, size) rather
    /// than field by field: written into a message, that is two stores where the fields
    /// one by one make up to five, and encoding small messages is bound by its stores.
    #[inline]
    pub fn to_bytes(&self) -> [u8; HEADER_SIZE] {
        const {
            assert!(at::MAGIC == 0 && at::VERSION == 4 && at::FLAGS == 6);
            assert!(at::ROOT == 8 && at::SIZE == 12);
        };
        let lead = u64::from(u32::from_le_bytes(MAGIC))
            | u64::from(self.version) << 32
            | u64::from(self.flags) << 48;
        let tail = u64::from(self.root) | u64::from(self.size) << 32;
        let mut out = [0u8; HEADER_SIZE];
        out[..8].copy_from_slice(&lead.to_le_bytes());
        out[8..].copy_from_slice(&tail.to_le_bytes());
        out
    }

    /// Write the header over the first 16 bytes of `out` (which must have them).
    #[inline]
    pub fn write(&self, out: &mut [u8]) {
        out[..HEADER_SIZE].copy_from_slice(&self.to_bytes());
    }

    /// The fields of a header and its magic, unchecked.
    #[inline]
    pub fn read(bytes: &[u8; HEADER_SIZE]) -> ([u8; 4], Header) {
        let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
        let u32_at =
            |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        let magic = [bytes[0], bytes[1], bytes[2], bytes[3]];
        let header = Header {
            version: u16_at(at::VERSION),
            flags: u16_at(at::FLAGS),
            root: u32_at(at::ROOT),
            size: u32_at(at::SIZE),
        };
        (magic, header)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_of_spec_section_1() {
        let h = Header {
            version: VERSION2,
            flags: 0xC800,
            root: 16,
            size: 0x0102_0304,
        };
        let bytes = h.to_bytes();
        assert_eq!(
            bytes,
            [b'Z', b'A', b'P', 0, 2, 0, 0x00, 0xC8, 16, 0, 0, 0, 4, 3, 2, 1]
        );
        assert_eq!(Header::read(&bytes), (MAGIC, h));
    }
}

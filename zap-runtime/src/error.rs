//! Small concrete error types: each says what was wrong and where.

use thiserror::Error;

/// Why a buffer is not a ZAP message (spec §1). Reads inside a parsed message never fail;
/// they yield zero values instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum ParseError {
    /// Fewer than 16 bytes: there is no room for the header.
    #[error("buffer too small for a ZAP header: {len} bytes, expected at least 16")]
    TooShort { len: usize },
    /// Bytes 0..4 are not `ZAP\0`.
    #[error("bad magic at offset 0: expected 5a415000 (\"ZAP\\0\"), found {}", hex4(.found))]
    BadMagic { found: [u8; 4] },
    /// Bytes 4..6 hold a version other than 1 or 2.
    #[error("unsupported version at offset 4: expected 1 or 2, found {found}")]
    BadVersion { found: u16 },
    /// The size field (bytes 12..16) is below the header length.
    #[error("declared size {size} at offset 12 is smaller than the 16-byte header")]
    SizeBelowHeader { size: u32 },
    /// The size field claims more bytes than the buffer has.
    #[error("declared size {size} at offset 12 exceeds the buffer length {len}")]
    SizePastEnd { size: u32, len: usize },
}

fn hex4(b: &[u8; 4]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Why a message could not be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum BuildError {
    /// The message grew past the builder's limit. Offsets on the wire are 32-bit (signed
    /// for pointers and lists), so no message may exceed [`crate::Builder::MAX_LEN`]
    /// bytes; a builder may be given a lower limit with [`crate::Builder::set_max_len`].
    #[error("message of {len} bytes is over the limit of {max} bytes")]
    TooLarge { len: usize, max: usize },
}

/// Why a message is not a valid RPC request or response envelope (spec §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum RequestError {
    /// The envelope is not a ZAP message at all.
    #[error("envelope is not a ZAP message: {0}")]
    Message(#[from] ParseError),
    /// The root object is null or its fixed section runs past the message.
    #[error("envelope root object at {root} needs {need} bytes but the message is {size} bytes")]
    Truncated { root: u32, need: usize, size: usize },
}

/// Why the TCP frame stream cannot be decoded (spec §6). Any of these ends the connection:
/// the stream is no longer in sync.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum FrameError {
    /// A frame length of 0: every frame carries at least its direction byte.
    #[error(
        "frame at stream offset {offset} has length 0; expected at least 1 (the direction byte)"
    )]
    Empty { offset: u64 },
    /// A frame longer than the configured maximum.
    #[error("frame at stream offset {offset} is {len} bytes, over the limit of {max}")]
    TooLarge { offset: u64, len: u32, max: u32 },
    /// A direction byte outside 1..=5.
    #[error("frame at stream offset {offset} has unknown direction {dir}; expected 1..=5")]
    UnknownDirection { offset: u64, dir: u8 },
    /// An envelope too large to describe with a u32 length (encoder side).
    #[error("envelope of {len} bytes does not fit a frame (limit {max})")]
    EnvelopeTooLarge { len: usize, max: u32 },
}

//! TCP framing (spec §6): each frame is `[len u32 LE][dir u8][envelope]` with
//! `len = 1 + envelope length`. The node transport's framing is in [`node`], and
//! [`detect`] tells the two apart from the first bytes of a connection.
//!
//! [`FrameDecoder`] is a small state machine over the caller's read buffer: it never
//! copies, returns `Ok(None)` until a whole frame is there (frames may arrive split
//! across reads), refuses an oversized length as soon as the 4 length bytes arrive, and
//! uses checked arithmetic throughout.
//!
//! ```
//! use zap_runtime::frame::{encode_frame, Direction, FrameDecoder};
//! let mut stream = Vec::new();
//! encode_frame(&mut stream, Direction::Request, b"envelope").unwrap();
//! let mut dec = FrameDecoder::default();
//! assert!(dec.decode(&stream[..6]).unwrap().is_none()); // partial: wait for more
//! let (frame, used) = dec.decode(&stream).unwrap().unwrap();
//! assert_eq!((frame.dir, frame.envelope, used), (Direction::Request, &b"envelope"[..], 13));
//! ```

use crate::error::FrameError;

mod detect;
pub mod node;

pub use detect::{detect, Framing, UnknownFraming, DETECT_LEN};

/// An incremental frame decoder (tokio-util codec style): decode the frame at the front
/// of a buffer, or say that more bytes are needed. One per framing: [`FrameDecoder`]
/// for the RPC transport, [`node::NodeFrameDecoder`] for the node transport.
pub trait FrameDecode {
    /// A decoded frame, borrowing the buffer.
    type Frame<'a>;
    /// Why the stream cannot be decoded (the connection must close).
    type Error;

    /// `Ok(Some((frame, used)))`: a whole frame; drop `used` bytes from the front.
    /// `Ok(None)`: incomplete; read more and call again with the same bytes (and more).
    fn decode<'a>(
        &mut self,
        buf: &'a [u8],
    ) -> Result<Option<(Self::Frame<'a>, usize)>, Self::Error>;
}

/// Bytes before the envelope: the length word and the direction byte.
pub const FRAME_HEADER: usize = 5;
/// Default maximum frame length (`len` field): 16 MiB. The Go runtime allows 64 MiB;
/// raise it with [`FrameDecoder::new`] if your peers send larger messages.
pub const DEFAULT_MAX_FRAME: u32 = 16 << 20;

/// The direction byte of a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Direction {
    Request = 1,
    Response = 2,
    StreamOpen = 3,
    StreamMessage = 4,
    StreamEnd = 5,
    /// The caller gave up on a call: `[promiseID u32]`. A server stops the call's
    /// handler and answers it 499; runtimes that do not know it ignore it (the Go
    /// runtime ignores every unknown direction).
    Cancel = 6,
}

impl Direction {
    /// The direction for a wire byte, if it is one of 1..=6.
    pub fn from_byte(b: u8) -> Option<Direction> {
        Some(match b {
            1 => Direction::Request,
            2 => Direction::Response,
            3 => Direction::StreamOpen,
            4 => Direction::StreamMessage,
            5 => Direction::StreamEnd,
            6 => Direction::Cancel,
            _ => return None,
        })
    }
}

/// One decoded frame, borrowing the read buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame<'a> {
    pub dir: Direction,
    pub envelope: &'a [u8],
}

impl<'a> Frame<'a> {
    /// The body of a stream message or end (dirs 4, 5), `[stream id u32][message]`:
    /// the id and the message; `None` when it is shorter than an id (such a frame is
    /// dropped, as the Go runtime does).
    pub fn stream_body(&self) -> Option<(u32, &'a [u8])> {
        let (id, message) = self.envelope.split_first_chunk::<4>()?;
        Some((u32::from_le_bytes(*id), message))
    }
}

/// Decodes frames from the front of a byte buffer, remembering how far into the stream
/// it is so errors can say where.
#[derive(Clone, Debug)]
pub struct FrameDecoder {
    max_frame: u32,
    stream_offset: u64,
}

impl Default for FrameDecoder {
    fn default() -> Self {
        FrameDecoder::new(DEFAULT_MAX_FRAME)
    }
}

impl FrameDecoder {
    /// A decoder refusing frames whose `len` exceeds `max_frame`.
    pub fn new(max_frame: u32) -> Self {
        FrameDecoder {
            max_frame,
            stream_offset: 0,
        }
    }

    /// The configured maximum frame length.
    pub fn max_frame(&self) -> u32 {
        self.max_frame
    }

    /// Decode the frame at the front of `buf`.
    ///
    /// `Ok(Some((frame, used)))`: a whole frame; drop `used` bytes from the front.
    /// `Ok(None)`: the frame is incomplete; read more and call again with the same bytes.
    /// `Err(_)`: the stream is corrupt (empty, oversized, unknown direction); close it.
    pub fn decode<'a>(&mut self, buf: &'a [u8]) -> Result<Option<(Frame<'a>, usize)>, FrameError> {
        let Some(len_bytes) = buf.first_chunk::<4>() else {
            return Ok(None);
        };
        let len = u32::from_le_bytes(*len_bytes);
        let offset = self.stream_offset;
        if len == 0 {
            return Err(FrameError::Empty { offset });
        }
        if len > self.max_frame {
            return Err(FrameError::TooLarge {
                offset,
                len,
                max: self.max_frame,
            });
        }
        let Some(&dir_byte) = buf.get(4) else {
            return Ok(None);
        };
        let dir = Direction::from_byte(dir_byte).ok_or(FrameError::UnknownDirection {
            offset,
            dir: dir_byte,
        })?;
        // len <= max_frame <= u32::MAX, so 4 + len fits a usize on every target we build.
        let total = (len as usize).checked_add(4).ok_or(FrameError::TooLarge {
            offset,
            len,
            max: self.max_frame,
        })?;
        let Some(envelope) = buf.get(FRAME_HEADER..total) else {
            return Ok(None);
        };
        self.stream_offset = self.stream_offset.saturating_add(total as u64);
        Ok(Some((Frame { dir, envelope }, total)))
    }
}

impl FrameDecode for FrameDecoder {
    type Frame<'a> = Frame<'a>;
    type Error = FrameError;

    fn decode<'a>(&mut self, buf: &'a [u8]) -> Result<Option<(Frame<'a>, usize)>, FrameError> {
        FrameDecoder::decode(self, buf)
    }
}

/// Append one frame carrying `envelope` to `out`.
pub fn encode_frame(out: &mut Vec<u8>, dir: Direction, envelope: &[u8]) -> Result<(), FrameError> {
    let len = u32::try_from(envelope.len())
        .ok()
        .and_then(|n| n.checked_add(1))
        .ok_or(FrameError::EnvelopeTooLarge {
            len: envelope.len(),
            max: u32::MAX - 1,
        })?;
    out.reserve(FRAME_HEADER + envelope.len());
    out.extend_from_slice(&len.to_le_bytes());
    out.push(dir as u8);
    out.extend_from_slice(envelope);
    Ok(())
}

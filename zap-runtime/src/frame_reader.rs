//! The read side of a framed ZAP/TCP connection, the one loop shared by the server's
//! connections and the client, for either framing: read into a buffer that is reused,
//! decode complete frames from its front with the framing's decoder ([`FrameDecoder`]
//! or [`NodeFrameDecoder`](crate::frame::node::NodeFrameDecoder)), hand them out, and
//! keep only the unfinished frame for the next read. Both framings start each frame
//! with a u32 length of what follows it, which is all the buffer management looks at.
//!
//! The buffer is a [`BytesMut`]: a frame can be split off it as [`Bytes`] without a
//! copy ([`FrameReader::next_frame_bytes`]), to be kept past the next read. While no
//! frame is kept, making room reuses the same memory (the unfinished frame's bytes move
//! to the front, as a `Vec` drain would do); a kept frame pins only the block it was read
//! into, and the reader goes on in a new one.

use std::io;
use std::ops::Range;

use bytes::{Buf, Bytes, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt};

use crate::frame::{FrameDecode, FrameDecoder};

/// Starting capacity of the read buffer.
const BUF_START: usize = 16 << 10;
/// Read only with at least this much room (grown for a large frame whose length is known).
const MIN_READ_ROOM: usize = 4 << 10;
/// A buffer that grew past this for one large frame is given back once empty.
const BUF_KEEP: usize = 1 << 20;

/// A connection's read buffer and frame decoder.
///
/// Use: [`FrameReader::next_frame`] until it returns `Ok(None)`, then
/// [`FrameReader::read_from`] the socket, and again. Frames borrow the buffer, so each
/// must be handled before the next read; [`FrameReader::next_frame_bytes`] hands a frame
/// out as [`Bytes`] instead, which may be kept.
#[derive(Debug)]
pub(crate) struct FrameReader<D = FrameDecoder> {
    pub(crate) decoder: D,
    buf: BytesMut,
    /// Bytes at the front of `buf` already handed out as frames.
    used: usize,
    /// What `buf` holds past [`BUF_START`], counted in the server's buffer budget.
    #[cfg(feature = "server")]
    budget: Option<crate::budget::Held>,
}

impl FrameReader {
    /// An RPC-framing reader refusing frames whose `len` exceeds `max_frame`.
    #[cfg(any(feature = "client", test))]
    pub(crate) fn new(max_frame: u32) -> Self {
        FrameReader::with_decoder(FrameDecoder::new(max_frame))
    }
}

impl<D: FrameDecode> FrameReader<D> {
    /// A reader decoding with `decoder`.
    pub(crate) fn with_decoder(decoder: D) -> Self {
        FrameReader {
            decoder,
            buf: BytesMut::with_capacity(BUF_START),
            used: 0,
            #[cfg(feature = "server")]
            budget: None,
        }
    }

    /// Count what the buffer grows past its first [`BUF_START`] bytes in `budget`, and
    /// wait for it before growing when the budget is spent.
    #[cfg(feature = "server")]
    pub(crate) fn with_budget(mut self, budget: crate::budget::BufferBudget) -> Self {
        self.budget = Some(crate::budget::Held::new(budget));
        self
    }

    /// The next complete frame in the buffer; `Ok(None)` when only part of one (or
    /// nothing) is there. An error means the stream is corrupt: close the connection.
    pub(crate) fn next_frame(&mut self) -> Result<Option<D::Frame<'_>>, D::Error> {
        match self.decoder.decode(&self.buf[self.used..])? {
            Some((frame, len)) => {
                self.used += len;
                Ok(Some(frame))
            }
            None => Ok(None),
        }
    }

    /// The next complete frame, split off the buffer as [`Bytes`] (no copy), with what
    /// `take` makes of the decoded frame: its fields, and where its parts are in the
    /// returned bytes ([`Within::range`]). `Ok(None)` and errors as
    /// [`FrameReader::next_frame`].
    pub(crate) fn next_frame_bytes<R>(
        &mut self,
        take: impl for<'a> FnOnce(D::Frame<'a>, Within) -> R,
    ) -> Result<Option<(R, Bytes)>, D::Error> {
        // Frames split off leave nothing used behind; only frames handed out borrowed
        // (`next_frame`) do. (The read drops them too, and gives back a grown buffer.)
        if self.used != 0 {
            self.drop_used();
        }
        let Some((frame, len)) = self.decoder.decode(&self.buf)? else {
            return Ok(None);
        };
        let within = Within {
            base: self.buf.as_ptr() as usize,
            len,
        };
        let taken = take(frame, within);
        Ok(Some((taken, self.buf.split_to(len).freeze())))
    }
}

/// Where a decoded frame lies in the read buffer, to find its parts (the envelope) in
/// the [`Bytes`] it is split off as.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Within {
    base: usize,
    len: usize,
}

impl Within {
    /// The position of `part` (a slice of the decoded frame) in the frame's bytes; an
    /// empty range for anything else.
    pub(crate) fn range(self, part: &[u8]) -> Range<usize> {
        let at = (part.as_ptr() as usize).wrapping_sub(self.base);
        match at.checked_add(part.len()) {
            Some(end) if at <= self.len && end <= self.len => at..end,
            _ => 0..0,
        }
    }
}

impl<D> FrameReader<D> {
    /// The bytes received and not yet handed out as frames.
    #[cfg(any(feature = "server", feature = "client"))]
    pub(crate) fn unread(&self) -> &[u8] {
        &self.buf[self.used..]
    }

    /// Bytes received of a frame not yet complete.
    pub(crate) fn pending(&self) -> usize {
        self.buf.len() - self.used
    }

    /// Read once from `source` into the buffer, after dropping the frames handed out
    /// and making room. `Ok(0)` is the end of the stream ([`FrameReader::pending`] says
    /// whether it cut a frame short). Cancel-safe: dropping the future loses no bytes.
    pub(crate) async fn read_from<R: AsyncRead + Unpin>(
        &mut self,
        source: &mut R,
    ) -> io::Result<usize> {
        self.drop_used();
        let want = self.room_wanted();
        if self.buf.capacity() - self.buf.len() < want {
            #[cfg(feature = "server")]
            if let Some(held) = &mut self.budget {
                // At least this much capacity after the reserve below.
                let grown = (self.buf.len() + want).saturating_sub(BUF_START);
                if grown > held.bytes() {
                    held.hold(grown).await;
                }
            }
            self.buf.reserve(want);
        }
        #[cfg(feature = "server")]
        self.count_held();
        source.read_buf(&mut self.buf).await
    }

    /// The most an empty buffer keeps for the next frames: [`BUF_KEEP`], or only
    /// [`BUF_START`] while the budget is more than half spent.
    fn keep(&self) -> usize {
        #[cfg(feature = "server")]
        if self.budget.as_ref().is_some_and(|h| h.pressed()) {
            return BUF_START;
        }
        BUF_KEEP
    }

    /// Make the budget's count what the buffer holds past [`BUF_START`] now.
    #[cfg(feature = "server")]
    fn count_held(&mut self) {
        if let Some(held) = &mut self.budget {
            let over = self.buf.capacity().saturating_sub(BUF_START);
            if over != held.bytes() {
                held.hold_now(over);
            }
        }
    }

    fn drop_used(&mut self) {
        self.buf.advance(self.used);
        self.used = 0;
        if self.buf.is_empty() && self.buf.capacity() > self.keep() {
            self.buf = BytesMut::with_capacity(BUF_START);
            #[cfg(feature = "server")]
            self.count_held();
        }
    }

    /// The room to make before a read: at least `MIN_READ_ROOM`, and for a frame whose
    /// length is known, room for its rest, but never more than the bytes already
    /// buffered (or `BUF_START`). The buffer so grows geometrically with the bytes that
    /// really arrive: a peer that announces a large frame and sends a few bytes of it
    /// pins a few KiB, not the announced length (at most twice what it sent). Reserving
    /// it allocates only when the buffer is too small, or when frames split off it are
    /// still kept (their block cannot be reused).
    fn room_wanted(&self) -> usize {
        // The length word is the peer's: checked, so no announced value can wrap.
        let frame_total = self.buf.first_chunk::<4>().map_or(0, |len| {
            usize::try_from(u32::from_le_bytes(*len))
                .ok()
                .and_then(|len| len.checked_add(4))
                .unwrap_or(usize::MAX)
        });
        frame_total
            .saturating_sub(self.buf.len())
            .min(self.buf.len().max(BUF_START))
            .max(MIN_READ_ROOM)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::{encode_frame, Direction};

    /// Frames split at every byte boundary come out whole and in order, and the
    /// buffer never holds more than the unfinished frame after a read.
    #[tokio::test]
    async fn frames_split_across_reads_come_out_whole() {
        let mut stream = Vec::new();
        for envelope in [&b"one"[..], b"", b"three", &[9u8; 5000][..]] {
            encode_frame(&mut stream, Direction::Request, envelope).unwrap();
        }
        let mut reader = FrameReader::new(1 << 20);
        let mut got: Vec<Vec<u8>> = Vec::new();
        let mut source = &stream[..];
        for step in 1.. {
            // Feed at most 7 bytes a read.
            let take = source.len().min(7);
            let mut chunk = &source[..take];
            source = &source[take..];
            let n = reader.read_from(&mut chunk).await.unwrap();
            assert_eq!(n, take, "step {step}");
            while let Some(frame) = reader.next_frame().unwrap() {
                got.push(frame.envelope.to_vec());
            }
            if take == 0 {
                break;
            }
        }
        assert_eq!(got.len(), 4);
        assert_eq!((&got[0][..], &got[2][..]), (&b"one"[..], &b"three"[..]));
        assert_eq!(got[3], vec![9u8; 5000]);
        assert_eq!(reader.pending(), 0);
    }

    /// A peer announcing a 4 GiB frame and sending 8 bytes of it pins a few KiB.
    #[tokio::test]
    async fn a_large_announced_length_does_not_reserve_it() {
        let mut reader = FrameReader::new(u32::MAX);
        let mut head = &[0xFF, 0xFF, 0xFF, 0xFF, 1, 0, 0, 0][..];
        reader.read_from(&mut head).await.unwrap();
        assert!(reader.next_frame().unwrap().is_none());
        let mut empty = &[][..];
        assert_eq!(reader.read_from(&mut empty).await.unwrap(), 0);
        assert_eq!(reader.pending(), 8);
        assert!(
            reader.buf.capacity() <= 2 * BUF_START,
            "{}",
            reader.buf.capacity()
        );
    }
}

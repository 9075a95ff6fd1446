//! A connection's write buffer: the answers waiting to be flushed, each framed in the
//! connection's framing (RPC `[len][dir 2]`, node `[len][reqID][flag 2]`).
//!
//! Small answers are copied into one buffer and go out in one write. A large body (see
//! `ServerConfig::vectored_write_min`) is not copied: it is kept aside as [`Bytes`] (the
//! handler's builder buffer, frozen) with the place in the buffer where it belongs, and
//! the buffer and the bodies go out together in vectored writes (`writev`).

use std::io::{self, IoSlice};

use bytes::Bytes;
use tokio::io::{AsyncWrite, AsyncWriteExt};

use crate::frame::node::{Flag, NODE_FRAME_HEADER};
use crate::frame::{Direction, FRAME_HEADER};

/// Starting capacity of the write buffer.
const BUF_START: usize = 16 << 10;
/// A write buffer that grew past this for one large answer is given back once empty.
const BUF_KEEP: usize = 1 << 20;
/// The longest frame header of either framing.
pub(crate) const MAX_FRAME_HEAD: usize = NODE_FRAME_HEADER;

/// How the answer being written is framed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Head {
    /// `[len][dir 2]`.
    Rpc,
    /// `[len][reqID][flag 2]`: the answer to the request with this reqID.
    Node { req_id: u32 },
}

impl Head {
    /// Bytes the frame's `len` counts besides the message.
    pub(crate) fn overhead(self) -> u32 {
        match self {
            Head::Rpc => (FRAME_HEADER - 4) as u32,
            Head::Node { .. } => (NODE_FRAME_HEADER - 4) as u32,
        }
    }

    /// Write the frame header for `frame_len` at the end of `out`, so that what follows
    /// it starts at the same place for either framing; its length.
    pub(crate) fn write(self, out: &mut [u8; MAX_FRAME_HEAD], frame_len: u32) -> usize {
        const RPC_AT: usize = MAX_FRAME_HEAD - FRAME_HEADER;
        match self {
            Head::Rpc => {
                out[RPC_AT..RPC_AT + 4].copy_from_slice(&frame_len.to_le_bytes());
                out[RPC_AT + 4] = Direction::Response as u8;
                FRAME_HEADER
            }
            Head::Node { req_id } => {
                out[..4].copy_from_slice(&frame_len.to_le_bytes());
                out[4..8].copy_from_slice(&req_id.to_le_bytes());
                out[8..12].copy_from_slice(&(Flag::Response as u32).to_le_bytes());
                NODE_FRAME_HEADER
            }
        }
    }
}

/// Slices handed to one vectored write at most.
const MAX_SLICES: usize = 64;

/// Answers waiting to be written.
#[derive(Debug)]
pub(crate) struct Answers {
    buf: Vec<u8>,
    /// Large bodies written from their own memory: each goes out after `buf[..at]`.
    tails: Vec<(usize, Bytes)>,
    /// The bytes of `tails`.
    tail_len: usize,
    head: Head,
    /// The reqIDs answered in `buf` (node framing): a request reusing one of them came
    /// while that reqID was still in flight (its answer not even sent).
    unflushed: Vec<u32>,
}

impl Default for Answers {
    fn default() -> Self {
        Answers {
            buf: Vec::with_capacity(BUF_START),
            tails: Vec::new(),
            tail_len: 0,
            head: Head::Rpc,
            unflushed: Vec::new(),
        }
    }
}

impl Answers {
    /// The next answers are RPC frames.
    pub(crate) fn begin_rpc(&mut self) {
        self.head = Head::Rpc;
    }

    /// The next answer is the node frame answering `req_id`; `Err(req_id)` if an answer
    /// to the same reqID is still waiting here (so the peer reused it while in flight).
    pub(crate) fn begin_node(&mut self, req_id: u32) -> Result<(), u32> {
        if self.unflushed.contains(&req_id) {
            return Err(req_id);
        }
        self.unflushed.push(req_id);
        self.head = Head::Node { req_id };
        Ok(())
    }

    /// The next answer is framed by `head`, a call's that was begun earlier and ran
    /// beside later ones (its reqID's duplicate check was made when it began).
    pub(crate) fn resume(&mut self, head: Head) {
        if let Head::Node { req_id } = head {
            self.unflushed.push(req_id);
        }
        self.head = head;
    }

    /// How the answer being written is framed.
    pub(crate) fn head(&self) -> Head {
        self.head
    }

    /// The write buffer, to append whole frames to (stream frames, RPC framing).
    pub(crate) fn buf_mut(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    /// Append bytes of the answer being written.
    pub(crate) fn extend(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// Append `bytes` to the answer being written without copying them: they are
    /// written from their own memory, after what the buffer holds now.
    pub(crate) fn push_tail(&mut self, bytes: Bytes) {
        self.tail_len += bytes.len();
        self.tails.push((self.buf.len(), bytes));
    }

    /// The write buffer's bytes (without the bodies kept aside).
    #[cfg(test)]
    pub(crate) fn buffered(&self) -> &[u8] {
        &self.buf
    }

    /// Bytes waiting to be written.
    pub(crate) fn len(&self) -> usize {
        self.buf.len() + self.tail_len
    }

    /// Nothing waits to be written.
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Write everything out: one `write_all` of the buffer when no body was kept aside,
    /// else vectored writes of the buffer's pieces and the bodies between them.
    /// Cancel-safe only in that a retry would write again from the start: callers drop
    /// the connection when a flush is cancelled.
    pub(crate) async fn write_to<W: AsyncWrite + Unpin>(&self, w: &mut W) -> io::Result<()> {
        if self.tails.is_empty() {
            return w.write_all(&self.buf).await;
        }
        let mut at = Cursor::default();
        loop {
            let mut slices = [IoSlice::new(&[]); MAX_SLICES];
            let n = self.slices_from(at, &mut slices);
            if n == 0 {
                return Ok(());
            }
            let written = w.write_vectored(&slices[..n]).await?;
            if written == 0 {
                return Err(io::ErrorKind::WriteZero.into());
            }
            at = self.advance(at, written);
        }
    }

    /// Piece `i`: even pieces are stretches of the buffer, odd ones the kept bodies.
    fn piece(&self, i: usize) -> Option<&[u8]> {
        let k = i / 2;
        if i % 2 == 1 {
            return self.tails.get(k).map(|(_, b)| &b[..]);
        }
        if k > self.tails.len() {
            return None;
        }
        let start = if k == 0 { 0 } else { self.tails[k - 1].0 };
        let end = self.tails.get(k).map_or(self.buf.len(), |(at, _)| *at);
        Some(&self.buf[start..end])
    }

    /// Fill `slices` with the pieces from `at` on; how many were filled.
    fn slices_from<'a>(&'a self, at: Cursor, slices: &mut [IoSlice<'a>]) -> usize {
        let mut n = 0;
        let mut i = at.piece;
        let mut skip = at.offset;
        while n < slices.len() {
            let Some(piece) = self.piece(i) else { break };
            let rest = &piece[skip.min(piece.len())..];
            if !rest.is_empty() {
                slices[n] = IoSlice::new(rest);
                n += 1;
            }
            i += 1;
            skip = 0;
        }
        n
    }

    /// The cursor `written` bytes after `at`.
    fn advance(&self, mut at: Cursor, mut written: usize) -> Cursor {
        while let Some(piece) = self.piece(at.piece) {
            let left = piece.len() - at.offset.min(piece.len());
            if written < left {
                at.offset += written;
                break;
            }
            written -= left;
            at = Cursor {
                piece: at.piece + 1,
                offset: 0,
            };
        }
        at
    }

    /// Everything was written: empty the buffer (giving back one grown for a large
    /// answer) and forget the reqIDs answered.
    pub(crate) fn clear(&mut self) {
        self.buf.clear();
        self.tails.clear();
        self.tail_len = 0;
        self.unflushed.clear();
        if self.buf.capacity() > BUF_KEEP {
            self.buf = Vec::with_capacity(BUF_START);
        }
    }
}

/// How far a vectored flush got: piece index (see `Answers::piece`) and bytes into it.
#[derive(Clone, Copy, Debug, Default)]
struct Cursor {
    piece: usize,
    offset: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer taking at most `step` bytes a call, through the vectored path.
    struct Trickle {
        out: Vec<u8>,
        step: usize,
    }

    impl AsyncWrite for Trickle {
        fn poll_write(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
            buf: &[u8],
        ) -> std::task::Poll<io::Result<usize>> {
            let n = buf.len().min(self.step);
            self.out.extend_from_slice(&buf[..n]);
            std::task::Poll::Ready(Ok(n))
        }
        fn poll_write_vectored(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
            bufs: &[IoSlice<'_>],
        ) -> std::task::Poll<io::Result<usize>> {
            let mut left = self.step;
            for b in bufs {
                let n = b.len().min(left);
                self.out.extend_from_slice(&b[..n]);
                left -= n;
                if left == 0 {
                    break;
                }
            }
            std::task::Poll::Ready(Ok(self.step - left))
        }
        fn is_write_vectored(&self) -> bool {
            true
        }
        fn poll_flush(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<io::Result<()>> {
            std::task::Poll::Ready(Ok(()))
        }
        fn poll_shutdown(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<io::Result<()>> {
            std::task::Poll::Ready(Ok(()))
        }
    }

    /// Whatever the write sizes, the bytes come out in order, bodies in their places,
    /// the same as if every body had been copied into the buffer.
    #[tokio::test]
    async fn vectored_flush_writes_pieces_in_order() {
        let mut answers = Answers::default();
        let mut copied = Vec::new();
        for i in 0..100u8 {
            let head = vec![i; usize::from(i % 7)];
            answers.extend(&head);
            copied.extend_from_slice(&head);
            if i % 3 == 0 {
                let body = Bytes::from(vec![i ^ 0xAA; usize::from(i) * 5]);
                copied.extend_from_slice(&body);
                answers.push_tail(body);
            }
        }
        assert_eq!(answers.len(), copied.len());
        for step in [1, 2, 3, 7, 64, 1000, 1 << 20] {
            let mut w = Trickle {
                out: Vec::new(),
                step,
            };
            answers.write_to(&mut w).await.unwrap();
            assert_eq!(w.out, copied, "step {step}");
        }
        answers.clear();
        assert!(answers.is_empty());
    }
}

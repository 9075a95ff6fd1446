//! A connection's write buffer: the answers waiting to be flushed, each framed in the
//! connection's framing (RPC `[len][dir 2]`, node `[len][reqID][flag 2]`).

use std::ops::Deref;

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

    /// Write the frame header for `frame_len` at the front of `out`; its length.
    pub(crate) fn write(self, out: &mut [u8; MAX_FRAME_HEAD], frame_len: u32) -> usize {
        out[..4].copy_from_slice(&frame_len.to_le_bytes());
        match self {
            Head::Rpc => {
                out[4] = Direction::Response as u8;
                FRAME_HEADER
            }
            Head::Node { req_id } => {
                out[4..8].copy_from_slice(&req_id.to_le_bytes());
                out[8..12].copy_from_slice(&(Flag::Response as u32).to_le_bytes());
                NODE_FRAME_HEADER
            }
        }
    }
}

/// Answers waiting to be written; derefs to their bytes.
#[derive(Debug)]
pub(crate) struct Answers {
    buf: Vec<u8>,
    head: Head,
    /// The reqIDs answered in `buf` (node framing): a request reusing one of them came
    /// while that reqID was still in flight (its answer not even sent).
    unflushed: Vec<u32>,
}

impl Default for Answers {
    fn default() -> Self {
        Answers {
            buf: Vec::with_capacity(BUF_START),
            head: Head::Rpc,
            unflushed: Vec::new(),
        }
    }
}

impl Deref for Answers {
    type Target = Vec<u8>;
    fn deref(&self) -> &Vec<u8> {
        &self.buf
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

    /// How the answer being written is framed.
    pub(crate) fn head(&self) -> Head {
        self.head
    }

    /// Append bytes of the answer being written.
    pub(crate) fn extend(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// Everything was written: empty the buffer (giving back one grown for a large
    /// answer) and forget the reqIDs answered.
    pub(crate) fn clear(&mut self) {
        self.buf.clear();
        self.unflushed.clear();
        if self.buf.capacity() > BUF_KEEP {
            self.buf = Vec::with_capacity(BUF_START);
        }
    }
}

//! The node transport (spec `transports.md`): the framing of luxfi/zap mesh nodes and of
//! the TypeScript runtime's `ZapClient`.
//!
//! A connection starts with a **handshake** each way: one frame `[len u32 = 80][message]`
//! whose message (version 2, 16-byte header) has a 64-byte root object holding the
//! sender's [`NodeId`] as UTF-8 at bytes `0..n` and `n` as a u32 at byte 60
//! (`1 <= n <= 60`). After it every frame is
//! `[len u32][reqID u32][flag u32][envelope]` with `len = 8 + envelope length`, flag
//! 1 for a request and 2 for its answer, which carries the request's reqID. All integers
//! little-endian.
//!
//! [`NodeFrameDecoder`] is the incremental decoder of that whole stream, handshake
//! included: like [`FrameDecoder`](super::FrameDecoder) it never copies, returns
//! `Ok(None)` until a whole frame is there, refuses a length over its maximum as soon as
//! the length word arrives (a handshake as soon as its length word is not 80), refuses a
//! flag other than 1 or 2 as soon as the flag arrives, and uses checked arithmetic.
//!
//! ```
//! use zap_runtime::frame::node::{
//!     encode_handshake, encode_node_frame, Flag, NodeFrame, NodeFrameDecoder, NodeId,
//! };
//! let me = NodeId::new("rust-peer").unwrap();
//! let mut stream = Vec::new();
//! encode_handshake(&mut stream, &me);
//! encode_node_frame(&mut stream, 7, Flag::Request, b"envelope").unwrap();
//!
//! let mut dec = NodeFrameDecoder::default();
//! let (first, used) = dec.decode(&stream).unwrap().unwrap();
//! assert_eq!(first, NodeFrame::Handshake(me));
//! let (call, _) = dec.decode(&stream[used..]).unwrap().unwrap();
//! let NodeFrame::Call(call) = call else { unreachable!() };
//! assert_eq!((call.req_id, call.flag, call.envelope), (7, Flag::Request, &b"envelope"[..]));
//! ```

use thiserror::Error;

use super::FrameDecode;
use crate::error::ParseError;
use crate::wire::Header;
use crate::{Message, HEADER_SIZE, VERSION2};

/// Bytes before the envelope of a correlated frame: length word, reqID and flag.
pub const NODE_FRAME_HEADER: usize = 12;
/// The peers' maximum frame length (`len` field): 10 MiB.
pub const NODE_DEFAULT_MAX_FRAME: u32 = 10 << 20;
/// Most bytes of a NodeID.
pub const MAX_NODE_ID: usize = 60;
/// Size of the handshake's root object; `n` sits at [`MAX_NODE_ID`].
const HANDSHAKE_OBJECT: usize = 64;
/// The `len` of every handshake frame: the message header and the 64-byte object.
pub const HANDSHAKE_FRAME_LEN: u32 = (HEADER_SIZE + HANDSHAKE_OBJECT) as u32;
/// The smallest `len` of a correlated frame: reqID and flag.
const MIN_CALL_LEN: u32 = 8;

/// The flag word of a correlated frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Flag {
    /// A call; answered with the same reqID and [`Flag::Response`].
    Request = 1,
    /// The answer to a call.
    Response = 2,
}

impl Flag {
    /// The flag for a wire value, if it is 1 or 2.
    pub fn from_u32(v: u32) -> Option<Flag> {
        match v {
            1 => Some(Flag::Request),
            2 => Some(Flag::Response),
            _ => None,
        }
    }
}

/// A node's identity as sent in the handshake: 1 to 60 bytes of UTF-8, stored inline
/// (copying one allocates nothing).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct NodeId {
    len: u8,
    bytes: [u8; MAX_NODE_ID],
}

/// Why a string cannot be a [`NodeId`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum NodeIdError {
    #[error("a NodeID cannot be empty")]
    Empty,
    #[error("a NodeID is at most {MAX_NODE_ID} bytes of UTF-8, this one is {len}")]
    TooLong { len: usize },
}

impl NodeId {
    /// `id` as a NodeID: 1 to 60 bytes.
    pub fn new(id: &str) -> Result<NodeId, NodeIdError> {
        match id.len() {
            0 => Err(NodeIdError::Empty),
            len if len > MAX_NODE_ID => Err(NodeIdError::TooLong { len }),
            len => {
                let mut bytes = [0u8; MAX_NODE_ID];
                bytes[..len].copy_from_slice(id.as_bytes());
                Ok(NodeId {
                    len: len as u8,
                    bytes,
                })
            }
        }
    }

    /// `id` as a NodeID, checked when compiled: `const ME: NodeId = NodeId::from_static("me");`
    /// Panics (a compile error in a const) unless `id` is 1 to 60 bytes.
    pub const fn from_static(id: &'static str) -> NodeId {
        let src = id.as_bytes();
        assert!(
            !src.is_empty() && src.len() <= MAX_NODE_ID,
            "a NodeID is 1 to 60 bytes"
        );
        let mut bytes = [0u8; MAX_NODE_ID];
        let mut i = 0;
        while i < src.len() {
            bytes[i] = src[i];
            i += 1;
        }
        NodeId {
            len: src.len() as u8,
            bytes,
        }
    }

    /// A NodeID made from `name`, cut to its longest prefix of at most 60 bytes that
    /// ends on a character boundary; `fallback` when `name` is empty.
    pub fn truncated(name: &str, fallback: NodeId) -> NodeId {
        let mut end = name.len().min(MAX_NODE_ID);
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        NodeId::new(&name[..end]).unwrap_or(fallback)
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        // Only ever built from a &str or from bytes checked to be UTF-8, on a boundary.
        core::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }
}

impl core::fmt::Debug for NodeId {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "NodeId({:?})", self.as_str())
    }
}

impl core::fmt::Display for NodeId {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl core::str::FromStr for NodeId {
    type Err = NodeIdError;
    fn from_str(s: &str) -> Result<NodeId, NodeIdError> {
        NodeId::new(s)
    }
}

/// Why a handshake frame is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum HandshakeError {
    /// Its `len` is not 80.
    #[error("handshake frame has length {len}; a NodeID handshake is exactly {HANDSHAKE_FRAME_LEN} bytes")]
    Length { len: u32 },
    /// The body is not a ZAP message.
    #[error("handshake is not a ZAP message: {0}")]
    Message(#[from] ParseError),
    /// The message's size is not 80, or its root object does not fit in it.
    #[error("handshake message of {size} bytes has its 64-byte root object at {root}")]
    Root { root: u32, size: usize },
    /// `n` (the u32 at byte 60 of the object) is 0 or over 60.
    #[error("handshake NodeID length is {n}; expected 1..=60")]
    IdLength { n: u32 },
    /// The NodeID bytes are not UTF-8.
    #[error("handshake NodeID is not UTF-8")]
    NotUtf8,
}

/// Why a node-transport byte stream cannot be decoded. Any of these ends the
/// connection: the stream is no longer in sync.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum NodeFrameError {
    /// The first frame is not a valid NodeID handshake.
    #[error("bad NodeID handshake: {0}")]
    Handshake(#[from] HandshakeError),
    /// A frame too short to hold reqID and flag.
    #[error("node frame at stream offset {offset} has length {len}; expected at least 8 (reqID and flag)")]
    TooShort { offset: u64, len: u32 },
    /// A frame longer than the configured maximum.
    #[error("node frame at stream offset {offset} is {len} bytes, over the limit of {max}")]
    TooLarge { offset: u64, len: u32, max: u32 },
    /// A flag other than 1 (request) or 2 (response).
    #[error("node frame at stream offset {offset} has flag {flag}; expected 1 (request) or 2 (response)")]
    UnknownFlag { offset: u64, flag: u32 },
    /// An envelope too large to describe with a u32 length (encoder side).
    #[error("envelope of {len} bytes does not fit a node frame")]
    EnvelopeTooLarge { len: usize },
}

/// A correlated frame, borrowing the read buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Correlated<'a> {
    pub req_id: u32,
    pub flag: Flag,
    pub envelope: &'a [u8],
}

/// One decoded node-transport frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeFrame<'a> {
    /// The peer's handshake: always the first frame, and only the first.
    Handshake(NodeId),
    /// A request or response.
    Call(Correlated<'a>),
}

/// Decodes a node-transport stream from the front of a byte buffer: the handshake, then
/// correlated frames.
#[derive(Clone, Debug)]
pub struct NodeFrameDecoder {
    max_frame: u32,
    stream_offset: u64,
    handshake_done: bool,
}

impl Default for NodeFrameDecoder {
    fn default() -> Self {
        NodeFrameDecoder::new(NODE_DEFAULT_MAX_FRAME)
    }
}

impl NodeFrameDecoder {
    /// A decoder for a whole connection (handshake first) refusing frames whose `len`
    /// exceeds `max_frame`.
    pub fn new(max_frame: u32) -> Self {
        NodeFrameDecoder {
            max_frame,
            stream_offset: 0,
            handshake_done: false,
        }
    }

    /// A decoder for the part of a connection after the handshake.
    pub fn after_handshake(max_frame: u32) -> Self {
        NodeFrameDecoder {
            handshake_done: true,
            ..NodeFrameDecoder::new(max_frame)
        }
    }

    /// The configured maximum frame length.
    pub fn max_frame(&self) -> u32 {
        self.max_frame
    }

    /// Whether the handshake has been decoded (or was not expected).
    pub fn handshake_done(&self) -> bool {
        self.handshake_done
    }

    /// Decode the frame at the front of `buf`.
    ///
    /// `Ok(Some((frame, used)))`: a whole frame; drop `used` bytes from the front.
    /// `Ok(None)`: the frame is incomplete; read more and call again with the same bytes.
    /// `Err(_)`: the stream is corrupt; close it.
    pub fn decode<'a>(
        &mut self,
        buf: &'a [u8],
    ) -> Result<Option<(NodeFrame<'a>, usize)>, NodeFrameError> {
        let Some(len_bytes) = buf.first_chunk::<4>() else {
            return Ok(None);
        };
        let len = u32::from_le_bytes(*len_bytes);
        let decoded = if self.handshake_done {
            self.decode_call(buf, len)?
        } else {
            self.decode_handshake(buf, len)?
        };
        if let Some((_, used)) = decoded {
            self.stream_offset = self.stream_offset.saturating_add(used as u64);
        }
        Ok(decoded)
    }

    fn decode_handshake<'a>(
        &mut self,
        buf: &'a [u8],
        len: u32,
    ) -> Result<Option<(NodeFrame<'a>, usize)>, NodeFrameError> {
        if len != HANDSHAKE_FRAME_LEN {
            return Err(HandshakeError::Length { len }.into());
        }
        let total = 4 + HANDSHAKE_FRAME_LEN as usize;
        let Some(message) = buf.get(4..total) else {
            return Ok(None);
        };
        let id = decode_handshake(message)?;
        self.handshake_done = true;
        Ok(Some((NodeFrame::Handshake(id), total)))
    }

    fn decode_call<'a>(
        &mut self,
        buf: &'a [u8],
        len: u32,
    ) -> Result<Option<(NodeFrame<'a>, usize)>, NodeFrameError> {
        let offset = self.stream_offset;
        if len < MIN_CALL_LEN {
            return Err(NodeFrameError::TooShort { offset, len });
        }
        if len > self.max_frame {
            return Err(NodeFrameError::TooLarge {
                offset,
                len,
                max: self.max_frame,
            });
        }
        let Some(head) = buf.get(..NODE_FRAME_HEADER) else {
            return Ok(None);
        };
        let word =
            |at: usize| u32::from_le_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]);
        let (req_id, flag) = (word(4), word(8));
        let flag = Flag::from_u32(flag).ok_or(NodeFrameError::UnknownFlag { offset, flag })?;
        // len <= max_frame <= u32::MAX: 4 + len fits a usize on every target we build.
        let total = (len as usize)
            .checked_add(4)
            .ok_or(NodeFrameError::TooLarge {
                offset,
                len,
                max: self.max_frame,
            })?;
        let Some(envelope) = buf.get(NODE_FRAME_HEADER..total) else {
            return Ok(None);
        };
        Ok(Some((
            NodeFrame::Call(Correlated {
                req_id,
                flag,
                envelope,
            }),
            total,
        )))
    }
}

impl FrameDecode for NodeFrameDecoder {
    type Frame<'a> = NodeFrame<'a>;
    type Error = NodeFrameError;

    fn decode<'a>(
        &mut self,
        buf: &'a [u8],
    ) -> Result<Option<(NodeFrame<'a>, usize)>, NodeFrameError> {
        NodeFrameDecoder::decode(self, buf)
    }
}

/// The NodeID in a handshake message (the frame body, 80 bytes).
pub fn decode_handshake(message: &[u8]) -> Result<NodeId, HandshakeError> {
    let msg = Message::parse(message)?;
    let (root, size) = (msg.root_offset(), msg.size());
    let object = usize::try_from(root)
        .ok()
        .filter(|&at| {
            at >= HEADER_SIZE
                && at
                    .checked_add(HANDSHAKE_OBJECT)
                    .is_some_and(|end| end <= size)
        })
        .ok_or(HandshakeError::Root { root, size })?;
    let n = msg.root().u32(MAX_NODE_ID);
    if n == 0 || n as usize > MAX_NODE_ID {
        return Err(HandshakeError::IdLength { n });
    }
    let id = &msg.as_bytes()[object..object + n as usize];
    let id = core::str::from_utf8(id).map_err(|_| HandshakeError::NotUtf8)?;
    NodeId::new(id).map_err(|_| HandshakeError::IdLength { n })
}

/// Append the handshake frame announcing `id` to `out`: the bytes the TypeScript and Go
/// peers write (version 2, flags 0, root at 16, size 80).
pub fn encode_handshake(out: &mut Vec<u8>, id: &NodeId) {
    let mut frame = [0u8; 4 + HANDSHAKE_FRAME_LEN as usize];
    Header {
        version: VERSION2,
        flags: 0,
        root: HEADER_SIZE as u32,
        size: HANDSHAKE_FRAME_LEN,
    }
    .write(&mut frame[4..]);
    let mut put = |at: usize, bytes: &[u8]| frame[at..at + bytes.len()].copy_from_slice(bytes);
    put(0, &HANDSHAKE_FRAME_LEN.to_le_bytes());
    let object = 4 + HEADER_SIZE;
    put(object, id.as_str().as_bytes());
    put(object + MAX_NODE_ID, &u32::from(id.len).to_le_bytes());
    out.extend_from_slice(&frame);
}

/// Append the frame header `[len][reqID][flag]` for an envelope of `envelope_len`
/// bytes to `out`.
pub fn put_node_header(
    out: &mut Vec<u8>,
    req_id: u32,
    flag: Flag,
    envelope_len: usize,
) -> Result<(), NodeFrameError> {
    let len = u32::try_from(envelope_len)
        .ok()
        .and_then(|n| n.checked_add(MIN_CALL_LEN))
        .ok_or(NodeFrameError::EnvelopeTooLarge { len: envelope_len })?;
    let mut head = [0u8; NODE_FRAME_HEADER];
    head[..4].copy_from_slice(&len.to_le_bytes());
    head[4..8].copy_from_slice(&req_id.to_le_bytes());
    head[8..].copy_from_slice(&(flag as u32).to_le_bytes());
    out.extend_from_slice(&head);
    Ok(())
}

/// Append one correlated frame carrying `envelope` to `out`.
pub fn encode_node_frame(
    out: &mut Vec<u8>,
    req_id: u32,
    flag: Flag,
    envelope: &[u8],
) -> Result<(), NodeFrameError> {
    out.reserve(NODE_FRAME_HEADER + envelope.len());
    put_node_header(out, req_id, flag, envelope.len())?;
    out.extend_from_slice(envelope);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the TypeScript runtime 1.6.0 sends for `nodeID = "zap-ts-client"`
    /// (`encodeNodeIDHandshake`, framed by `writeFrame`).
    const TS_HANDSHAKE: &str = concat!(
        "500000005a4150000200000010000000500000007a61702d74732d63",
        "6c69656e740000000000000000000000000000000000000000000000",
        "0000000000000000000000000000000000000000000000000d000000",
    );

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn handshake_bytes_match_the_typescript_peer() {
        let ts = unhex(TS_HANDSHAKE);
        let mut ours = Vec::new();
        encode_handshake(&mut ours, &NodeId::new("zap-ts-client").unwrap());
        assert_eq!(ours, ts);
        let mut dec = NodeFrameDecoder::default();
        let (frame, used) = dec.decode(&ts).unwrap().unwrap();
        assert_eq!(
            (frame, used),
            (
                NodeFrame::Handshake(NodeId::new("zap-ts-client").unwrap()),
                84
            )
        );
    }

    #[test]
    fn every_split_waits_then_decodes() {
        let mut stream = Vec::new();
        encode_handshake(&mut stream, &NodeId::new("n").unwrap());
        encode_node_frame(&mut stream, 1, Flag::Request, b"abc").unwrap();
        encode_node_frame(&mut stream, 2, Flag::Response, b"").unwrap();
        let mut dec = NodeFrameDecoder::default();
        let mut at = 0;
        let mut got = Vec::new();
        while at < stream.len() {
            let mut end = at;
            let (frame, used) = loop {
                if let Some(done) = dec.decode(&stream[at..end]).unwrap() {
                    break done;
                }
                end += 1;
                assert!(end <= stream.len(), "a whole stream ends in a frame");
            };
            assert_eq!(
                at + used,
                end,
                "a frame is decoded as soon as its last byte is there"
            );
            got.push(format!("{frame:?}"));
            at = end;
        }
        assert_eq!(got.len(), 3);
        assert!(got[1].contains("req_id: 1") && got[2].contains("Response"));
    }

    #[test]
    fn refusals() {
        let mut huge = Vec::from(u32::MAX.to_le_bytes());
        huge.push(b'Z');
        assert_eq!(
            NodeFrameDecoder::default().decode(&huge),
            Err(HandshakeError::Length { len: u32::MAX }.into())
        );
        let mut after = NodeFrameDecoder::after_handshake(100);
        assert_eq!(
            after.decode(&7u32.to_le_bytes()),
            Err(NodeFrameError::TooShort { offset: 0, len: 7 })
        );
        assert_eq!(
            after.decode(&101u32.to_le_bytes()),
            Err(NodeFrameError::TooLarge {
                offset: 0,
                len: 101,
                max: 100
            })
        );
        let mut bad_flag = Vec::new();
        encode_node_frame(&mut bad_flag, 1, Flag::Request, b"x").unwrap();
        bad_flag[8] = 3;
        // Refused as soon as the flag is there, before the envelope.
        assert_eq!(
            after.decode(&bad_flag[..12]),
            Err(NodeFrameError::UnknownFlag { offset: 0, flag: 3 })
        );
    }

    #[test]
    fn bad_handshakes() {
        let good = unhex(TS_HANDSHAKE);
        let cases: [(usize, &[u8], HandshakeError); 4] = [
            (
                4,
                b"ZAQ\0",
                HandshakeError::Message(ParseError::BadMagic { found: *b"ZAQ\0" }),
            ),
            (
                4 + 16 + 60,
                &[0, 0, 0, 0],
                HandshakeError::IdLength { n: 0 },
            ),
            (
                4 + 16 + 60,
                &[61, 0, 0, 0],
                HandshakeError::IdLength { n: 61 },
            ),
            (4 + 16, &[0xff], HandshakeError::NotUtf8),
        ];
        for (at, bytes, want) in cases {
            let mut bad = good.clone();
            bad[at..at + bytes.len()].copy_from_slice(bytes);
            assert_eq!(NodeFrameDecoder::default().decode(&bad), Err(want.into()));
        }
        let mut root = good.clone();
        root[4 + 8] = 24; // root at 24: the object would run past the 80 bytes
        assert_eq!(
            NodeFrameDecoder::default().decode(&root),
            Err(HandshakeError::Root { root: 24, size: 80 }.into())
        );
    }

    #[test]
    fn node_ids() {
        assert_eq!(NodeId::new(""), Err(NodeIdError::Empty));
        assert_eq!(
            NodeId::new(&"x".repeat(61)),
            Err(NodeIdError::TooLong { len: 61 })
        );
        assert_eq!(NodeId::new(&"x".repeat(60)).unwrap().as_str().len(), 60);
        let fallback = NodeId::new("zap").unwrap();
        assert_eq!(NodeId::truncated("", fallback), fallback);
        // 30 two-byte characters and one more: cut on the boundary at 60 bytes.
        let long = "é".repeat(31);
        assert_eq!(NodeId::truncated(&long, fallback).as_str(), "é".repeat(30));
        let odd = format!("a{}", "é".repeat(30));
        assert_eq!(NodeId::truncated(&odd, fallback).as_str().len(), 59);
    }
}

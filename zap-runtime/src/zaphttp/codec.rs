//! The zaphttp frame codec: the bytes of one frame, without any I/O.
//!
//! A frame on the connection is a big-endian `u32` length, then one ZAP message: the
//! 16-byte header (`"ZAP\0"`, version, flags with the frame type in the high byte,
//! root offset, size), then the root object. A request, a response and a streamed
//! response's head are a 48-byte object of six 8-byte slots; a data frame and an end
//! frame are an 8-byte object of one slot. A `text`/`bytes` slot is
//! `{u32 offset from the slot, u32 length}`, `{0, 0}` when empty; the bytes follow the
//! object in field order. A header block is `u32 count`, then per pair `u32 len, name,
//! u32 len, value`; no pairs is an empty slot, not a count of 0.
//!
//! The encoder writes exactly what the Go implementation (`github.com/zap-proto/http`)
//! writes for the same message; the decoder is stricter than Go's, which reads a slot
//! out of bounds as empty: here every slot and every header block is checked once, when
//! the frame is parsed, and a frame that lies is refused with the reason.

use std::fmt;

/// Length of the ZAP message header.
pub const HEADER_LEN: usize = 16;
/// Length of the request, response and response-head objects.
pub const OBJECT_LEN: usize = 48;
/// Length of the data and end objects.
pub const CHUNK_LEN: usize = 8;
/// The largest frame the Go implementation reads or writes, and the default bound here.
pub const MAX_FRAME: usize = 64 << 20;
/// The version this side writes (Go writes 1 and reads 1 or 2).
pub const VERSION: u16 = 1;

const MAGIC: &[u8; 4] = b"ZAP\0";

/// The type of a frame, from the high byte of the header's flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum FrameKind {
    /// A request: method, target, protocol, headers, body, trailers.
    Request = 1,
    /// A whole response: status, reason, protocol, headers, body, trailers.
    Response = 2,
    /// The head of a streamed response (a response with no body); data frames and an
    /// end frame follow.
    ResponseHead = 3,
    /// One chunk of a streamed response's body.
    Data = 4,
    /// The end of a streamed response, with its trailers.
    End = 5,
}

impl FrameKind {
    fn from_byte(b: u8) -> Option<Self> {
        Some(match b {
            1 => FrameKind::Request,
            2 => FrameKind::Response,
            3 => FrameKind::ResponseHead,
            4 => FrameKind::Data,
            5 => FrameKind::End,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            FrameKind::Request => "request",
            FrameKind::Response => "response",
            FrameKind::ResponseHead => "response head",
            FrameKind::Data => "data",
            FrameKind::End => "end",
        }
    }
}

impl fmt::Display for FrameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a frame was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrameError {
    /// Shorter than the 16-byte header.
    #[error("a frame of {0} bytes is shorter than the 16-byte ZAP header")]
    Short(usize),
    /// Not `"ZAP\0"`.
    #[error("bad magic {0:02x?}: not a ZAP message")]
    Magic([u8; 4]),
    /// A version other than 1 or 2.
    #[error("ZAP version {0}: zaphttp reads versions 1 and 2")]
    Version(u16),
    /// A frame type other than 1 to 5.
    #[error("unknown frame type {0} (1 request, 2 response, 3 response head, 4 data, 5 end)")]
    Kind(u8),
    /// The low byte of the flags is reserved.
    #[error("header flags {0:#06x}: the low byte is reserved and must be 0")]
    Flags(u16),
    /// The header's size is not the frame's length.
    #[error("the header says the message is {said} bytes, the frame holds {holds}")]
    Size {
        /// The size in the header.
        said: u32,
        /// The frame's length.
        holds: usize,
    },
    /// The root object does not fit the message.
    #[error("the root object at offset {root} ({len} bytes) does not fit the {size}-byte message")]
    Root {
        /// The root offset.
        root: u32,
        /// The object's length for this frame type.
        len: usize,
        /// The message's size.
        size: usize,
    },
    /// A slot points outside the message, or into its header.
    #[error(
        "field `{field}` points at bytes {start}..{end}, outside the message's bytes 16..{size}"
    )]
    Slot {
        /// The field.
        field: &'static str,
        /// Where its bytes would start.
        start: u64,
        /// Where they would end.
        end: u64,
        /// The message's size.
        size: usize,
    },
    /// A header block that does not hold what its count says.
    #[error("the {field} block: {why}")]
    Pairs {
        /// `headers` or `trailer`.
        field: &'static str,
        /// What is wrong.
        why: String,
    },
    /// A frame of another type than the one the exchange expects here.
    #[error("expected a {want} frame, got a {got} frame")]
    Unexpected {
        /// What the exchange expects.
        want: &'static str,
        /// What came.
        got: FrameKind,
    },
}

/// The name/value pairs of a header or trailer block, checked when the frame was
/// parsed: iterating cannot fail.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct Pairs<'a> {
    raw: &'a [u8],
    count: u32,
}

impl<'a> Pairs<'a> {
    fn parse(field: &'static str, raw: &'a [u8]) -> Result<Self, FrameError> {
        if raw.is_empty() {
            return Ok(Pairs::default());
        }
        let bad = |why: String| FrameError::Pairs { field, why };
        let Some(count) = read_u32(raw, 0) else {
            return Err(bad(format!("{} bytes, too short for its count", raw.len())));
        };
        // Each pair takes at least 8 bytes: a count the block cannot hold is refused
        // before anything is walked.
        if u64::from(count) * 8 > (raw.len() - 4) as u64 {
            return Err(bad(format!(
                "a count of {count} pairs in {} bytes (a pair takes at least 8)",
                raw.len()
            )));
        }
        let mut at = 4usize;
        for i in 0..count {
            for what in ["name", "value"] {
                let Some(len) = read_u32(raw, at) else {
                    return Err(bad(format!("pair {i} ends before its {what}'s length")));
                };
                let end = (at + 4) as u64 + u64::from(len);
                if end > raw.len() as u64 {
                    return Err(bad(format!(
                        "pair {i}'s {what} of {len} bytes runs past the block's {} bytes",
                        raw.len()
                    )));
                }
                at = end as usize;
            }
        }
        if at != raw.len() {
            return Err(bad(format!(
                "{} bytes after the last of its {count} pairs",
                raw.len() - at
            )));
        }
        Ok(Pairs { raw, count })
    }

    /// How many pairs.
    pub fn len(&self) -> usize {
        self.count as usize
    }

    /// No pairs.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The pairs in the order they were sent (a repeated name is a repeated pair).
    pub fn iter(&self) -> PairsIter<'a> {
        PairsIter {
            raw: self.raw,
            at: 4,
            left: self.count,
        }
    }
}

impl fmt::Debug for Pairs<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.iter().map(|(k, v)| {
                (
                    String::from_utf8_lossy(k).into_owned(),
                    String::from_utf8_lossy(v).into_owned(),
                )
            }))
            .finish()
    }
}

impl<'a> IntoIterator for Pairs<'a> {
    type Item = (&'a [u8], &'a [u8]);
    type IntoIter = PairsIter<'a>;
    fn into_iter(self) -> PairsIter<'a> {
        self.iter()
    }
}

/// The iterator of [`Pairs`].
#[derive(Clone, Debug)]
pub struct PairsIter<'a> {
    raw: &'a [u8],
    at: usize,
    left: u32,
}

impl<'a> Iterator for PairsIter<'a> {
    type Item = (&'a [u8], &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let mut field = || {
            let len = read_u32(self.raw, self.at)? as usize;
            let start = self.at + 4;
            self.at = start + len;
            self.raw.get(start..start + len)
        };
        Some((field()?, field()?))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

/// A request frame's fields, borrowed from the frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestParts<'a> {
    /// The method; empty means `GET`.
    pub method: &'a [u8],
    /// The request target (path and query, as on an HTTP/1.1 request line).
    pub target: &'a [u8],
    /// The protocol the client speaks (`HTTP/1.1` from Go's fasthttp).
    pub proto: &'a [u8],
    /// The headers, `Host` among them.
    pub headers: Pairs<'a>,
    /// The whole body.
    pub body: &'a [u8],
    /// The trailers.
    pub trailer: Pairs<'a>,
}

/// A response or response-head frame's fields, borrowed from the frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResponseParts<'a> {
    /// The status code.
    pub status: u16,
    /// The reason phrase.
    pub reason: &'a [u8],
    /// The protocol.
    pub proto: &'a [u8],
    /// The headers.
    pub headers: Pairs<'a>,
    /// The whole body (always empty in a response head).
    pub body: &'a [u8],
    /// The trailers (always empty in a response head).
    pub trailer: Pairs<'a>,
}

/// One parsed frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Frame<'a> {
    /// A request.
    Request(RequestParts<'a>),
    /// A whole response.
    Response(ResponseParts<'a>),
    /// The head of a streamed response.
    ResponseHead(ResponseParts<'a>),
    /// One chunk of a streamed body.
    Data(&'a [u8]),
    /// The end of a streamed body, with its trailers.
    End(Pairs<'a>),
}

impl<'a> Frame<'a> {
    /// Parse and check one frame (the message, without its length prefix).
    pub fn parse(frame: &'a [u8]) -> Result<Self, FrameError> {
        let kind = kind_of(frame)?;
        let size = frame.len();
        let said = read_u32(frame, 12).unwrap_or(0);
        if said as usize != size {
            return Err(FrameError::Size { said, holds: size });
        }
        let root = read_u32(frame, 8).unwrap_or(0);
        let len = match kind {
            FrameKind::Data | FrameKind::End => CHUNK_LEN,
            _ => OBJECT_LEN,
        };
        if (root as usize) < HEADER_LEN || root as u64 + len as u64 > size as u64 {
            return Err(FrameError::Root { root, len, size });
        }
        let object = Object {
            frame,
            root: root as usize,
        };
        Ok(match kind {
            FrameKind::Request => Frame::Request(RequestParts {
                method: object.var("method", 0)?,
                target: object.var("target", 8)?,
                proto: object.var("proto", 16)?,
                headers: Pairs::parse("headers", object.var("headers", 24)?)?,
                body: object.var("body", 32)?,
                trailer: Pairs::parse("trailer", object.var("trailer", 40)?)?,
            }),
            FrameKind::Response | FrameKind::ResponseHead => {
                let parts = ResponseParts {
                    status: u16::from_le_bytes([frame[object.root], frame[object.root + 1]]),
                    reason: object.var("reason", 8)?,
                    proto: object.var("proto", 16)?,
                    headers: Pairs::parse("headers", object.var("headers", 24)?)?,
                    body: object.var("body", 32)?,
                    trailer: Pairs::parse("trailer", object.var("trailer", 40)?)?,
                };
                match kind {
                    FrameKind::Response => Frame::Response(parts),
                    _ => Frame::ResponseHead(parts),
                }
            }
            FrameKind::Data => Frame::Data(object.var("data", 0)?),
            FrameKind::End => Frame::End(Pairs::parse("trailer", object.var("trailer", 0)?)?),
        })
    }

    /// The frame's type.
    pub fn kind(&self) -> FrameKind {
        match self {
            Frame::Request(_) => FrameKind::Request,
            Frame::Response(_) => FrameKind::Response,
            Frame::ResponseHead(_) => FrameKind::ResponseHead,
            Frame::Data(_) => FrameKind::Data,
            Frame::End(_) => FrameKind::End,
        }
    }
}

/// A frame's type from its header, checking magic, version and flags only.
pub fn kind_of(frame: &[u8]) -> Result<FrameKind, FrameError> {
    if frame.len() < HEADER_LEN {
        return Err(FrameError::Short(frame.len()));
    }
    let magic = [frame[0], frame[1], frame[2], frame[3]];
    if &magic != MAGIC {
        return Err(FrameError::Magic(magic));
    }
    let version = u16::from_le_bytes([frame[4], frame[5]]);
    if version != 1 && version != 2 {
        return Err(FrameError::Version(version));
    }
    let flags = u16::from_le_bytes([frame[6], frame[7]]);
    if flags & 0xff != 0 {
        return Err(FrameError::Flags(flags));
    }
    FrameKind::from_byte((flags >> 8) as u8).ok_or(FrameError::Kind((flags >> 8) as u8))
}

struct Object<'a> {
    frame: &'a [u8],
    root: usize,
}

impl<'a> Object<'a> {
    fn var(&self, field: &'static str, offset: usize) -> Result<&'a [u8], FrameError> {
        let slot = self.root + offset;
        let rel = read_u32(self.frame, slot).unwrap_or(0);
        let len = read_u32(self.frame, slot + 4).unwrap_or(0);
        if rel == 0 {
            // Go writes {0, 0} for an empty field and reads any {0, n} as empty too.
            return Ok(&[]);
        }
        let start = slot as u64 + u64::from(rel);
        let end = start + u64::from(len);
        let size = self.frame.len();
        if start < HEADER_LEN as u64 || end > size as u64 {
            return Err(FrameError::Slot {
                field,
                start,
                end,
                size,
            });
        }
        Ok(&self.frame[start as usize..end as usize])
    }
}

fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Writes frames into a buffer, each with its big-endian length prefix, as they go on
/// the connection: `begin`, the fields in order, `finish`.
///
/// Fields must be written in their declaration order (method, target, proto, headers,
/// body, trailer; status first in a response), which is the order Go appends them in;
/// an empty field leaves its slot `{0, 0}`.
#[derive(Debug)]
pub struct Encoder<'b> {
    dst: &'b mut Vec<u8>,
    /// Where the length prefix is.
    start: usize,
    /// Where the root object is.
    object: usize,
}

impl<'b> Encoder<'b> {
    /// Start a frame of `kind` at the end of `dst`.
    pub fn begin(dst: &'b mut Vec<u8>, kind: FrameKind) -> Self {
        let start = dst.len();
        dst.extend_from_slice(&[0; 4]);
        dst.extend_from_slice(MAGIC);
        dst.extend_from_slice(&VERSION.to_le_bytes());
        dst.extend_from_slice(&((kind as u16) << 8).to_le_bytes());
        dst.extend_from_slice(&(HEADER_LEN as u32).to_le_bytes());
        dst.extend_from_slice(&[0; 4]);
        let object = dst.len();
        let len = match kind {
            FrameKind::Data | FrameKind::End => CHUNK_LEN,
            _ => OBJECT_LEN,
        };
        dst.resize(object + len, 0);
        Encoder { dst, start, object }
    }

    /// Write the `u16` status of a response (at offset 0).
    pub fn status(&mut self, status: u16) -> &mut Self {
        self.dst[self.object..self.object + 2].copy_from_slice(&status.to_le_bytes());
        self
    }

    /// Append `bytes` as the field whose slot is at `offset` in the object.
    pub fn bytes(&mut self, offset: usize, bytes: &[u8]) -> &mut Self {
        let at = self.dst.len();
        self.dst.extend_from_slice(bytes);
        self.patch(offset, at)
    }

    /// Append a header block of `pairs` as the field at `offset`; with `canonical`, each
    /// name in the canonical case the Go side writes (`Content-Type`), else as given.
    pub fn pairs<'p, I>(&mut self, offset: usize, pairs: I, canonical: bool) -> &mut Self
    where
        I: IntoIterator<Item = (&'p [u8], &'p [u8])>,
    {
        let at = self.dst.len();
        self.dst.extend_from_slice(&[0; 4]);
        let mut count = 0u32;
        for (name, value) in pairs {
            count += 1;
            self.dst
                .extend_from_slice(&(name.len() as u32).to_le_bytes());
            if canonical {
                push_canonical(self.dst, name);
            } else {
                self.dst.extend_from_slice(name);
            }
            self.dst
                .extend_from_slice(&(value.len() as u32).to_le_bytes());
            self.dst.extend_from_slice(value);
        }
        if count == 0 {
            self.dst.truncate(at);
            return self;
        }
        self.dst[at..at + 4].copy_from_slice(&count.to_le_bytes());
        self.patch(offset, at)
    }

    fn patch(&mut self, offset: usize, at: usize) -> &mut Self {
        let len = self.dst.len() - at;
        if len == 0 {
            return self;
        }
        let slot = self.object + offset;
        let rel = (at - slot) as u32;
        self.dst[slot..slot + 4].copy_from_slice(&rel.to_le_bytes());
        self.dst[slot + 4..slot + 8].copy_from_slice(&(len as u32).to_le_bytes());
        self
    }

    /// Finish the frame: its size in the header and its length prefix. Returns the
    /// message's length (without the prefix).
    pub fn finish(self) -> usize {
        let message = self.dst.len() - self.start - 4;
        let size = (message as u32).to_le_bytes();
        self.dst[self.start + 4 + 12..self.start + 4 + 16].copy_from_slice(&size);
        self.dst[self.start..self.start + 4].copy_from_slice(&(message as u32).to_be_bytes());
        message
    }
}

/// Field offsets of the 48-byte request object.
pub mod request {
    /// `method text`.
    pub const METHOD: usize = 0;
    /// `target text`.
    pub const TARGET: usize = 8;
    /// `proto text`.
    pub const PROTO: usize = 16;
    /// `headers bytes` (a header block).
    pub const HEADERS: usize = 24;
    /// `body bytes`.
    pub const BODY: usize = 32;
    /// `trailer bytes` (a header block).
    pub const TRAILER: usize = 40;
}

/// Field offsets of the 48-byte response and response-head object.
pub mod response {
    /// `status u16`.
    pub const STATUS: usize = 0;
    /// `reason text`.
    pub const REASON: usize = 8;
    /// `proto text`.
    pub const PROTO: usize = 16;
    /// `headers bytes` (a header block).
    pub const HEADERS: usize = 24;
    /// `body bytes`.
    pub const BODY: usize = 32;
    /// `trailer bytes` (a header block).
    pub const TRAILER: usize = 40;
}

/// Append a header name in the canonical case Go's fasthttp writes (`content-type` as
/// `Content-Type`): upper case at the start and after each `-`, lower case elsewhere.
/// A name with a byte that is not a token character is written as it is, as fasthttp
/// leaves it.
fn push_canonical(dst: &mut Vec<u8>, name: &[u8]) {
    if name
        .iter()
        .any(|b| b.is_ascii_whitespace() || *b == b':' || !b.is_ascii())
    {
        dst.extend_from_slice(name);
        return;
    }
    let mut upper = true;
    for &b in name {
        dst.push(if upper {
            b.to_ascii_uppercase()
        } else {
            b.to_ascii_lowercase()
        });
        upper = b == b'-';
    }
}

/// The reason phrase Go's fasthttp writes for `status` (the IANA name, or
/// `Unknown Status Code`).
pub fn reason_phrase(status: u16) -> &'static str {
    http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("Unknown Status Code")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: &[u8], target: &[u8], headers: &[(&[u8], &[u8])], body: &[u8]) -> Vec<u8> {
        let mut dst = Vec::new();
        let mut e = Encoder::begin(&mut dst, FrameKind::Request);
        e.bytes(request::METHOD, method)
            .bytes(request::TARGET, target)
            .bytes(request::PROTO, b"HTTP/1.1")
            .pairs(request::HEADERS, headers.iter().copied(), true)
            .bytes(request::BODY, body)
            .pairs(request::TRAILER, [], true);
        e.finish();
        dst
    }

    #[test]
    fn a_request_reads_back_field_for_field() {
        let framed = request(
            b"POST",
            b"/echo?a=1",
            &[(b"x-a", b"1"), (b"X-A", b"2")],
            b"hi",
        );
        let len = u32::from_be_bytes(framed[..4].try_into().unwrap()) as usize;
        assert_eq!(len, framed.len() - 4);
        let Frame::Request(r) = Frame::parse(&framed[4..]).unwrap() else {
            panic!("not a request");
        };
        assert_eq!(r.method, b"POST");
        assert_eq!(r.target, b"/echo?a=1");
        assert_eq!(r.proto, b"HTTP/1.1");
        let pairs: Vec<_> = r.headers.iter().collect();
        assert_eq!(pairs, [(&b"X-A"[..], &b"1"[..]), (b"X-A", b"2")]);
        assert_eq!(r.body, b"hi");
        assert!(r.trailer.is_empty());
    }

    #[test]
    fn an_empty_field_is_an_empty_slot() {
        let framed = request(b"GET", b"/", &[], b"");
        let message = &framed[4..];
        assert_eq!(message.len(), HEADER_LEN + OBJECT_LEN + 3 + 1 + 8);
        assert_eq!(&message[16 + 24..16 + 48], &[0; 24]);
    }

    #[test]
    fn canonical_names_are_what_fasthttp_writes() {
        let mut out = Vec::new();
        push_canonical(&mut out, b"x-forwarded-FOR");
        assert_eq!(out, b"X-Forwarded-For");
    }

    fn refuse(message: &[u8]) -> FrameError {
        Frame::parse(message).unwrap_err()
    }

    #[test]
    fn lies_are_refused_with_the_reason() {
        let framed = request(b"POST", b"/", &[(b"a", b"b")], b"body");
        let good = framed[4..].to_vec();

        assert_eq!(refuse(&good[..10]), FrameError::Short(10));
        let mut m = good.clone();
        m[0] = b'X';
        assert!(matches!(refuse(&m), FrameError::Magic(_)));
        let mut m = good.clone();
        m[4] = 3;
        assert_eq!(refuse(&m), FrameError::Version(3));
        let mut m = good.clone();
        m[6] = 1;
        assert_eq!(refuse(&m), FrameError::Flags(0x0101));
        let mut m = good.clone();
        m[7] = 9;
        assert_eq!(refuse(&m), FrameError::Kind(9));
        let mut m = good.clone();
        m.push(0);
        assert!(matches!(refuse(&m), FrameError::Size { .. }));
        let mut m = good.clone();
        m[8..12].copy_from_slice(&(good.len() as u32 - 8).to_le_bytes());
        assert!(matches!(refuse(&m), FrameError::Root { .. }));
        // The body's length runs past the end.
        let mut m = good.clone();
        m[16 + 36..16 + 40].copy_from_slice(&1000u32.to_le_bytes());
        assert!(matches!(refuse(&m), FrameError::Slot { field: "body", .. }));
        // A header count the block cannot hold.
        let Frame::Request(r) = Frame::parse(&good).unwrap() else {
            unreachable!()
        };
        let block = r.headers.raw.as_ptr() as usize - good.as_ptr() as usize;
        let mut m = good.clone();
        m[block..block + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            refuse(&m),
            FrameError::Pairs {
                field: "headers",
                ..
            }
        ));
        // A count of 2 with one pair.
        let mut m = good.clone();
        m[block..block + 4].copy_from_slice(&2u32.to_le_bytes());
        assert!(matches!(refuse(&m), FrameError::Pairs { .. }));
    }

    #[test]
    fn data_and_end_frames() {
        let mut dst = Vec::new();
        let mut e = Encoder::begin(&mut dst, FrameKind::Data);
        e.bytes(0, b"chunk 0\n");
        e.finish();
        assert_eq!(Frame::parse(&dst[4..]).unwrap(), Frame::Data(b"chunk 0\n"));
        let mut dst = Vec::new();
        Encoder::begin(&mut dst, FrameKind::End).finish();
        assert_eq!(dst.len(), 4 + HEADER_LEN + CHUNK_LEN);
        assert!(matches!(Frame::parse(&dst[4..]).unwrap(), Frame::End(p) if p.is_empty()));
    }
}

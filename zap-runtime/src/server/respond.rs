//! Writing response frames straight into the connection's write buffer, and salvaging
//! the PromiseID of a request that cannot be fully parsed.

use super::answers::{Answers, MAX_FRAME_HEAD};
use crate::frame::node::NODE_FRAME_HEADER;
use crate::frame::FRAME_HEADER;
use crate::rpc::{request, Status, RESPONSE_HEAD};
use crate::Message;

/// Where a non-empty body lands: right after the envelope's fixed section.
const BODY_AT: usize = RESPONSE_HEAD;

/// Append the answer frame — `[len][dir 2]` or `[len][reqID][flag 2]`, as `out` says,
/// then the Response envelope — to `out` and return the status written: `status`, or
/// 500 when `body` is too large for a frame (its `len` is a u32), with a text saying so
/// as the body instead.
///
/// The bytes are those of `Response { status, promise_id, body }.encode(..)` framed by
/// `encode_frame` or `encode_node_frame` (checked by a test), written without an
/// intermediate builder: one copy of the body, no allocation once `out` has grown.
pub(crate) fn put_response(
    out: &mut Answers,
    status: Status,
    promise_id: u32,
    body: &[u8],
) -> Status {
    if !put_head(out, status, promise_id, body.len(), 0) {
        return put_too_large(out, promise_id, body.len());
    }
    crate::copies::note(body.len());
    out.extend(body);
    status
}

/// As [`put_response`], the frame followed by `extension` after the envelope: the
/// metadata the answer carries back (`crate::context`).
pub(crate) fn put_response_with(
    out: &mut Answers,
    status: Status,
    promise_id: u32,
    body: &[u8],
    extension: &[u8],
) -> Status {
    if !put_head(out, status, promise_id, body.len(), extension.len()) {
        return put_too_large(out, promise_id, body.len());
    }
    out.extend(body);
    out.extend(extension);
    status
}

/// As [`put_response`] with a 200 and a large body that is not copied: the frame and
/// envelope headers go into the write buffer and `body` is written from its own memory
/// after them (a vectored write, see `Answers`).
pub(crate) fn put_response_shared(
    out: &mut Answers,
    promise_id: u32,
    body: bytes::Bytes,
    extension: &[u8],
) -> Status {
    if !put_head(out, Status::OK, promise_id, body.len(), extension.len()) {
        return put_too_large(out, promise_id, body.len());
    }
    out.push_tail(body);
    out.extend(extension);
    Status::OK
}

/// 500 with a text saying the body does not fit a frame (its `len` is a u32).
fn put_too_large(out: &mut Answers, promise_id: u32, len: usize) -> Status {
    let text = format!("response of {len} bytes does not fit a frame");
    // A short text always fits, so this recursion ends at once.
    put_response(out, Status::INTERNAL, promise_id, text.as_bytes())
}

/// Append everything of the answer frame before its body (`body_len` bytes, then
/// `extra` bytes after the envelope); false if it is too large for a frame (nothing
/// written).
fn put_head(
    out: &mut Answers,
    status: Status,
    promise_id: u32,
    body_len: usize,
    extra: usize,
) -> bool {
    let Some(sizes) = Sizes::of(body_len, out.head().overhead(), extra) else {
        return false;
    };
    // The frame header ends where the message begins, at MAX_FRAME_HEAD for either
    // framing: the message's fields are at constant offsets, and each framing appends a
    // slice of constant length (stores, no calls to memset or memcpy).
    let Some(envelope) = crate::rpc::response_head(status, promise_id, body_len) else {
        return false;
    };
    let mut head = [0u8; MAX_FRAME_HEAD + BODY_AT];
    let (frame_head, msg) = head.split_at_mut(MAX_FRAME_HEAD);
    let frame_head: &mut [u8; MAX_FRAME_HEAD] = frame_head.try_into().expect("its length");
    let framing = out.head().write(frame_head, sizes.frame_len);
    msg.copy_from_slice(&envelope);
    if framing == FRAME_HEADER {
        out.extend(&head[MAX_FRAME_HEAD - FRAME_HEADER..]);
    } else {
        out.extend(&head[MAX_FRAME_HEAD - NODE_FRAME_HEADER..]);
    }
    true
}

/// The frame's `len` of a response with a body of `body_len` bytes: the message, what
/// the framing puts before it (`overhead`) and what follows it (`extra`), checked to fit
/// its u32.
struct Sizes {
    frame_len: u32,
}

impl Sizes {
    fn of(body_len: usize, overhead: u32, extra: usize) -> Option<Sizes> {
        let message = u32::try_from(BODY_AT.checked_add(body_len)?).ok()?;
        Some(Sizes {
            frame_len: message
                .checked_add(overhead)?
                .checked_add(u32::try_from(extra).ok()?)?,
        })
    }
}

/// The PromiseID of a request envelope that `Request::parse` refused, if the message
/// header is sound and the PromiseID slot is inside it; else 0.
pub(crate) fn salvage_promise_id(envelope: &[u8]) -> u32 {
    Message::parse(envelope)
        .map(|m| m.root().u32(request::PROMISE_ID))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::node::{encode_node_frame, Flag};
    use crate::frame::{encode_frame, Direction};
    use crate::rpc::{Request, Response};
    use crate::{Builder, HEADER_SIZE};

    fn reference(status: Status, promise_id: u32, body: &[u8], req_id: Option<u32>) -> Vec<u8> {
        let mut b = Builder::new();
        let env = Response {
            status,
            promise_id,
            body,
        }
        .encode(&mut b)
        .unwrap();
        let mut out = Vec::new();
        match req_id {
            None => encode_frame(&mut out, Direction::Response, env).unwrap(),
            Some(req_id) => encode_node_frame(&mut out, req_id, Flag::Response, env).unwrap(),
        }
        out
    }

    #[test]
    fn same_bytes_as_builder_and_encoders() {
        for body in [&b""[..], b"x", b"not found", &[7u8; 300][..]] {
            for (status, id) in [(Status::OK, 1), (Status::NOT_FOUND, u32::MAX)] {
                for req_id in [None, Some(9), Some(u32::MAX)] {
                    let mut out = Answers::default();
                    out.extend(&[0xEE]); // appends after what is there
                    match req_id {
                        None => out.begin_rpc(),
                        Some(req_id) => out.begin_node(req_id).unwrap(),
                    }
                    assert_eq!(put_response(&mut out, status, id, body), status);
                    assert_eq!(
                        out.buffered()[1..],
                        reference(status, id, body, req_id)[..],
                        "body {body:?}, reqID {req_id:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_largest_body_fits_and_one_more_byte_does_not() {
        for overhead in [1, 8] {
            let max = u32::MAX as usize - overhead as usize - BODY_AT;
            let sizes = Sizes::of(max, overhead, 0).expect("fits");
            assert_eq!(sizes.frame_len, u32::MAX);
            assert!(Sizes::of(max + 1, overhead, 0).is_none());
            assert!(Sizes::of(usize::MAX, overhead, 0).is_none());
            // What follows the envelope counts too.
            assert!(Sizes::of(max - 10, overhead, 10).is_some());
            assert!(Sizes::of(max - 10, overhead, 11).is_none());
        }
    }

    #[test]
    fn salvages_promise_id_when_readable() {
        let mut b = Builder::new();
        let wire = Request {
            method: 1,
            promise_id: 42,
            target: 0,
            cap: b"",
            payload: b"",
        }
        .encode(&mut b)
        .unwrap()
        .to_vec();
        // Cut the fixed section short: Request::parse refuses, the id is still readable.
        let mut cut = wire[..HEADER_SIZE + 8].to_vec();
        let size = crate::wire::at::SIZE;
        cut[size..size + 4].copy_from_slice(&((HEADER_SIZE + 8) as u32).to_le_bytes());
        assert!(Request::parse(&cut).is_err());
        assert_eq!(salvage_promise_id(&cut), 42);
        assert_eq!(salvage_promise_id(b"garbage"), 0);
    }
}

//! The floor: the eth request and response read and written by hand at constant
//! offsets, byte for byte the messages `zap_fixed` makes (tested), with only the checks
//! a reader of untrusted input cannot skip, made once: the header (magic, version,
//! declared size within the buffer) and the root object's fixed section within the
//! declared size. Nobody would write a codec this way; it is the row generated code is
//! measured against.

use zap_runtime::{HEADER_SIZE, MAGIC, VERSION1, VERSION2};

use super::{Codec, Error};
use crate::values::{compute, Request, Response, Sink};

/// The request's fixed section: Id, Block, Account.
const REQUEST: usize = 36;
/// The response's fixed section: Id, Balance, Nonce, BlockHash.
const RESPONSE: usize = 56;

#[derive(Debug, Default)]
pub struct Floor {
    out: Vec<u8>,
}

/// The root object's `N` bytes, after the header checks.
#[inline]
fn root<const N: usize>(wire: &[u8]) -> Result<&[u8; N], Error> {
    let head: &[u8; HEADER_SIZE] = wire
        .first_chunk()
        .ok_or_else(|| Error(format!("{} bytes: no header", wire.len())))?;
    let word = |at: usize| u32::from_le_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]);
    let version = u16::from_le_bytes([head[4], head[5]]);
    if head[..4] != MAGIC || (version != VERSION1 && version != VERSION2) {
        return Err(Error("not a ZAP message".into()));
    }
    let (root, size) = (word(8) as usize, word(12) as usize);
    if size < HEADER_SIZE || size > wire.len() {
        return Err(Error(format!(
            "declared size {size} of {} bytes",
            wire.len()
        )));
    }
    wire[..size]
        .get(root..)
        .and_then(<[u8]>::first_chunk)
        .ok_or_else(|| Error(format!("root at {root} past the message")))
}

#[inline]
fn u64_at<const N: usize>(o: &[u8; N], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&o[at..at + 8]);
    u64::from_le_bytes(w)
}

/// A whole message of `M` bytes (header and fixed section) into `out`: one array, its
/// fields written by `fill` at constant offsets, one copy into the reused buffer.
#[inline]
fn write<const M: usize>(out: &mut Vec<u8>, fill: impl FnOnce(&mut [u8; M])) -> &[u8] {
    let mut m = [0u8; M];
    m[..4].copy_from_slice(&MAGIC);
    m[4..6].copy_from_slice(&VERSION1.to_le_bytes());
    m[8..12].copy_from_slice(&(HEADER_SIZE as u32).to_le_bytes());
    m[12..16].copy_from_slice(&(M as u32).to_le_bytes());
    fill(&mut m);
    out.clear();
    out.extend_from_slice(&m);
    out
}

/// The request message: header and fixed section.
const REQUEST_MESSAGE: usize = HEADER_SIZE + REQUEST;
/// The response message: header and fixed section.
const RESPONSE_MESSAGE: usize = HEADER_SIZE + RESPONSE;

#[inline(always)]
fn request_fields(m: &mut [u8; REQUEST_MESSAGE], v: &Request) {
    m[16..24].copy_from_slice(&v.id.to_le_bytes());
    m[24..32].copy_from_slice(&v.block.to_le_bytes());
    m[32..52].copy_from_slice(&v.account);
}

#[inline(always)]
fn response_fields(m: &mut [u8; RESPONSE_MESSAGE], v: &Response) {
    m[16..24].copy_from_slice(&v.id.to_le_bytes());
    m[24..32].copy_from_slice(&v.balance.to_le_bytes());
    m[32..40].copy_from_slice(&v.nonce.to_le_bytes());
    m[40..72].copy_from_slice(&v.block_hash);
}

fn read_request(o: &[u8; REQUEST]) -> Request {
    let mut account = [0u8; 20];
    account.copy_from_slice(&o[16..36]);
    Request {
        id: u64_at(o, 0),
        block: u64_at(o, 8),
        account,
    }
}

fn read_response(o: &[u8; RESPONSE]) -> Response {
    let mut block_hash = [0u8; 32];
    block_hash.copy_from_slice(&o[24..56]);
    Response {
        id: u64_at(o, 0),
        balance: u64_at(o, 8),
        nonce: u64_at(o, 16),
        block_hash,
    }
}

impl Codec for Floor {
    const NAME: &'static str = "floor";
    type RequestIn = Request;
    type ResponseIn = Response;

    fn prepare_request(v: &Request) -> Request {
        *v
    }
    fn prepare_response(v: &Response) -> Response {
        *v
    }

    #[inline]
    fn encode_request(&mut self, v: &Request) -> &[u8] {
        write::<REQUEST_MESSAGE>(&mut self.out, |m| request_fields(m, v))
    }

    #[inline]
    fn encode_response(&mut self, v: &Response) -> &[u8] {
        write::<RESPONSE_MESSAGE>(&mut self.out, |m| response_fields(m, v))
    }

    #[inline]
    fn decode_request(&mut self, wire: &[u8], sink: &mut Sink) -> Result<(), Error> {
        let o = root::<REQUEST>(wire)?;
        sink.request(u64_at(o, 0), u64_at(o, 8), &o[16..36]);
        Ok(())
    }

    #[inline]
    fn decode_response(&mut self, wire: &[u8], sink: &mut Sink) -> Result<(), Error> {
        let o = root::<RESPONSE>(wire)?;
        sink.response(u64_at(o, 0), u64_at(o, 8), u64_at(o, 16), &o[24..56]);
        Ok(())
    }

    #[inline]
    fn handle(&mut self, wire: &[u8]) -> Result<&[u8], Error> {
        let o = root::<REQUEST>(wire)?;
        let mut account = [0u8; 20];
        account.copy_from_slice(&o[16..36]);
        let v = compute(u64_at(o, 0), u64_at(o, 8), &account);
        Ok(write::<RESPONSE_MESSAGE>(&mut self.out, |m| {
            response_fields(m, &v)
        }))
    }

    fn request_values(&mut self, wire: &[u8]) -> Result<Request, Error> {
        root::<REQUEST>(wire).map(read_request)
    }

    fn response_values(&mut self, wire: &[u8]) -> Result<Response, Error> {
        root::<RESPONSE>(wire).map(read_response)
    }
}

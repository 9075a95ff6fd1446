//! ZAP, with the code zapc generates: the fixed layout of `schemas/eth.zap` and the Go
//! benchmark's layout with tails (`schemas/tails.zap`). Encoding reuses one builder, as
//! a server connection does.

use zap_runtime::{Builder, ZapStruct};

use super::{Codec, Error, LogsCodec};
use crate::eth::METHOD;
use crate::generated::{eth, logs, tails};
use crate::values::{compute, Log, Request, Response, Sink};

/// The eth messages are tens of bytes: far below the builder's limit, so encoding them
/// cannot fail.
const SMALL: &str = "an eth message is within the builder's limit";

/// `schemas/eth.zap`: every field at a fixed offset, byte arrays inline.
#[derive(Debug, Default)]
pub struct ZapFixed {
    out: Builder,
}

impl Codec for ZapFixed {
    const NAME: &'static str = "zap_fixed";
    type RequestIn = Request;
    type ResponseIn = Response;

    fn prepare_request(v: &Request) -> Request {
        *v
    }
    fn prepare_response(v: &Response) -> Response {
        *v
    }

    /// A typed value to bytes, as the JSON codecs serialize their typed structs and as
    /// generated dispatch encodes a handler's result: `ZapStruct::encode`, which for an
    /// all-inline struct writes one array at constant offsets.
    #[inline]
    fn encode_request(&mut self, v: &Request) -> &[u8] {
        let req = eth::BalanceRequest {
            id: v.id,
            block: v.block,
            account: v.account,
        };
        req.encode(&mut self.out).expect(SMALL)
    }

    #[inline]
    fn encode_response(&mut self, v: &Response) -> &[u8] {
        let resp = eth::BalanceResponse {
            id: v.id,
            balance: v.balance,
            nonce: v.nonce,
            block_hash: v.block_hash,
        };
        resp.encode(&mut self.out).expect(SMALL)
    }

    #[inline]
    fn decode_request(&mut self, wire: &[u8], sink: &mut Sink) -> Result<(), Error> {
        let r = eth::BalanceRequestReader::parse(wire).map_err(Error::new)?;
        sink.request(r.id(), r.block(), r.account());
        Ok(())
    }

    #[inline]
    fn decode_response(&mut self, wire: &[u8], sink: &mut Sink) -> Result<(), Error> {
        let r = eth::BalanceResponseReader::parse(wire).map_err(Error::new)?;
        sink.response(r.id(), r.balance(), r.nonce(), r.block_hash());
        Ok(())
    }

    /// What the generated `EthService` does: parse the reader, the handler returns the
    /// owned response, `ZapStruct::encode` writes it into the connection's builder.
    #[inline]
    fn handle(&mut self, wire: &[u8]) -> Result<&[u8], Error> {
        let req = eth::BalanceRequestReader::parse(wire).map_err(Error::new)?;
        let v = compute(req.id(), req.block(), req.account());
        let resp = eth::BalanceResponse {
            id: v.id,
            balance: v.balance,
            nonce: v.nonce,
            block_hash: v.block_hash,
        };
        resp.encode(&mut self.out).map_err(Error::new)
    }

    fn request_values(&mut self, wire: &[u8]) -> Result<Request, Error> {
        let r = eth::BalanceRequest::decode(wire).map_err(Error::new)?;
        Ok(Request {
            id: r.id,
            block: r.block,
            account: r.account,
        })
    }

    fn response_values(&mut self, wire: &[u8]) -> Result<Response, Error> {
        let r = eth::BalanceResponse::decode(wire).map_err(Error::new)?;
        Ok(Response {
            id: r.id,
            balance: r.balance,
            nonce: r.nonce,
            block_hash: r.block_hash,
        })
    }
}

/// The fixed-layout response written the way generated code could write an all-inline
/// struct: header and fields into a stack array at constant offsets, then one copy into
/// the reused buffer. Byte-identical to [`ZapFixed::encode_response`] (tested): the
/// floor the builder path is measured against, not a codec of its own.
#[inline]
pub fn encode_response_direct<'o>(out: &'o mut Vec<u8>, v: &Response) -> &'o [u8] {
    const SIZE: usize = zap_runtime::HEADER_SIZE + eth::BalanceResponse::SIZE;
    let mut m = [0u8; SIZE];
    m[..4].copy_from_slice(&zap_runtime::MAGIC);
    m[4..6].copy_from_slice(&zap_runtime::VERSION1.to_le_bytes());
    m[8..12].copy_from_slice(&(zap_runtime::HEADER_SIZE as u32).to_le_bytes());
    m[12..16].copy_from_slice(&(SIZE as u32).to_le_bytes());
    m[16..24].copy_from_slice(&v.id.to_le_bytes());
    m[24..32].copy_from_slice(&v.balance.to_le_bytes());
    m[32..40].copy_from_slice(&v.nonce.to_le_bytes());
    m[40..72].copy_from_slice(&v.block_hash);
    out.clear();
    out.extend_from_slice(&m);
    out
}

/// `schemas/tails.zap`: the method name and the byte strings as variable-length tails.
#[derive(Debug, Default)]
pub struct ZapTails {
    out: Builder,
}

fn account20(b: &[u8]) -> Result<&[u8; 20], Error> {
    b.try_into()
        .map_err(|_| Error(format!("account of {} bytes, not 20", b.len())))
}

impl Codec for ZapTails {
    const NAME: &'static str = "zap_tails";
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
        self.out.clear();
        let mut b = tails::BalanceRequestBuilder::new(&mut self.out);
        b.set_id(v.id)
            .set_block(v.block)
            .set_method(METHOD)
            .set_account(&v.account);
        b.finish_message().expect(SMALL)
    }

    #[inline]
    fn encode_response(&mut self, v: &Response) -> &[u8] {
        self.out.clear();
        let mut b = tails::BalanceResponseBuilder::new(&mut self.out);
        b.set_id(v.id)
            .set_balance(v.balance)
            .set_nonce(v.nonce)
            .set_block_hash(&v.block_hash);
        b.finish_message().expect(SMALL)
    }

    #[inline]
    fn decode_request(&mut self, wire: &[u8], sink: &mut Sink) -> Result<(), Error> {
        let r = tails::BalanceRequestReader::parse(wire).map_err(Error::new)?;
        sink.u64(r.id());
        sink.u64(r.block());
        sink.bytes(r.method().as_bytes());
        sink.bytes(r.account());
        Ok(())
    }

    #[inline]
    fn decode_response(&mut self, wire: &[u8], sink: &mut Sink) -> Result<(), Error> {
        let r = tails::BalanceResponseReader::parse(wire).map_err(Error::new)?;
        sink.response(r.id(), r.balance(), r.nonce(), r.block_hash());
        Ok(())
    }

    #[inline]
    fn handle(&mut self, wire: &[u8]) -> Result<&[u8], Error> {
        let req = tails::BalanceRequestReader::parse(wire).map_err(Error::new)?;
        let v = compute(req.id(), req.block(), account20(req.account())?);
        self.out.clear();
        let mut b = tails::BalanceResponseBuilder::new(&mut self.out);
        b.set_id(v.id)
            .set_balance(v.balance)
            .set_nonce(v.nonce)
            .set_block_hash(&v.block_hash);
        b.finish_message().map_err(Error::new)
    }

    fn request_values(&mut self, wire: &[u8]) -> Result<Request, Error> {
        let r = tails::BalanceRequestReader::parse(wire).map_err(Error::new)?;
        if r.method() != METHOD {
            return Err(Error(format!("method {:?}", r.method())));
        }
        Ok(Request {
            id: r.id(),
            block: r.block(),
            account: *account20(r.account())?,
        })
    }

    fn response_values(&mut self, wire: &[u8]) -> Result<Response, Error> {
        let r = tails::BalanceResponseReader::parse(wire).map_err(Error::new)?;
        Ok(Response {
            id: r.id(),
            balance: r.balance(),
            nonce: r.nonce(),
            block_hash: r
                .block_hash()
                .try_into()
                .map_err(|_| Error::new("block hash is not 32 bytes"))?,
        })
    }
}

/// `benches/schemas/logs.zap`: the logs as a pointer list, each log's scalars and
/// fixed-size arrays inline, its topics a strided list, its data a byte tail.
impl LogsCodec for ZapFixed {
    const NAME: &'static str = "zap";
    type LogsIn = logs::Logs;

    fn prepare_logs(v: &[Log]) -> logs::Logs {
        logs::Logs {
            logs: v
                .iter()
                .map(|l| {
                    Some(logs::Log {
                        block_number: l.block_number,
                        transaction_index: l.transaction_index,
                        log_index: l.log_index,
                        topics: l.topics.clone(),
                        data: l.data.clone(),
                        address: l.address,
                        transaction_hash: l.transaction_hash,
                    })
                })
                .collect(),
        }
    }

    #[inline]
    fn encode_logs(&mut self, v: &logs::Logs) -> &[u8] {
        v.encode(&mut self.out)
            .expect("the logs record is within the builder's limit")
    }

    #[inline]
    fn decode_logs(&mut self, wire: &[u8], sink: &mut Sink) -> Result<(), Error> {
        let r = logs::LogsReader::parse(wire).map_err(Error::new)?;
        for l in r.logs() {
            let l = l.ok_or_else(|| Error::new("a null log"))?;
            sink.log_head(l.block_number(), l.transaction_index(), l.log_index());
            for t in l.topics() {
                sink.bytes(t);
            }
            sink.bytes(l.data());
            sink.bytes(l.address());
            sink.bytes(l.transaction_hash());
        }
        Ok(())
    }

    /// A pointer list's iterator skips in O(1): log `i` is one 4-byte offset away.
    #[inline]
    fn read_log_hash(&mut self, wire: &[u8], i: usize, sink: &mut Sink) -> Result<(), Error> {
        let r = logs::LogsReader::parse(wire).map_err(Error::new)?;
        let l = r
            .logs()
            .nth(i)
            .flatten()
            .ok_or_else(|| Error(format!("no log {i}")))?;
        sink.bytes(l.transaction_hash());
        Ok(())
    }

    fn logs_values(&mut self, wire: &[u8]) -> Result<Vec<Log>, Error> {
        let v = logs::Logs::decode(wire).map_err(Error::new)?;
        v.logs
            .into_iter()
            .map(|l| {
                let l = l.ok_or_else(|| Error::new("a null log"))?;
                Ok(Log {
                    block_number: l.block_number,
                    transaction_index: l.transaction_index,
                    log_index: l.log_index,
                    topics: l.topics,
                    data: l.data,
                    address: l.address,
                    transaction_hash: l.transaction_hash,
                })
            })
            .collect()
    }
}

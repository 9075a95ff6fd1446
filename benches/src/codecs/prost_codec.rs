//! Protobuf through prost, from `proto/eth.proto`. Decoding merges into messages the
//! codec keeps rather than building new ones (the charitable way to use prost); prost
//! still allocates a fresh vector for each `bytes` field it reads (the allocation
//! counter shows one per message).

use prost::Message as _;

use super::{Codec, Error, LogsCodec};
use crate::generated::{pb, pb_logs};
use crate::values::{compute, Log, Request, Response, Sink};

#[derive(Debug, Default)]
pub struct Prost {
    out: Vec<u8>,
    req: pb::BalanceRequest,
    resp: pb::BalanceResponse,
    logs: pb_logs::Logs,
}

fn array<const N: usize>(b: &[u8], what: &str) -> Result<[u8; N], Error> {
    b.try_into()
        .map_err(|_| Error(format!("{what} of {} bytes, not {N}", b.len())))
}

impl Prost {
    fn merge_request(&mut self, wire: &[u8]) -> Result<&pb::BalanceRequest, Error> {
        self.req.clear();
        self.req.merge(wire).map_err(Error::new)?;
        Ok(&self.req)
    }

    fn merge_response(&mut self, wire: &[u8]) -> Result<&pb::BalanceResponse, Error> {
        self.resp.clear();
        self.resp.merge(wire).map_err(Error::new)?;
        Ok(&self.resp)
    }
}

impl Codec for Prost {
    const NAME: &'static str = "prost";
    type RequestIn = pb::BalanceRequest;
    type ResponseIn = pb::BalanceResponse;

    fn prepare_request(v: &Request) -> pb::BalanceRequest {
        pb::BalanceRequest {
            id: v.id,
            block: v.block,
            account: v.account.to_vec(),
        }
    }

    fn prepare_response(v: &Response) -> pb::BalanceResponse {
        pb::BalanceResponse {
            id: v.id,
            balance: v.balance,
            nonce: v.nonce,
            block_hash: v.block_hash.to_vec(),
        }
    }

    #[inline]
    fn encode_request(&mut self, v: &pb::BalanceRequest) -> &[u8] {
        self.out.clear();
        // A Vec grows as needed: encoding cannot run out of room.
        let _ = v.encode(&mut self.out);
        &self.out
    }

    #[inline]
    fn encode_response(&mut self, v: &pb::BalanceResponse) -> &[u8] {
        self.out.clear();
        let _ = v.encode(&mut self.out);
        &self.out
    }

    #[inline]
    fn decode_request(&mut self, wire: &[u8], sink: &mut Sink) -> Result<(), Error> {
        let r = self.merge_request(wire)?;
        sink.request(r.id, r.block, &r.account);
        Ok(())
    }

    #[inline]
    fn decode_response(&mut self, wire: &[u8], sink: &mut Sink) -> Result<(), Error> {
        let r = self.merge_response(wire)?;
        sink.response(r.id, r.balance, r.nonce, &r.block_hash);
        Ok(())
    }

    #[inline]
    fn handle(&mut self, wire: &[u8]) -> Result<&[u8], Error> {
        let r = self.merge_request(wire)?;
        let v = compute(r.id, r.block, &array(&r.account, "account")?);
        self.resp.id = v.id;
        self.resp.balance = v.balance;
        self.resp.nonce = v.nonce;
        self.resp.block_hash.clear();
        self.resp.block_hash.extend_from_slice(&v.block_hash);
        self.out.clear();
        let _ = self.resp.encode(&mut self.out);
        Ok(&self.out)
    }

    fn request_values(&mut self, wire: &[u8]) -> Result<Request, Error> {
        let r = self.merge_request(wire)?;
        Ok(Request {
            id: r.id,
            block: r.block,
            account: array(&r.account, "account")?,
        })
    }

    fn response_values(&mut self, wire: &[u8]) -> Result<Response, Error> {
        let r = self.merge_response(wire)?;
        Ok(Response {
            id: r.id,
            balance: r.balance,
            nonce: r.nonce,
            block_hash: array(&r.block_hash, "block hash")?,
        })
    }
}

impl Prost {
    fn merge_logs(&mut self, wire: &[u8]) -> Result<&pb_logs::Logs, Error> {
        self.logs.clear();
        self.logs.merge(wire).map_err(Error::new)?;
        Ok(&self.logs)
    }
}

impl LogsCodec for Prost {
    const NAME: &'static str = "prost";
    type LogsIn = pb_logs::Logs;

    fn prepare_logs(v: &[Log]) -> pb_logs::Logs {
        pb_logs::Logs {
            logs: v
                .iter()
                .map(|l| pb_logs::Log {
                    block_number: l.block_number,
                    transaction_index: l.transaction_index,
                    log_index: l.log_index,
                    topics: l.topics.iter().map(|t| t.to_vec()).collect(),
                    data: l.data.clone(),
                    address: l.address.to_vec(),
                    transaction_hash: l.transaction_hash.to_vec(),
                })
                .collect(),
        }
    }

    #[inline]
    fn encode_logs(&mut self, v: &pb_logs::Logs) -> &[u8] {
        self.out.clear();
        let _ = v.encode(&mut self.out);
        &self.out
    }

    #[inline]
    fn decode_logs(&mut self, wire: &[u8], sink: &mut Sink) -> Result<(), Error> {
        for l in &self.merge_logs(wire)?.logs {
            sink.log_head(l.block_number, l.transaction_index, l.log_index);
            for t in &l.topics {
                sink.bytes(t);
            }
            sink.bytes(&l.data);
            sink.bytes(&l.address);
            sink.bytes(&l.transaction_hash);
        }
        Ok(())
    }

    /// Protobuf has no index: the whole message is decoded to reach one log.
    #[inline]
    fn read_log_hash(&mut self, wire: &[u8], i: usize, sink: &mut Sink) -> Result<(), Error> {
        let logs = self.merge_logs(wire)?;
        let l = logs
            .logs
            .get(i)
            .ok_or_else(|| Error(format!("no log {i}")))?;
        sink.bytes(&l.transaction_hash);
        Ok(())
    }

    fn logs_values(&mut self, wire: &[u8]) -> Result<Vec<Log>, Error> {
        self.merge_logs(wire)?
            .logs
            .iter()
            .map(|l| {
                Ok(Log {
                    block_number: l.block_number,
                    transaction_index: l.transaction_index,
                    log_index: l.log_index,
                    topics: l
                        .topics
                        .iter()
                        .map(|t| array(t, "topic"))
                        .collect::<Result<_, _>>()?,
                    data: l.data.clone(),
                    address: array(&l.address, "address")?,
                    transaction_hash: array(&l.transaction_hash, "transaction hash")?,
                })
            })
            .collect()
    }
}

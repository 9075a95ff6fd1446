//! postcard, the "just serialize it" baseline: serde's derives on the format-independent
//! [`values`](crate::values) types, varint integers, no schema, no zero-copy. postcard
//! has one way to read, and it is the safe one (every length is checked).

use super::{Codec, Error, LogsCodec};
use crate::values::{compute, Log, Request, Response, Sink};

#[derive(Debug)]
pub struct Postcard {
    out: Vec<u8>,
}

impl Default for Postcard {
    fn default() -> Self {
        Postcard {
            out: Vec::with_capacity(256),
        }
    }
}

impl Postcard {
    fn write<T: serde::Serialize>(&mut self, v: &T) -> &[u8] {
        let mut buf = core::mem::take(&mut self.out);
        buf.clear();
        // Serializing plain values into a growable buffer cannot fail.
        self.out = postcard::to_extend(v, buf).unwrap_or_default();
        &self.out
    }
}

fn read<'a, T: serde::Deserialize<'a>>(wire: &'a [u8]) -> Result<T, Error> {
    postcard::from_bytes(wire).map_err(Error::new)
}

impl Codec for Postcard {
    const NAME: &'static str = "postcard";
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
        self.write(v)
    }

    #[inline]
    fn encode_response(&mut self, v: &Response) -> &[u8] {
        self.write(v)
    }

    #[inline]
    fn decode_request(&mut self, wire: &[u8], sink: &mut Sink) -> Result<(), Error> {
        let r: Request = read(wire)?;
        sink.request(r.id, r.block, &r.account);
        Ok(())
    }

    #[inline]
    fn decode_response(&mut self, wire: &[u8], sink: &mut Sink) -> Result<(), Error> {
        let r: Response = read(wire)?;
        sink.response(r.id, r.balance, r.nonce, &r.block_hash);
        Ok(())
    }

    #[inline]
    fn handle(&mut self, wire: &[u8]) -> Result<&[u8], Error> {
        let r: Request = read(wire)?;
        let v = compute(r.id, r.block, &r.account);
        Ok(self.write(&v))
    }

    fn request_values(&mut self, wire: &[u8]) -> Result<Request, Error> {
        read(wire)
    }

    fn response_values(&mut self, wire: &[u8]) -> Result<Response, Error> {
        read(wire)
    }
}

impl LogsCodec for Postcard {
    const NAME: &'static str = "postcard";
    type LogsIn = Vec<Log>;

    fn prepare_logs(v: &[Log]) -> Vec<Log> {
        v.to_vec()
    }

    #[inline]
    fn encode_logs(&mut self, v: &Vec<Log>) -> &[u8] {
        self.write(v)
    }

    #[inline]
    fn decode_logs(&mut self, wire: &[u8], sink: &mut Sink) -> Result<(), Error> {
        let logs: Vec<Log> = read(wire)?;
        for l in &logs {
            sink.log(l);
        }
        Ok(())
    }

    /// postcard has no index: the whole list is decoded to reach one log.
    #[inline]
    fn read_log_hash(&mut self, wire: &[u8], i: usize, sink: &mut Sink) -> Result<(), Error> {
        let logs: Vec<Log> = read(wire)?;
        let l = logs.get(i).ok_or_else(|| Error(format!("no log {i}")))?;
        sink.bytes(&l.transaction_hash);
        Ok(())
    }

    fn logs_values(&mut self, wire: &[u8]) -> Result<Vec<Log>, Error> {
        read(wire)
    }
}

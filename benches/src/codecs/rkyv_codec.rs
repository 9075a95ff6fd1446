//! rkyv, archiving the format-independent [`values`](crate::values) types themselves
//! (their `rkyv::Archive` derives). Two ways to read:
//!
//! * [`RkyvChecked`]: `rkyv::access`, which validates the whole archive with bytecheck
//!   before the first read: what rkyv's documentation asks for untrusted bytes;
//! * [`RkyvUnchecked`]: `rkyv::access_unchecked`, no validation at all: only for bytes
//!   the process trusts (here: bytes the benches wrote themselves). Its
//!   `*_values` functions, which the equivalence test feeds with garbage, validate.
//!
//! Encoding serializes into an aligned buffer the codec reuses (`to_bytes_in`).

#![allow(unsafe_code)]

use core::marker::PhantomData;

use rkyv::rancor::Error as Rancor;
use rkyv::util::AlignedVec;
use rkyv::vec::ArchivedVec;

use super::{Codec, Error, LogsCodec};
use crate::values::{
    compute, ArchivedLog, ArchivedRequest, ArchivedResponse, Log, Request, Response, Sink,
};

/// How a codec turns bytes into an archived root.
pub trait RkyvAccess {
    const NAME: &'static str;
    /// The archived root of `wire`.
    fn access<T>(wire: &[u8]) -> Result<&T, Error>
    where
        T: rkyv::Portable
            + for<'a> rkyv::bytecheck::CheckBytes<rkyv::api::high::HighValidator<'a, Rancor>>;
}

/// Validate, then read.
#[derive(Debug, Default)]
pub struct Checked;

impl RkyvAccess for Checked {
    const NAME: &'static str = "rkyv_checked";
    #[inline]
    fn access<T>(wire: &[u8]) -> Result<&T, Error>
    where
        T: rkyv::Portable
            + for<'a> rkyv::bytecheck::CheckBytes<rkyv::api::high::HighValidator<'a, Rancor>>,
    {
        rkyv::access::<T, Rancor>(wire).map_err(Error::new)
    }
}

/// Read without validating: trusted bytes only.
#[derive(Debug, Default)]
pub struct Unchecked;

impl RkyvAccess for Unchecked {
    const NAME: &'static str = "rkyv_unchecked";
    #[inline]
    fn access<T>(wire: &[u8]) -> Result<&T, Error>
    where
        T: rkyv::Portable
            + for<'a> rkyv::bytecheck::CheckBytes<rkyv::api::high::HighValidator<'a, Rancor>>,
    {
        // SAFETY: the decode, field-read and handler paths of this codec are only given
        // bytes that the benches serialized from a `T` with rkyv, in an aligned buffer;
        // the equivalence test's garbage goes through `*_values`, which validate.
        Ok(unsafe { rkyv::access_unchecked::<T>(wire) })
    }
}

/// rkyv, reading as `A` says.
#[derive(Debug)]
pub struct RkyvCodec<A> {
    out: AlignedVec,
    access: PhantomData<A>,
}

pub type RkyvChecked = RkyvCodec<Checked>;
pub type RkyvUnchecked = RkyvCodec<Unchecked>;

impl<A> Default for RkyvCodec<A> {
    fn default() -> Self {
        RkyvCodec {
            out: AlignedVec::with_capacity(256),
            access: PhantomData,
        }
    }
}

impl<A> RkyvCodec<A> {
    fn write<T>(&mut self, v: &T) -> &[u8]
    where
        T: for<'a> rkyv::Serialize<
            rkyv::api::high::HighSerializer<
                AlignedVec,
                rkyv::ser::allocator::ArenaHandle<'a>,
                Rancor,
            >,
        >,
    {
        let mut buf = core::mem::take(&mut self.out);
        buf.clear();
        // Serializing plain values into a growable buffer cannot fail.
        self.out = rkyv::api::high::to_bytes_in::<_, Rancor>(v, buf).unwrap_or_default();
        &self.out
    }
}

fn checked<T>(wire: &[u8]) -> Result<&T, Error>
where
    T: rkyv::Portable
        + for<'a> rkyv::bytecheck::CheckBytes<rkyv::api::high::HighValidator<'a, Rancor>>,
{
    Checked::access::<T>(wire)
}

/// An archived request, read.
fn request(r: &ArchivedRequest) -> Request {
    Request {
        id: r.id.to_native(),
        block: r.block.to_native(),
        account: r.account,
    }
}

fn response(r: &ArchivedResponse) -> Response {
    Response {
        id: r.id.to_native(),
        balance: r.balance.to_native(),
        nonce: r.nonce.to_native(),
        block_hash: r.block_hash,
    }
}

impl<A: RkyvAccess> Codec for RkyvCodec<A> {
    const NAME: &'static str = A::NAME;
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
        let r = A::access::<ArchivedRequest>(wire)?;
        sink.request(r.id.to_native(), r.block.to_native(), &r.account);
        Ok(())
    }

    #[inline]
    fn decode_response(&mut self, wire: &[u8], sink: &mut Sink) -> Result<(), Error> {
        let r = A::access::<ArchivedResponse>(wire)?;
        sink.response(
            r.id.to_native(),
            r.balance.to_native(),
            r.nonce.to_native(),
            &r.block_hash,
        );
        Ok(())
    }

    #[inline]
    fn handle(&mut self, wire: &[u8]) -> Result<&[u8], Error> {
        let r = A::access::<ArchivedRequest>(wire)?;
        let v = compute(r.id.to_native(), r.block.to_native(), &r.account);
        Ok(self.write(&v))
    }

    fn request_values(&mut self, wire: &[u8]) -> Result<Request, Error> {
        Ok(request(checked::<ArchivedRequest>(wire)?))
    }

    fn response_values(&mut self, wire: &[u8]) -> Result<Response, Error> {
        Ok(response(checked::<ArchivedResponse>(wire)?))
    }
}

impl<A: RkyvAccess> LogsCodec for RkyvCodec<A> {
    const NAME: &'static str = A::NAME;
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
        for l in A::access::<ArchivedVec<ArchivedLog>>(wire)?.iter() {
            sink.log_head(
                l.block_number.to_native(),
                l.transaction_index.to_native(),
                l.log_index.to_native(),
            );
            for t in l.topics.iter() {
                sink.bytes(t);
            }
            sink.bytes(&l.data);
            sink.bytes(&l.address);
            sink.bytes(&l.transaction_hash);
        }
        Ok(())
    }

    #[inline]
    fn read_log_hash(&mut self, wire: &[u8], i: usize, sink: &mut Sink) -> Result<(), Error> {
        let logs = A::access::<ArchivedVec<ArchivedLog>>(wire)?;
        let l = logs.get(i).ok_or_else(|| Error(format!("no log {i}")))?;
        sink.bytes(&l.transaction_hash);
        Ok(())
    }

    fn logs_values(&mut self, wire: &[u8]) -> Result<Vec<Log>, Error> {
        Ok(checked::<ArchivedVec<ArchivedLog>>(wire)?
            .iter()
            .map(|l| Log {
                block_number: l.block_number.to_native(),
                transaction_index: l.transaction_index.to_native(),
                log_index: l.log_index.to_native(),
                topics: l.topics.to_vec(),
                data: l.data.to_vec(),
                address: l.address,
                transaction_hash: l.transaction_hash,
            })
            .collect())
    }
}

//! Cap'n Proto through capnp, from `schemas/bench.capnp` (capnpc). Two ways to read:
//!
//! * [`Capnp`]: `ReaderOptions::new()`, the default traversal limit (64 MiB of words) and
//!   nesting limit, what the capnp documentation asks for input that is not trusted;
//! * [`CapnpUnlimited`]: no traversal limit (`traversal_limit_in_words(None)`), the
//!   fastest documented read (every pointer is still bounds-checked: capnp has no
//!   unchecked reader for messages read from bytes).
//!
//! Messages are read in place from the flat slice without allocating
//! (`read_message_from_flat_slice_no_alloc`); messages are built in a scratch segment
//! through one `ScratchSpaceHeapAllocator` the codec keeps (as capnp's documentation
//! advises: a new one zeroes the whole scratch space, a reused one only the words the
//! last message used) and serialized with their segment table
//! (`serialize::write_message`), as they would be sent.

use core::marker::PhantomData;

use capnp::message::{self, ReaderOptions, ScratchSpaceHeapAllocator};
use capnp::serialize::{self, NoAllocSliceSegments};

use super::{Codec, Error, LogsCodec};
use crate::generated::bench_capnp::{balance_request, balance_response, logs};
use crate::values::{compute, Log, Request, Response, Sink};

/// How a codec reads: its name and its reader options.
pub trait CapnpRead {
    const NAME: &'static str;
    fn options() -> ReaderOptions;
}

/// The default reader options.
#[derive(Debug, Default)]
pub struct Limited;

impl CapnpRead for Limited {
    const NAME: &'static str = "capnp";
    fn options() -> ReaderOptions {
        ReaderOptions::new()
    }
}

/// No traversal limit.
#[derive(Debug, Default)]
pub struct Unlimited;

impl CapnpRead for Unlimited {
    const NAME: &'static str = "capnp_unlimited";
    fn options() -> ReaderOptions {
        *ReaderOptions::new().traversal_limit_in_words(None)
    }
}

/// Cap'n Proto, reading with the options of `R`.
pub struct CapnpCodec<R> {
    out: Vec<u8>,
    /// Its scratch space is the first segment of every message built, zeroed again by
    /// capnp after each. The allocator borrows the space for as long as it lives, so the
    /// space is leaked (once per codec value: the benches make a few dozen).
    alloc: ScratchSpaceHeapAllocator<'static>,
    read: PhantomData<R>,
}

impl<R> core::fmt::Debug for CapnpCodec<R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CapnpCodec").finish_non_exhaustive()
    }
}

/// Default traversal limits.
pub type Capnp = CapnpCodec<Limited>;
/// No traversal limit.
pub type CapnpUnlimited = CapnpCodec<Unlimited>;

/// Room for the logs record in one segment.
const SCRATCH: usize = 64 * 1024;

impl<R> Default for CapnpCodec<R> {
    fn default() -> Self {
        CapnpCodec {
            out: Vec::with_capacity(SCRATCH),
            alloc: ScratchSpaceHeapAllocator::new(Box::leak(vec![0u8; SCRATCH].into_boxed_slice())),
            read: PhantomData,
        }
    }
}

fn reader<'a, R: CapnpRead>(
    wire: &'a [u8],
) -> Result<message::Reader<NoAllocSliceSegments<'a>>, Error> {
    let mut slice = wire;
    serialize::read_message_from_flat_slice_no_alloc(&mut slice, R::options()).map_err(Error::new)
}

fn array<const N: usize>(b: &[u8], what: &str) -> Result<[u8; N], Error> {
    b.try_into()
        .map_err(|_| Error(format!("{what} of {} bytes, not {N}", b.len())))
}

impl<R> CapnpCodec<R> {
    /// Build a message with `fill` in the scratch segment and serialize it into `out`.
    fn build(&mut self, fill: impl FnOnce(&mut Message<'_>)) -> &[u8] {
        let mut msg = message::Builder::new(&mut self.alloc);
        fill(&mut msg);
        self.out.clear();
        // Writing into a Vec cannot fail.
        let _ = serialize::write_message(&mut self.out, &msg);
        &self.out
    }
}

/// A message being built in the codec's scratch space.
type Message<'a> = message::Builder<&'a mut ScratchSpaceHeapAllocator<'static>>;

fn fill_response(msg: &mut Message<'_>, v: &Response) {
    let mut r = msg.init_root::<balance_response::Builder<'_>>();
    r.set_id(v.id);
    r.set_balance(v.balance);
    r.set_nonce(v.nonce);
    r.set_block_hash(&v.block_hash);
}

impl<R: CapnpRead> Codec for CapnpCodec<R> {
    const NAME: &'static str = R::NAME;
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
        self.build(|msg| {
            let mut r = msg.init_root::<balance_request::Builder<'_>>();
            r.set_id(v.id);
            r.set_block(v.block);
            r.set_account(&v.account);
        })
    }

    #[inline]
    fn encode_response(&mut self, v: &Response) -> &[u8] {
        self.build(|msg| fill_response(msg, v))
    }

    #[inline]
    fn decode_request(&mut self, wire: &[u8], sink: &mut Sink) -> Result<(), Error> {
        let msg = reader::<R>(wire)?;
        let r = msg
            .get_root::<balance_request::Reader<'_>>()
            .map_err(Error::new)?;
        sink.request(
            r.get_id(),
            r.get_block(),
            r.get_account().map_err(Error::new)?,
        );
        Ok(())
    }

    #[inline]
    fn decode_response(&mut self, wire: &[u8], sink: &mut Sink) -> Result<(), Error> {
        let msg = reader::<R>(wire)?;
        let r = msg
            .get_root::<balance_response::Reader<'_>>()
            .map_err(Error::new)?;
        sink.response(
            r.get_id(),
            r.get_balance(),
            r.get_nonce(),
            r.get_block_hash().map_err(Error::new)?,
        );
        Ok(())
    }

    #[inline]
    fn handle(&mut self, wire: &[u8]) -> Result<&[u8], Error> {
        let msg = reader::<R>(wire)?;
        let r = msg
            .get_root::<balance_request::Reader<'_>>()
            .map_err(Error::new)?;
        let account = array(r.get_account().map_err(Error::new)?, "account")?;
        let v = compute(r.get_id(), r.get_block(), &account);
        Ok(self.build(|msg| fill_response(msg, &v)))
    }

    fn request_values(&mut self, wire: &[u8]) -> Result<Request, Error> {
        let msg = reader::<R>(wire)?;
        let r = msg
            .get_root::<balance_request::Reader<'_>>()
            .map_err(Error::new)?;
        Ok(Request {
            id: r.get_id(),
            block: r.get_block(),
            account: array(r.get_account().map_err(Error::new)?, "account")?,
        })
    }

    fn response_values(&mut self, wire: &[u8]) -> Result<Response, Error> {
        let msg = reader::<R>(wire)?;
        let r = msg
            .get_root::<balance_response::Reader<'_>>()
            .map_err(Error::new)?;
        Ok(Response {
            id: r.get_id(),
            balance: r.get_balance(),
            nonce: r.get_nonce(),
            block_hash: array(r.get_block_hash().map_err(Error::new)?, "block hash")?,
        })
    }
}

impl<R: CapnpRead> LogsCodec for CapnpCodec<R> {
    const NAME: &'static str = R::NAME;
    type LogsIn = Vec<Log>;

    fn prepare_logs(v: &[Log]) -> Vec<Log> {
        v.to_vec()
    }

    #[inline]
    fn encode_logs(&mut self, v: &Vec<Log>) -> &[u8] {
        self.build(|msg| {
            let root = msg.init_root::<logs::Builder<'_>>();
            let mut list = root.init_logs(v.len() as u32);
            for (i, l) in v.iter().enumerate() {
                let mut b = list.reborrow().get(i as u32);
                b.set_block_number(l.block_number);
                b.set_transaction_index(l.transaction_index);
                b.set_log_index(l.log_index);
                let mut topics = b.reborrow().init_topics(l.topics.len() as u32);
                for (t, topic) in l.topics.iter().enumerate() {
                    topics.set(t as u32, topic);
                }
                b.set_data(&l.data);
                b.set_address(&l.address);
                b.set_transaction_hash(&l.transaction_hash);
            }
        })
    }

    #[inline]
    fn decode_logs(&mut self, wire: &[u8], sink: &mut Sink) -> Result<(), Error> {
        let msg = reader::<R>(wire)?;
        let root = msg.get_root::<logs::Reader<'_>>().map_err(Error::new)?;
        for l in root.get_logs().map_err(Error::new)? {
            sink.log_head(
                l.get_block_number(),
                l.get_transaction_index(),
                l.get_log_index(),
            );
            for t in l.get_topics().map_err(Error::new)? {
                sink.bytes(t.map_err(Error::new)?);
            }
            sink.bytes(l.get_data().map_err(Error::new)?);
            sink.bytes(l.get_address().map_err(Error::new)?);
            sink.bytes(l.get_transaction_hash().map_err(Error::new)?);
        }
        Ok(())
    }

    #[inline]
    fn read_log_hash(&mut self, wire: &[u8], i: usize, sink: &mut Sink) -> Result<(), Error> {
        let msg = reader::<R>(wire)?;
        let root = msg.get_root::<logs::Reader<'_>>().map_err(Error::new)?;
        let list = root.get_logs().map_err(Error::new)?;
        let l = list
            .try_get(i as u32)
            .ok_or_else(|| Error(format!("no log {i}")))?;
        sink.bytes(l.get_transaction_hash().map_err(Error::new)?);
        Ok(())
    }

    fn logs_values(&mut self, wire: &[u8]) -> Result<Vec<Log>, Error> {
        let msg = reader::<R>(wire)?;
        let root = msg.get_root::<logs::Reader<'_>>().map_err(Error::new)?;
        let mut out = Vec::new();
        for l in root.get_logs().map_err(Error::new)? {
            let mut topics = Vec::new();
            for t in l.get_topics().map_err(Error::new)? {
                topics.push(array(t.map_err(Error::new)?, "topic")?);
            }
            out.push(Log {
                block_number: l.get_block_number(),
                transaction_index: l.get_transaction_index(),
                log_index: l.get_log_index(),
                topics,
                data: l.get_data().map_err(Error::new)?.to_vec(),
                address: array(l.get_address().map_err(Error::new)?, "address")?,
                transaction_hash: array(l.get_transaction_hash().map_err(Error::new)?, "hash")?,
            });
        }
        Ok(out)
    }
}

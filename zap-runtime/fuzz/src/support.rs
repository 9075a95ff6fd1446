//! What the targets over generated code share: a poll-to-completion executor for the
//! (never pending) handler futures, a `Store` handler whose answers can be predicted,
//! the checks of generated readers, and equality that compares floats by their bits.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use zap_runtime::{CallError, ZapStruct};

use crate::schemas::kitchen::{Kitchen, KitchenReader, Leaf, LeafReader};
use crate::schemas::lists::{Lists, ListsReader, Named, NamedReader, Point};
use crate::schemas::service::{Answer, Query, QueryReader, Store};

/// Run a future that never waits on I/O (the handlers and `handle_jsonrpc` here) to the
/// end. A future that stays pending would loop forever, which libFuzzer reports as a
/// timeout: a finding, as it should be.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
    }
}

/// A `Store` whose answers are a function of the request, so a target can check them:
/// `get`/`put` echo the id with a body naming the method, `latest` answers id 0, `forget`
/// fails with 500 for odd ids (a handler error), `ping` answers nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct EchoStore;

/// The body `get`/`put` answer for `id`.
pub fn echo_body(method: &str, id: u64) -> String {
    format!("{method} {id}")
}

impl Store for EchoStore {
    async fn get(&self, q: QueryReader<'_>) -> Result<Answer, CallError> {
        Ok(Answer {
            id: q.id(),
            body: echo_body("get", q.id()),
        })
    }
    async fn put(&self, q: QueryReader<'_>) -> Result<Answer, CallError> {
        Ok(Answer {
            id: q.id(),
            body: echo_body("put", q.id()),
        })
    }
    async fn latest(&self) -> Result<Answer, CallError> {
        Ok(Answer::default())
    }
    async fn forget(&self, q: QueryReader<'_>) -> Result<(), CallError> {
        if q.id() % 2 == 1 {
            Err(CallError::internal(format!("cannot forget {}", q.id())))
        } else {
            Ok(())
        }
    }
    async fn ping(&self) -> Result<(), CallError> {
        Ok(())
    }
}

/// What `EchoStore` answers to `ordinal` with `payload`, per the generated dispatch:
/// `(status, Some(answer))` for a method with a result.
pub fn expected_store(ordinal: u32, payload: &[u8]) -> (u32, Option<Answer>) {
    let query = || Query::decode(payload);
    match ordinal {
        1 | 2 => match query() {
            Ok(q) => {
                let method = if ordinal == 1 { "get" } else { "put" };
                let body = echo_body(method, q.id);
                (200, Some(Answer { id: q.id, body }))
            }
            Err(_) => (400, None),
        },
        3 => (200, Some(Answer::default())),
        4 => match query() {
            Ok(q) if q.id % 2 == 1 => (500, None),
            Ok(_) => (200, None),
            Err(_) => (400, None),
        },
        5 => (200, None),
        _ => (404, None),
    }
}

// ---------------------------------------------------------------------------------------
// Equality with floats by bits (NaN == NaN when the bits agree)
// ---------------------------------------------------------------------------------------

/// `a == b`, floats compared by their bits.
pub fn same_kitchen(a: &Kitchen, b: &Kitchen) -> bool {
    let floats = |k: &Kitchen| (k.f32.to_bits(), k.f64.to_bits());
    let plain = |k: &Kitchen| Kitchen {
        f32: 0.0,
        f64: 0.0,
        ..k.clone()
    };
    floats(a) == floats(b) && plain(a) == plain(b)
}

// ---------------------------------------------------------------------------------------
// Generated readers on arbitrary messages
// ---------------------------------------------------------------------------------------

/// Every getter of a `Leaf` reader agrees with the generic object reader at the schema's
/// offsets, and with `to_value`.
pub fn check_leaf(r: LeafReader<'_>) -> Leaf {
    let obj = r.as_object();
    assert_eq!(r.tag(), obj.u32(Leaf::TAG_OFFSET));
    assert_eq!(r.note(), obj.text(Leaf::NOTE_OFFSET));
    let v = r.to_value();
    assert_eq!((v.tag, v.note.as_str()), (r.tag(), r.note()));
    v
}

/// Every getter of a `Kitchen` reader, its lists and child fully read; each agrees with
/// the generic reader at the schema's offsets and with `to_value`.
pub fn check_kitchen(r: KitchenReader<'_>) -> Kitchen {
    let obj = r.as_object();
    assert_eq!(r.flag(), obj.bool(Kitchen::FLAG_OFFSET));
    assert_eq!(r.a8(), obj.u8(Kitchen::A8_OFFSET));
    assert_eq!(r.a16(), obj.u16(Kitchen::A16_OFFSET));
    assert_eq!(r.a32(), obj.u32(Kitchen::A32_OFFSET));
    assert_eq!(r.a64(), obj.u64(Kitchen::A64_OFFSET));
    assert_eq!(r.s8(), obj.i8(Kitchen::S8_OFFSET));
    assert_eq!(r.s16(), obj.i16(Kitchen::S16_OFFSET));
    assert_eq!(r.s32(), obj.i32(Kitchen::S32_OFFSET));
    assert_eq!(r.s64(), obj.i64(Kitchen::S64_OFFSET));
    assert_eq!(r.f32().to_bits(), obj.f32(Kitchen::F32_OFFSET).to_bits());
    assert_eq!(r.f64().to_bits(), obj.f64(Kitchen::F64_OFFSET).to_bits());
    assert_eq!(r.name(), obj.text(Kitchen::NAME_OFFSET));
    assert_eq!(r.blob(), obj.bytes(Kitchen::BLOB_OFFSET));
    assert_eq!(r.id(), obj.bytes_fixed::<16>(Kitchen::ID_OFFSET));
    let items_list = obj.list(Kitchen::ITEMS_OFFSET);
    let items: Vec<Leaf> = r.items().map(check_leaf).collect();
    // Framed: each element takes at least its 4-byte length, so the count a reader
    // iterates is bounded by the message size whatever the claimed count.
    assert!(items.len() <= items_list.len());
    assert!(items.len() <= obj.message_bytes().len() / 4);
    let inner = r.inner().map(check_leaf);
    assert_eq!(
        inner.is_some(),
        !obj.object(Kitchen::INNER_OFFSET).is_null()
    );
    let nums: Vec<u32> = r.nums().collect();
    // Strided: all the claimed elements, or none when they do not fit (spec §3).
    let claimed = obj.list(Kitchen::NUMS_OFFSET).len();
    assert!(nums.len() == claimed || nums.is_empty());
    assert!(nums.len() * 4 <= obj.message_bytes().len());

    let v = r.to_value();
    let getters = Kitchen {
        flag: r.flag(),
        a8: r.a8(),
        a16: r.a16(),
        a32: r.a32(),
        a64: r.a64(),
        s8: r.s8(),
        s16: r.s16(),
        s32: r.s32(),
        s64: r.s64(),
        f32: r.f32(),
        f64: r.f64(),
        name: r.name().to_owned(),
        blob: r.blob().to_vec(),
        id: *r.id(),
        items,
        inner: inner.map(Box::new),
        nums,
    };
    assert!(
        same_kitchen(&v, &getters),
        "to_value differs from the getters"
    );
    v
}

/// Every getter of a `Lists` reader fully iterated; counts bounded by the message.
pub fn check_lists(r: ListsReader<'_>) -> Lists {
    let size = r.as_object().message_bytes().len();
    let numbers: Vec<u64> = r.numbers().collect();
    let flags: Vec<bool> = r.flags().collect();
    let hashes: Vec<[u8; 32]> = r.hashes().copied().collect();
    let points: Vec<Point> = r.points().map(|p| p.to_value()).collect();
    let names: Vec<Named> = r.names().map(|n| n.to_value()).collect();
    let words: Vec<String> = r.words().map(str::to_owned).collect();
    let blobs: Vec<Vec<u8>> = r.blobs().map(<[u8]>::to_vec).collect();
    let refs: Vec<Option<Named>> = r
        .refs()
        .map(|n: Option<NamedReader<'_>>| n.map(|n| n.to_value()))
        .collect();
    assert!(numbers.len() * 8 <= size && flags.len() <= size && hashes.len() * 32 <= size);
    assert!(points.len() * 8 <= size && refs.len() * 4 <= size);
    for framed in [names.len(), words.len(), blobs.len()] {
        assert!(framed * 4 <= size);
    }
    let v = r.to_value();
    let getters = Lists {
        numbers,
        flags,
        hashes,
        points,
        names,
        words,
        blobs,
        refs,
    };
    assert_eq!(v, getters, "to_value differs from the getters");
    v
}

/// A value read from any message survives encode → decode unchanged, and encoding is
/// deterministic (the re-read value encodes to the same bytes).
pub fn check_reencode<T: ZapStruct + core::fmt::Debug>(v: &T, same: impl Fn(&T, &T) -> bool) {
    // Decoding is bounded (DecodeBudget), so the value is far below the builder limit.
    let bytes = v
        .to_bytes()
        .expect("a value decoded from a fuzz input re-encodes");
    let back = T::decode(&bytes).expect("an encoded value parses");
    assert!(same(v, &back), "decode(encode(v)) != v:\n{v:?}\n{back:?}");
    assert_eq!(
        back.to_bytes().as_deref(),
        Ok(&bytes[..]),
        "encoding is not deterministic"
    );
}

/// The JSON mapping of a value reads back as the same value (skipped for non-finite
/// floats, which JSON cannot carry).
pub fn check_json<T>(v: &T, same: impl Fn(&T, &T) -> bool)
where
    T: serde::Serialize + serde::de::DeserializeOwned + core::fmt::Debug,
{
    let text = serde_json::to_string(v).expect("a value serializes");
    let back: T = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("the JSON of {v:?} does not read back: {e}\n{text}"));
    assert!(
        same(v, &back),
        "JSON round trip changed the value:\n{v:?}\n{text}\n{back:?}"
    );
}

thread_local! {
    /// The runtime of the targets that serve a connection: current-thread, on tokio's
    /// paused clock, so that a path waiting on a timeout ends at once.
    static PAUSED: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .expect("a tokio runtime");
}

/// Serve one in-memory connection with `serve` (given the server's end) on the paused
/// clock, write each of `sent` from the client's end without closing it, and read
/// until the server closes: what it wrote. The server may close before taking every
/// byte (a refusal). Panics if the connection's task panics.
pub fn over_duplex<F, Fut>(serve: F, sent: &[&[u8]]) -> Vec<u8>
where
    F: FnOnce(tokio::io::DuplexStream) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    PAUSED.with(|rt| {
        rt.block_on(async {
            let (client, server) = tokio::io::duplex(16 << 10);
            let (mut from_server, mut to_server) = tokio::io::split(client);
            let served = tokio::spawn(serve(server));
            let write = async {
                for bytes in sent {
                    if to_server.write_all(bytes).await.is_err() {
                        return;
                    }
                }
            };
            let mut answer = Vec::new();
            let (read, ()) = tokio::join!(from_server.read_to_end(&mut answer), write);
            read.expect("read the server's answer");
            drop(to_server);
            served
                .await
                .expect("the connection task ends without a panic");
            answer
        })
    })
}

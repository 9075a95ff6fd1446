//! The owned-answer and echo benchmarks' service (`benches/schemas/records.zap`): `get`
//! answers a record with a 1 KiB text, a 64-byte blob and 32 items; `echo` answers its
//! payload. Shared by the criterion bench, the paired-rounds binaries and their tests.

use zap_runtime::{CallError, Owned};

use crate::generated::records::{
    Item, Payload, PayloadReader, Record, RecordQueryReader, Records, RecordsClient,
};

/// Bytes of the record's `Name`.
pub const NAME_LEN: usize = 1024;
/// Elements of the record's `Items`.
pub const ITEMS: usize = 32;

/// The record `get` answers for `id`.
pub fn record(id: u64) -> Record {
    Record {
        id,
        name: (0..NAME_LEN)
            .map(|i| char::from(b'a' + ((i as u64 + id) % 26) as u8))
            .collect(),
        blob: (0..64).map(|i| i as u8 ^ id as u8).collect(),
        items: (0..ITEMS as u64)
            .map(|i| Item {
                id: id * 100 + i,
                score: i as u32 * 3,
                rank: i as u32,
            })
            .collect(),
    }
}

/// Every field of an owned record, folded (the work a caller does with an answer).
pub fn fold_value(r: &Record) -> u64 {
    r.id ^ r.name.len() as u64
        ^ u64::from(r.name.as_bytes()[NAME_LEN / 2])
        ^ r.blob.len() as u64
        ^ r.items
            .iter()
            .map(|i| i.id ^ u64::from(i.score) ^ u64::from(i.rank))
            .fold(0u64, u64::wrapping_add)
}

/// The same fold through the zero-copy reader of an owned answer (the text is checked
/// to be UTF-8 when it is read, as the owned struct's decode checks it).
pub fn fold_owned(o: &Owned<Record>) -> u64 {
    let r = o.get();
    let name = r.name();
    r.id()
        ^ name.len() as u64
        ^ u64::from(name.as_bytes().get(NAME_LEN / 2).copied().unwrap_or(0))
        ^ r.blob().len() as u64
        ^ r.items()
            .map(|i| i.id() ^ u64::from(i.score()) ^ u64::from(i.rank()))
            .fold(0u64, u64::wrapping_add)
}

/// The handler: `get` builds the record, `echo` copies the payload back.
#[derive(Clone, Copy, Debug, Default)]
pub struct Handler;

impl Records for Handler {
    async fn get(&self, q: RecordQueryReader<'_>) -> Result<Record, CallError> {
        Ok(record(q.id()))
    }

    async fn echo(&self, p: PayloadReader<'_>) -> Result<Payload, CallError> {
        Ok(Payload {
            data: p.data().to_vec(),
        })
    }
}

/// The typed client over any transport.
pub type Client<T> = RecordsClient<T>;

//! [`Owned`]: a message that owns its bytes and hands out the generated zero-copy reader.
//!
//! A reader such as `BalanceResponseReader<'a>` borrows the buffer its message came in,
//! which on a connection is the read buffer: it lives only as long as the call. An
//! `Owned<BalanceResponse>` holds the message as [`Bytes`] instead (a reference-counted
//! slice: cloning it, sending it to another task or keeping it in a queue copies no
//! message bytes) and gives out the same reader with [`Owned::get`], borrowing from
//! itself. The header is checked once, when the `Owned` is made; `get` only reads the
//! root offset that check already validated.
//!
//! ```
//! use zap_runtime::{Builder, Bytes, DecodeBudget, Message, Object, Owned, ObjectBuilder, ZapStruct};
//! # #[derive(Debug, PartialEq)]
//! # struct Note { id: u64 }
//! # impl ZapStruct for Note {
//! #     const NAME: &'static str = "Note";
//! #     const SIZE: usize = 8;
//! #     const JSON_FIELDS: &'static [&'static str] = &["id"];
//! #     const INLINE: bool = true;
//! #     type Reader<'a> = Object<'a>;
//! #     fn from_reader_in(r: Object<'_>, _: &mut DecodeBudget) -> Self { Note { id: r.u64(0) } }
//! #     fn write_fields(&self, obj: &mut ObjectBuilder<'_>) { obj.set_u64(0, self.id) }
//! # }
//! let wire: Bytes = Note { id: 7 }.to_bytes()?.into();
//! let note = Owned::<Note>::from_bytes(wire.clone())?; // no copy: shares `wire`
//! let keep = note.clone();                               // no copy either
//! std::thread::spawn(move || assert_eq!(keep.get().u64(0), 7)).join().unwrap();
//! assert_eq!(note.to_value(), Note { id: 7 });
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use core::marker::PhantomData;

use bytes::Bytes;

use crate::builder::Builder;
use crate::error::{BuildError, ParseError};
use crate::read::{Message, Object};
use crate::zap_struct::ZapStruct;

/// A message of struct `T` that owns its bytes: `Send + Sync + 'static`, cheap to clone
/// (a reference count), and read through `T`'s zero-copy reader ([`Owned::get`]).
///
/// Made from received bytes with [`Owned::from_bytes`] (a server hands one to a
/// handler's `<method>_owned`, a client stub's `<method>_owned` returns one), or from a
/// value with [`Owned::encode`].
pub struct Owned<T> {
    /// Exactly the message: cut to the size its header declares.
    bytes: Bytes,
    /// The root object's position, read from the checked header.
    root: usize,
    _of: PhantomData<fn() -> T>,
}

impl<T> Clone for Owned<T> {
    fn clone(&self) -> Self {
        Owned {
            bytes: self.bytes.clone(),
            root: self.root,
            _of: PhantomData,
        }
    }
}

impl<T> Owned<T> {
    /// Check the header of `bytes` (as [`Message::parse`] does: magic, version, a size
    /// within the buffer) and own the message, cut to its declared size. Copies nothing.
    pub fn from_bytes(bytes: impl Into<Bytes>) -> Result<Self, ParseError> {
        let mut bytes = bytes.into();
        let msg = Message::parse(&bytes)?;
        let (size, root) = (msg.size(), msg.root_offset() as usize);
        bytes.truncate(size);
        Ok(Owned {
            bytes,
            root,
            _of: PhantomData,
        })
    }

    /// As [`Owned::from_bytes`] on a copy of `buf` (one allocation): for a message that
    /// is only borrowed, e.g. the request a borrowed handler sees, that must be kept.
    pub fn copy_from_slice(buf: &[u8]) -> Result<Self, ParseError> {
        let size = Message::parse(buf)?.size();
        crate::copies::note(size);
        Owned::from_bytes(Bytes::copy_from_slice(&buf[..size]))
    }

    /// The message as a parsed [`Message`] view (the header is not checked again).
    #[inline]
    pub fn message(&self) -> Message<'_> {
        Message::from_checked(&self.bytes)
    }

    /// The root object (null if the header's root offset is out of range, as always).
    #[inline]
    pub fn root(&self) -> Object<'_> {
        Object::at(&self.bytes, self.root)
    }

    /// The message bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The message bytes, shared (a reference count, no copy).
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// Give up the typed view; the message bytes, without a copy.
    pub fn into_bytes(self) -> Bytes {
        self.bytes
    }

    /// Share a part of this message that a reader handed out (a `bytes` or `text`
    /// field's payload, a `bytes_fixed`) as [`Bytes`], without copying: the result keeps
    /// the whole message alive. Empty for an empty `part` or one that does not lie in
    /// this message.
    pub fn share(&self, part: &[u8]) -> Bytes {
        share(&self.bytes, part)
    }
}

/// `part` of `bytes` as a [`Bytes`] sharing them (no copy); empty for an empty `part` or
/// one that does not lie in `bytes` (never a panic, unlike `Bytes::slice_ref`).
pub(crate) fn share(bytes: &Bytes, part: &[u8]) -> Bytes {
    match range_in(bytes, part) {
        range if range.is_empty() => Bytes::new(),
        range => bytes.slice(range),
    }
}

/// Where `part` lies in `bytes`: an empty range for an empty `part` or one that does not
/// lie in `bytes`.
#[inline]
pub(crate) fn range_in(bytes: &[u8], part: &[u8]) -> core::ops::Range<usize> {
    let at = (part.as_ptr() as usize).wrapping_sub(bytes.as_ptr() as usize);
    match at.checked_add(part.len()) {
        Some(end) if !part.is_empty() && at < bytes.len() && end <= bytes.len() => at..end,
        _ => 0..0,
    }
}

/// `bytes` cut down to `range` in place: no copy and, unlike [`Bytes::slice`], no
/// reference count taken. Empty for an empty range or one past the end.
#[cfg_attr(not(feature = "server"), allow(dead_code))]
#[inline]
pub(crate) fn cut(mut bytes: Bytes, range: core::ops::Range<usize>) -> Bytes {
    if range.is_empty() || range.end > bytes.len() {
        return Bytes::new();
    }
    bytes.truncate(range.end);
    bytes::Buf::advance(&mut bytes, range.start);
    bytes
}

impl<T: ZapStruct> Owned<T> {
    /// The zero-copy reader of the root object, borrowing from `self`.
    #[inline]
    pub fn get(&self) -> T::Reader<'_> {
        T::reader(self.root())
    }

    /// Copy every field into the owned value (what a client's owned-struct API returns).
    pub fn to_value(&self) -> T {
        T::from_reader(self.get())
    }

    /// Encode `value` as a message that owns its bytes: one buffer, frozen into
    /// [`Bytes`] without a copy ([`Builder::finish_bytes`]).
    pub fn encode(value: &T) -> Result<Self, BuildError> {
        let mut b = Builder::with_capacity(T::SIZE + 64);
        value.encode(&mut b)?;
        let bytes = b.finish_bytes()?;
        // The builder wrote a sound header: its root offset is what `from_bytes` would
        // read.
        let root = Message::from_checked(&bytes).root_offset() as usize;
        Ok(Owned {
            bytes,
            root,
            _of: PhantomData,
        })
    }
}

/// The reader's fields (generated readers show every field), not the bytes.
impl<T: ZapStruct> core::fmt::Debug for Owned<T>
where
    for<'a> T::Reader<'a>: core::fmt::Debug,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("Owned").field(&self.get()).finish()
    }
}

impl<T> From<Owned<T>> for Bytes {
    fn from(owned: Owned<T>) -> Bytes {
        owned.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DecodeBudget, ObjectBuilder};

    #[derive(Debug, PartialEq)]
    struct Pair {
        id: u64,
        name: String,
    }

    impl ZapStruct for Pair {
        const NAME: &'static str = "Pair";
        const SIZE: usize = 16;
        const JSON_FIELDS: &'static [&'static str] = &["id", "name"];
        const INLINE: bool = false;
        type Reader<'a> = Object<'a>;
        fn from_reader_in(r: Object<'_>, _: &mut DecodeBudget) -> Self {
            Pair {
                id: r.u64(0),
                name: r.text(8).to_owned(),
            }
        }
        fn write_fields(&self, obj: &mut ObjectBuilder<'_>) {
            obj.set_u64(0, self.id);
            obj.set_text(8, &self.name);
        }
    }

    fn pair() -> Pair {
        Pair {
            id: 42,
            name: "forty-two".into(),
        }
    }

    #[test]
    fn a_frame_is_cut_to_its_payload_in_place() {
        let frame = Bytes::from_static(b"head:payload:tail");
        let part = &frame[5..12];
        let range = range_in(&frame, part);
        assert_eq!(range, 5..12);
        assert_eq!(cut(frame.clone(), range), Bytes::from_static(b"payload"));
        // Nothing outside the frame, and nothing empty, is cut out of it.
        assert_eq!(range_in(&frame, b"payload"), 0..0);
        assert_eq!(range_in(&frame, &frame[3..3]), 0..0);
        assert!(cut(frame.clone(), 0..0).is_empty());
        assert!(cut(frame.clone(), 10..40).is_empty());
        assert_eq!(cut(frame.clone(), 0..frame.len()), frame);
    }

    #[test]
    fn reads_what_was_encoded_and_shares_fields() {
        let owned = Owned::encode(&pair()).unwrap();
        assert_eq!(owned.as_bytes(), &pair().to_bytes().unwrap()[..]);
        assert_eq!(owned.to_value(), pair());
        let name = owned.get().text(8);
        let shared = owned.share(name.as_bytes());
        assert_eq!(&shared[..], b"forty-two");
        // The shared slice is the message's memory, not a copy.
        assert_eq!(shared.as_ptr(), name.as_ptr());
        assert!(owned.share(b"elsewhere").is_empty());
        assert!(owned.share(&[]).is_empty());
    }

    #[test]
    fn header_is_checked_and_tail_cut_off() {
        let mut wire = pair().to_bytes().unwrap();
        let size = wire.len();
        wire.extend_from_slice(b"trailing");
        let owned = Owned::<Pair>::from_bytes(wire.clone()).unwrap();
        assert_eq!(owned.as_bytes().len(), size);
        assert_eq!(owned.message().size(), size);
        assert_eq!(
            Owned::<Pair>::from_bytes(&b"ZAP"[..]).err(),
            Some(ParseError::TooShort { len: 3 })
        );
        wire[0] = b'X';
        assert!(matches!(
            Owned::<Pair>::from_bytes(wire).err(),
            Some(ParseError::BadMagic { .. })
        ));
        let copied = Owned::<Pair>::copy_from_slice(&pair().to_bytes().unwrap()).unwrap();
        assert_eq!(copied.to_value(), pair());
    }

    #[test]
    fn is_send_sync_static() {
        fn check<X: Send + Sync + 'static>() {}
        check::<Owned<Pair>>();
    }
}

//! What generated code (from `zapc` or `#[derive(Zap)]`) implements, and the list
//! helpers it calls, so the per-struct code stays small.

use core::marker::PhantomData;

use crate::build::{Builder, ListRef, ObjectBuilder};
use crate::error::ParseError;
use crate::read::{Message, Messages, Object, StridedObjects};

/// A struct of a schema: an owned Rust value that knows its layout.
///
/// Generated for every schema struct and by `#[derive(Zap)]`. The reader type is the zero-copy view; the owned
/// type converts to and from it and writes itself through a [`Builder`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a ZAP struct",
    label = "not a ZAP struct",
    note = "derive it with `#[derive(Zap)]`, or generate it from a schema with zapc"
)]
pub trait ZapStruct: Sized {
    /// The schema name (`BalanceRequest`).
    const NAME: &'static str;
    /// Size of the fixed section in bytes.
    const SIZE: usize;
    /// Field names in the JSON mapping, in declaration order (for JSON-RPC positional
    /// parameters).
    const JSON_FIELDS: &'static [&'static str];
    /// True when every field is a scalar or `bytes_fixed`: a `list<Self>` is strided.
    const INLINE: bool;
    /// The zero-copy reader.
    type Reader<'a>: Copy;

    /// View an object as this struct.
    fn reader(obj: Object<'_>) -> Self::Reader<'_>;
    /// Copy everything the reader sees into an owned value, within a [`DecodeBudget`]
    /// sized for the reader's message (generated code builds it).
    fn from_reader(reader: Self::Reader<'_>) -> Self;
    /// Copy everything the reader sees into an owned value, decoding nested structs
    /// through `budget` (see [`DecodeBudget::child`]). Generated code implements both
    /// methods; a hand-written struct without nested structs can keep this default.
    fn from_reader_in(reader: Self::Reader<'_>, budget: &mut DecodeBudget) -> Self {
        let _ = budget;
        Self::from_reader(reader)
    }
    /// Set every field on an open object, in declaration order (so flat messages are
    /// byte-identical to the other runtimes).
    fn write_fields(&self, obj: &mut ObjectBuilder<'_>);

    /// Build this value as a (non-root) object; returns its position.
    fn write(&self, b: &mut Builder) -> u32 {
        let mut obj = b.start_object(Self::SIZE);
        self.write_fields(&mut obj);
        obj.finish()
    }

    /// Encode as a complete message into `b` (cleared first).
    fn encode<'b>(&self, b: &'b mut Builder) -> &'b [u8] {
        b.clear();
        let mut obj = b.start_object(Self::SIZE);
        self.write_fields(&mut obj);
        obj.finish_as_root();
        b.finish()
    }

    /// Encode as a complete message in a new vector.
    fn to_bytes(&self) -> Vec<u8> {
        let mut b = Builder::new();
        self.encode(&mut b);
        b.take_bytes()
    }

    /// Decode a complete message into an owned value.
    fn decode(buf: &[u8]) -> Result<Self, ParseError> {
        let msg = Message::parse(buf)?;
        Ok(Self::from_reader(Self::reader(msg.root())))
    }
}

/// Write a `list<T>` of structs in the shape the spec assigns: strided for all-inline
/// structs, framed (each element a complete message) otherwise.
pub fn write_struct_list<T: ZapStruct>(b: &mut Builder, items: &[T]) -> ListRef {
    if T::INLINE {
        let mut list = b.start_list(T::SIZE);
        for item in items {
            let mut obj = list.push_struct();
            item.write_fields(&mut obj);
            obj.finish();
        }
        list.finish()
    } else {
        let mut list = b.start_list(0);
        for item in items {
            list.push_message(|b| {
                let mut obj = b.start_object(T::SIZE);
                item.write_fields(&mut obj);
                obj.finish_as_root();
            });
        }
        list.finish()
    }
}

/// Write a `list<ptr<T>>`: the slots first, then each non-null target.
pub fn write_pointer_list<T: ZapStruct>(b: &mut Builder, items: &[Option<T>]) -> ListRef {
    let slots = b.start_pointer_list(items.len() as u32);
    for (i, item) in items.iter().enumerate() {
        if let Some(item) = item {
            let at = item.write(b);
            b.set_pointer(slots, i as u32, at);
        }
    }
    slots.list(b)
}

/// Write a strided list of scalars.
pub fn write_scalar_list<T: crate::Scalar>(b: &mut Builder, items: &[T]) -> ListRef {
    let mut list = b.start_list(T::WIDTH);
    for item in items {
        list.push(*item);
    }
    list.finish()
}

/// Write a strided list of `bytes_fixed[N]`.
pub fn write_fixed_list<const N: usize>(b: &mut Builder, items: &[[u8; N]]) -> ListRef {
    let mut list = b.start_list(N);
    for item in items {
        list.push_raw(item);
    }
    list.finish()
}

/// Write a framed list of `text` or `bytes`.
pub fn write_framed_list<T: AsRef<[u8]>>(b: &mut Builder, items: &[T]) -> ListRef {
    let mut list = b.start_list(0);
    for item in items {
        list.push_framed(item.as_ref());
    }
    list.finish()
}

/// Write a framed list of `text`.
pub fn write_text_list<T: AsRef<str>>(b: &mut Builder, items: &[T]) -> ListRef {
    let mut list = b.start_list(0);
    for item in items {
        list.push_framed(item.as_ref().as_bytes());
    }
    list.finish()
}

/// How much a decode into owned values may build.
///
/// Messages are graphs: a hostile one can point a child at its parent (an endless chain)
/// or have many pointers share one object (exponential fan-out). Decoding into owned
/// values therefore stops at [`DecodeBudget::MAX_DEPTH`] levels of nested structs and
/// after a number of struct values proportional to the message size (twice its length
/// plus 64, more than any message without sharing can hold). Past the budget, a child
/// reads as null and a list of structs ends early. Zero-copy readers are not affected:
/// they build nothing.
#[derive(Debug, Clone)]
pub struct DecodeBudget {
    depth: u32,
    nodes: usize,
}

impl DecodeBudget {
    /// Most levels of nested structs decoded below the root.
    pub const MAX_DEPTH: u32 = 64;

    /// The budget for decoding a message of `len` bytes.
    pub fn for_message(len: usize) -> Self {
        DecodeBudget {
            depth: 0,
            nodes: len.saturating_mul(2).saturating_add(64),
        }
    }

    /// Decode one nested struct, or `None` once the depth or node budget is spent.
    #[inline]
    pub fn child<T: ZapStruct>(&mut self, reader: T::Reader<'_>) -> Option<T> {
        if self.depth >= Self::MAX_DEPTH || self.nodes == 0 {
            return None;
        }
        self.nodes -= 1;
        self.depth += 1;
        let value = T::from_reader_in(reader, self);
        self.depth -= 1;
        Some(value)
    }
}

/// View a `list<T>` of structs as readers, in the shape the spec assigns, chosen by
/// `T::INLINE` at compile time: strided for all-inline structs, framed otherwise.
/// Zero-copy and allocation-free. Generated getters call this, so code generated for one
/// struct needs no fact about another struct's layout.
pub fn struct_list<T: ZapStruct>(list: crate::List<'_>) -> Structs<'_, T> {
    let objects = if T::INLINE {
        StructObjects::Strided(list.objects(T::SIZE))
    } else {
        StructObjects::Framed(list.messages())
    };
    Structs {
        objects,
        _elem: PhantomData,
    }
}

/// Iterator over a `list<T>` of structs, yielding `T`'s readers. See [`struct_list`].
pub struct Structs<'a, T> {
    objects: StructObjects<'a>,
    _elem: PhantomData<fn() -> T>,
}

#[derive(Clone, Debug)]
enum StructObjects<'a> {
    Strided(StridedObjects<'a>),
    Framed(Messages<'a>),
}

impl<T> Clone for Structs<'_, T> {
    fn clone(&self) -> Self {
        Structs {
            objects: self.objects.clone(),
            _elem: PhantomData,
        }
    }
}

impl<T> core::fmt::Debug for Structs<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Structs")
            .field("objects", &self.objects)
            .finish()
    }
}

impl<'a, T: ZapStruct> Iterator for Structs<'a, T> {
    type Item = T::Reader<'a>;

    #[inline]
    fn next(&mut self) -> Option<T::Reader<'a>> {
        let obj = match &mut self.objects {
            StructObjects::Strided(it) => it.next()?,
            StructObjects::Framed(it) => it.next()?,
        };
        Some(T::reader(obj))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.objects {
            StructObjects::Strided(it) => it.size_hint(),
            StructObjects::Framed(it) => it.size_hint(),
        }
    }
}

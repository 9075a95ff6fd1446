//! What generated code (from `zapc` or `#[derive(Zap)]`) implements, and the list
//! helpers it calls, so the per-struct code stays small.

use core::marker::PhantomData;

use crate::builder::{Builder, ListRef, ObjectBuilder};
use crate::error::{BuildError, ParseError};
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
    type Reader<'a>: StructReader<'a>;

    /// View an object as this struct.
    #[inline]
    fn reader(obj: Object<'_>) -> Self::Reader<'_> {
        StructReader::from_object(obj)
    }
    /// Copy everything the reader sees into an owned value, within a [`DecodeBudget`]
    /// sized for the reader's message.
    fn from_reader(reader: Self::Reader<'_>) -> Self {
        let mut budget = DecodeBudget::for_message(reader.as_object().message_bytes().len());
        Self::from_reader_in(reader, &mut budget)
    }
    /// Copy everything the reader sees into an owned value, decoding nested structs
    /// through `budget` (see [`DecodeBudget::child`]): what an implementation writes.
    fn from_reader_in(reader: Self::Reader<'_>, budget: &mut DecodeBudget) -> Self;
    /// Set every field on an open object. Messages are byte-identical to the other
    /// runtimes' when the `text` and `bytes` payloads come in declaration order after
    /// the object's children: setting every field in declaration order with
    /// [`ObjectBuilder::set_bytes`] gives that, and so does what generated code does,
    /// building children and lists first and then setting the payloads with
    /// [`ObjectBuilder::set_bytes_last`] (one copy each instead of two).
    fn write_fields(&self, obj: &mut ObjectBuilder<'_>);

    /// Build this value as a (non-root) object; returns its position, typed so that it
    /// can only be linked where a `Self` belongs.
    #[must_use = "a child object is reachable only once a parent points at its position"]
    fn write(&self, b: &mut Builder) -> Offset<Self> {
        let mut obj = b.start_object(Self::SIZE);
        self.write_fields(&mut obj);
        Offset::new(obj.finish())
    }

    /// Encode as a complete message into `b` (cleared first). Fails only for a message
    /// over the builder's limit ([`Builder::max_len`]).
    fn encode<'b>(&self, b: &'b mut Builder) -> Result<&'b [u8], BuildError> {
        b.clear();
        let mut obj = b.start_object(Self::SIZE);
        self.write_fields(&mut obj);
        obj.finish_as_root();
        b.finish()
    }

    /// Encode as a complete message in a new vector (allocates; [`ZapStruct::encode`]
    /// into a pooled builder does not).
    fn to_bytes(&self) -> Result<Vec<u8>, BuildError> {
        let mut b = Builder::new();
        self.encode(&mut b)?;
        Ok(b.take_bytes())
    }

    /// Decode a complete message into an owned value.
    fn decode(buf: &[u8]) -> Result<Self, ParseError> {
        let msg = Message::parse(buf)?;
        Ok(Self::from_reader(Self::reader(msg.root())))
    }
}

/// A typed zero-copy view of one object: what every generated `<Struct>Reader` is, and
/// what [`ZapStruct::Reader`] must be. [`Object`] itself is one (a view with no types).
///
/// Generated readers also have these methods as inherent methods, so they need no
/// import; the trait is for code generic over structs.
pub trait StructReader<'a>: Copy {
    /// View an object (a message root, a pointer's target or a list element) as this
    /// struct. Never fails: a short object reads its missing fields as zero.
    fn from_object(obj: Object<'a>) -> Self;
    /// View a strided list element whose fixed section the list has already found in
    /// the message (see [`StridedObjects::fold_fixed`]); readers that check it once
    /// (generated ones) skip that check.
    #[doc(hidden)]
    #[inline(always)]
    fn from_element(obj: Object<'a>, fixed: Option<&'a [u8]>) -> Self {
        let _ = fixed;
        Self::from_object(obj)
    }
    /// The underlying object view.
    fn as_object(&self) -> Object<'a>;
    /// Parse a complete message (checking its header) and view its root.
    fn parse(buf: &'a [u8]) -> Result<Self, ParseError> {
        Message::parse(buf).map(|m| Self::from_object(m.root()))
    }
}

impl<'a> StructReader<'a> for Object<'a> {
    #[inline]
    fn from_object(obj: Object<'a>) -> Self {
        obj
    }
    #[inline]
    fn as_object(&self) -> Object<'a> {
        *self
    }
}

/// A ZAP struct that can be the child of another (a pointer target or a list element):
/// every struct generated by zapc or `#[derive(Zap)]` implements it, along with the JSON
/// mapping it needs as a field.
///
/// The derive bounds the impls of a struct on its children's `NestedStruct`, so that a
/// child that is not a ZAP struct is reported once, at the field, rather than at every
/// use of it in the expansion.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a ZAP struct",
    label = "not a ZAP struct",
    note = "derive it with `#[derive(Zap)]`, or generate it from a schema with zapc"
)]
pub trait NestedStruct: ZapStruct + serde::Serialize + serde::de::DeserializeOwned {}

/// The position of a finished child object of type `T` in the message being built: what a
/// generated builder's `finish()` returns and its `set_<field>_at` takes, so a child can
/// only be linked into a slot of its own type.
pub struct Offset<T> {
    position: u32,
    _of: PhantomData<fn() -> T>,
}

impl<T> Offset<T> {
    /// Wrap a position returned by [`ObjectBuilder::finish`] for an object of type `T`.
    #[inline]
    pub const fn new(position: u32) -> Self {
        Offset {
            position,
            _of: PhantomData,
        }
    }

    /// The position, relative to the message start, for [`ObjectBuilder::set_object`].
    #[inline]
    pub const fn position(self) -> u32 {
        self.position
    }
}

impl<T> Clone for Offset<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Offset<T> {}

impl<T> PartialEq for Offset<T> {
    fn eq(&self, other: &Self) -> bool {
        self.position == other.position
    }
}

impl<T> Eq for Offset<T> {}

impl<T> core::fmt::Debug for Offset<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "Offset<{}>({})",
            core::any::type_name::<T>(),
            self.position
        )
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
            // Strided elements sit in the list itself: nothing points at them.
            let _ = obj.finish();
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
    // A list of more than u32::MAX pointers cannot fit a message: the count saturates
    // and the builder refuses the message when it finishes.
    let slots = b.start_pointer_list(u32::try_from(items.len()).unwrap_or(u32::MAX));
    for (i, item) in (0..=u32::MAX).zip(items) {
        if let Some(item) = item {
            let at = item.write(b);
            b.set_pointer(slots, i, at.position());
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
        self.enter(|budget| T::from_reader_in(reader, budget))
    }

    /// Decode a list of structs, one value per reader, until the list or the budget
    /// ends (see [`DecodeBudget::child`]). Room for the elements the list is known to
    /// hold is reserved up front, never more than the budget has left.
    pub fn children<'a, T: ZapStruct>(
        &mut self,
        readers: impl Iterator<Item = T::Reader<'a>>,
    ) -> Vec<T> {
        let mut out = Vec::with_capacity(readers.size_hint().0.min(self.nodes));
        let mut spent = false;
        // `for_each`, not a `while let`: a struct list's own loop is its fastest.
        readers.for_each(|r| {
            if !spent {
                match self.child::<T>(r) {
                    Some(v) => out.push(v),
                    None => spent = true,
                }
            }
        });
        out
    }

    /// As [`DecodeBudget::children`] for a `list<ptr<T>>`: a null element decodes as
    /// `None` and spends nothing.
    pub fn optional_children<'a, T: ZapStruct>(
        &mut self,
        readers: impl Iterator<Item = Option<T::Reader<'a>>>,
    ) -> Vec<Option<T>> {
        let mut out = Vec::with_capacity(readers.size_hint().0.min(self.nodes));
        let mut spent = false;
        readers.for_each(|r| {
            if !spent {
                match r.map(|r| self.child::<T>(r)) {
                    None => out.push(None),
                    Some(Some(v)) => out.push(Some(v)),
                    Some(None) => spent = true,
                }
            }
        });
        out
    }

    /// Run `decode` one level deeper, counting one more struct value, or return `None`
    /// once the depth or node budget is spent. For decoders without generated types
    /// (`zapc decode`), which walk a message by its schema at run time.
    #[inline]
    pub fn enter<R>(&mut self, decode: impl FnOnce(&mut Self) -> R) -> Option<R> {
        if self.depth >= Self::MAX_DEPTH || self.nodes == 0 {
            return None;
        }
        self.nodes -= 1;
        self.depth += 1;
        let value = decode(self);
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

/// Iterator over a `list<ptr<T>>`, yielding `None` for a null element and `T`'s reader
/// otherwise. `nth` (and so `.nth(i)` to reach element `i`) is O(1): each element is one
/// 4-byte offset in the list.
pub struct PointerStructs<'a, T> {
    pointers: crate::read::Pointers<'a>,
    _elem: PhantomData<fn() -> T>,
}

impl<'a, T> PointerStructs<'a, T> {
    /// The typed view of a pointer list's elements.
    pub fn new(pointers: crate::read::Pointers<'a>) -> Self {
        PointerStructs {
            pointers,
            _elem: PhantomData,
        }
    }
}

impl<T> Clone for PointerStructs<'_, T> {
    fn clone(&self) -> Self {
        PointerStructs::new(self.pointers.clone())
    }
}

impl<T> core::fmt::Debug for PointerStructs<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PointerStructs")
            .field("remaining", &self.pointers.len())
            .finish()
    }
}

impl<'a, T: ZapStruct> PointerStructs<'a, T> {
    fn view(obj: Object<'a>) -> Option<T::Reader<'a>> {
        (!obj.is_null()).then(|| T::reader(obj))
    }
}

impl<'a, T: ZapStruct> Iterator for PointerStructs<'a, T> {
    type Item = Option<T::Reader<'a>>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.pointers.next().map(Self::view)
    }

    #[inline]
    fn nth(&mut self, n: usize) -> Option<Self::Item> {
        self.pointers.nth(n).map(Self::view)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.pointers.size_hint()
    }
}

impl<T: ZapStruct> ExactSizeIterator for PointerStructs<'_, T> {}

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

    /// Strided elements come with their fixed sections, checked against the message
    /// once for the whole list, so an internal loop over the readers (`for_each`,
    /// `fold`, `sum`, also after `map` or `filter`) does not find each element in the
    /// message again.
    #[inline]
    fn fold<B, F>(self, init: B, mut f: F) -> B
    where
        F: FnMut(B, Self::Item) -> B,
    {
        match self.objects {
            StructObjects::Strided(it) => it.fold_fixed(init, |acc, obj, fixed| {
                f(
                    acc,
                    <T::Reader<'a> as StructReader<'a>>::from_element(obj, fixed),
                )
            }),
            StructObjects::Framed(it) => it.fold(init, |acc, obj| f(acc, T::reader(obj))),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.objects {
            StructObjects::Strided(it) => it.size_hint(),
            StructObjects::Framed(it) => it.size_hint(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An all-inline struct of one `u64`, written by hand.
    #[derive(Debug, PartialEq)]
    struct Id(u64);

    impl ZapStruct for Id {
        const NAME: &'static str = "Id";
        const SIZE: usize = 8;
        const JSON_FIELDS: &'static [&'static str] = &["id"];
        const INLINE: bool = true;
        type Reader<'a> = Object<'a>;
        fn from_reader_in(r: Object<'_>, _: &mut DecodeBudget) -> Self {
            Id(r.u64(0))
        }
        fn write_fields(&self, obj: &mut ObjectBuilder<'_>) {
            obj.set_u64(0, self.0);
        }
    }

    /// A message whose root holds `list<Id>` of `n` elements at offset 0.
    fn ids(n: u64) -> Vec<u8> {
        let mut b = Builder::new();
        let list = write_struct_list(&mut b, &(0..n).map(Id).collect::<Vec<_>>());
        let mut root = b.start_object(8);
        root.set_list(0, list);
        root.finish_as_root();
        b.finish().unwrap().to_vec()
    }

    #[test]
    fn a_struct_list_decodes_whole_with_its_room_reserved_once() {
        let msg = ids(100);
        let list = Message::parse(&msg).unwrap().root().list(0);
        let mut budget = DecodeBudget::for_message(msg.len());
        let got = budget.children::<Id>(struct_list::<Id>(list));
        assert_eq!(got, (0..100).map(Id).collect::<Vec<_>>());
        assert_eq!(
            got.capacity(),
            100,
            "reserved from the list's verified length"
        );
    }

    #[test]
    fn a_struct_list_ends_where_the_budget_does_and_reserves_no_more() {
        let msg = ids(100);
        let list = Message::parse(&msg).unwrap().root().list(0);
        let mut budget = DecodeBudget { depth: 0, nodes: 7 };
        let got = budget.children::<Id>(struct_list::<Id>(list));
        assert_eq!(got, (0..7).map(Id).collect::<Vec<_>>());
        assert!(
            got.capacity() <= 7,
            "reserved {} for 7 nodes",
            got.capacity()
        );
        assert!(budget.child::<Id>(list.object(0, 8)).is_none(), "spent");

        let mut deep = DecodeBudget {
            depth: DecodeBudget::MAX_DEPTH,
            nodes: 1000,
        };
        assert!(deep.children::<Id>(struct_list::<Id>(list)).is_empty());
    }

    #[test]
    fn a_pointer_list_keeps_its_nulls_and_stops_where_the_budget_does() {
        let mut b = Builder::new();
        let targets: Vec<u32> = (0..4).map(|i| Id(i).write(&mut b).position()).collect();
        let slots = b.start_pointer_list(6);
        for (slot, target) in [
            (0, targets[0]),
            (2, targets[1]),
            (3, targets[2]),
            (5, targets[3]),
        ] {
            b.set_pointer(slots, slot, target);
        }
        let list = slots.list(&b);
        let mut root = b.start_object(8);
        root.set_list(0, list);
        root.finish_as_root();
        let msg = b.finish().unwrap().to_vec();
        let list = Message::parse(&msg).unwrap().root().list(0);
        let readers = || PointerStructs::<Id>::new(list.pointers());

        let whole = DecodeBudget::for_message(msg.len()).optional_children::<Id>(readers());
        let want = [
            Some(Id(0)),
            None,
            Some(Id(1)),
            Some(Id(2)),
            None,
            Some(Id(3)),
        ];
        assert_eq!(whole, want);

        let mut three = DecodeBudget { depth: 0, nodes: 3 };
        let cut = three.optional_children::<Id>(readers());
        assert_eq!(
            cut,
            want[..5],
            "ends at the fourth struct, the nulls before it kept"
        );
    }
}

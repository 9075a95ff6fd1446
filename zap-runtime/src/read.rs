//! Zero-copy views over a message: [`Message`], [`Object`], [`List`].
//!
//! Every read follows the bounds rules of spec §3, shared with the Go and Python
//! runtimes: all bounds are checked against the message size (not the struct size), and
//! any read that fails yields the zero value (0, `false`, empty, null object, empty list).
//! Nothing here allocates, copies or panics.

use crate::error::ParseError;
use crate::scalar::Scalar;
use crate::wire::{at, Header};
use crate::{HEADER_SIZE, MAGIC, VERSION1, VERSION2};

/// A parsed message: the header checked, the buffer cut to the declared size.
#[derive(Clone, Copy)]
pub struct Message<'a> {
    buf: &'a [u8],
}

/// Shows the header's facts, not the bytes.
impl core::fmt::Debug for Message<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Message")
            .field("size", &self.buf.len())
            .field("root", &self.root_offset())
            .finish()
    }
}

impl<'a> Message<'a> {
    /// Check the header (spec §1) and view `buf[..size]` as a message.
    ///
    /// Refuses fewer than 16 bytes, a wrong magic, a version other than 1 or 2, and a
    /// declared size below 16 or past the end of `buf`. Bytes after `size` are ignored.
    ///
    /// `#[inline]`: called once per message by every generated reader, from other
    /// crates; out of line, its `Result` (with the error's fields) came back through
    /// memory on every call.
    #[inline]
    pub fn parse(buf: &'a [u8]) -> Result<Self, ParseError> {
        let header: &[u8; HEADER_SIZE] = buf
            .first_chunk()
            .ok_or(ParseError::TooShort { len: buf.len() })?;
        let (magic, Header { version, size, .. }) = Header::read(header);
        if magic != MAGIC {
            return Err(ParseError::BadMagic { found: magic });
        }
        if version != VERSION1 && version != VERSION2 {
            return Err(ParseError::BadVersion { found: version });
        }
        if (size as usize) < HEADER_SIZE {
            return Err(ParseError::SizeBelowHeader { size });
        }
        let buf = buf.get(..size as usize).ok_or(ParseError::SizePastEnd {
            size,
            len: buf.len(),
        })?;
        Ok(Message { buf })
    }

    /// View `buf` as a message whose header [`Message::parse`] already accepted and
    /// which is already cut to its declared size (what [`crate::Owned`] keeps).
    #[inline]
    pub(crate) fn from_checked(buf: &'a [u8]) -> Self {
        Message { buf }
    }

    /// Header version (1 or 2).
    pub fn version(&self) -> u16 {
        u16::from_le_bytes([self.buf[at::VERSION], self.buf[at::VERSION + 1]])
    }

    /// Header flags word (the high byte is the message type; RPC envelopes use 200).
    pub fn flags(&self) -> u16 {
        u16::from_le_bytes([self.buf[at::FLAGS], self.buf[at::FLAGS + 1]])
    }

    /// Offset of the root object, as written in the header.
    pub fn root_offset(&self) -> u32 {
        let r = at::ROOT;
        u32::from_le_bytes([
            self.buf[r],
            self.buf[r + 1],
            self.buf[r + 2],
            self.buf[r + 3],
        ])
    }

    /// Total message length, header included.
    pub fn size(&self) -> usize {
        self.buf.len()
    }

    /// The message bytes (`buf[..size]`).
    pub fn as_bytes(&self) -> &'a [u8] {
        self.buf
    }

    /// The root object. A root offset outside `[16, size)` gives the null object, the
    /// same rule as a struct pointer.
    #[inline]
    pub fn root(&self) -> Object<'a> {
        Object::at(self.buf, self.root_offset() as usize)
    }
}

/// `bytes` as UTF-8: the SIMD check (std's below 64 bytes, where it is as fast), and
/// std's again only to describe a failure.
#[inline]
pub(crate) fn utf8(bytes: &[u8]) -> Result<&str, core::str::Utf8Error> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(_) => core::str::from_utf8(bytes),
    }
}

/// A view of one object's fixed section. Field getters take the schema's byte offset.
///
/// The null object (a null pointer, or any failed pointer read) reads as all zeros.
#[derive(Clone, Copy)]
pub struct Object<'a> {
    /// The whole message for a live object; empty for the null object, so that every
    /// read on it fails its bounds check and yields zero without a separate branch.
    buf: &'a [u8],
    pos: usize,
}

/// Shows where the object is, not the message it lives in (generated readers show their
/// fields).
impl core::fmt::Debug for Object<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if self.is_null() {
            f.write_str("Object(null)")
        } else {
            write!(f, "Object(@{} of {})", self.pos, self.buf.len())
        }
    }
}

impl Default for Object<'_> {
    fn default() -> Self {
        Object::NULL
    }
}

impl<'a> Object<'a> {
    /// The null object.
    pub const NULL: Object<'static> = Object { buf: &[], pos: 0 };

    /// The object at absolute position `pos` of `msg`, or null unless `16 <= pos < size`.
    #[inline]
    pub(crate) fn at(msg: &'a [u8], pos: usize) -> Object<'a> {
        if pos < HEADER_SIZE || pos >= msg.len() {
            return Object::NULL;
        }
        Object { buf: msg, pos }
    }

    /// True for the null object.
    #[inline]
    pub fn is_null(&self) -> bool {
        self.buf.is_empty()
    }

    /// Absolute position of the fixed section in the message (0 for null).
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The message this object lives in (empty for null).
    pub fn message_bytes(&self) -> &'a [u8] {
        self.buf
    }

    /// Absolute position of the field at `offset`, if it does not overflow.
    #[inline(always)]
    fn slot(&self, offset: usize) -> usize {
        // pos < 2^32 and offsets come from u32 schema values, so this cannot overflow
        // on 64-bit targets; saturate anyway so a wild offset just fails its bounds check.
        self.pos.saturating_add(offset)
    }

    /// Any scalar at `offset`; zero if it runs past the message.
    #[inline(always)]
    pub fn get<T: Scalar>(&self, offset: usize) -> T {
        T::read_at(self.buf, self.slot(offset)).unwrap_or_default()
    }

    /// `bool` at `offset` (any non-zero byte is true).
    #[inline(always)]
    pub fn bool(&self, offset: usize) -> bool {
        self.get(offset)
    }
    /// `u8` at `offset`.
    #[inline(always)]
    pub fn u8(&self, offset: usize) -> u8 {
        self.get(offset)
    }
    /// `u16` at `offset`.
    #[inline(always)]
    pub fn u16(&self, offset: usize) -> u16 {
        self.get(offset)
    }
    /// `u32` at `offset`.
    #[inline(always)]
    pub fn u32(&self, offset: usize) -> u32 {
        self.get(offset)
    }
    /// `u64` at `offset`.
    #[inline(always)]
    pub fn u64(&self, offset: usize) -> u64 {
        self.get(offset)
    }
    /// `i8` at `offset`.
    #[inline(always)]
    pub fn i8(&self, offset: usize) -> i8 {
        self.get(offset)
    }
    /// `i16` at `offset`.
    #[inline(always)]
    pub fn i16(&self, offset: usize) -> i16 {
        self.get(offset)
    }
    /// `i32` at `offset`.
    #[inline(always)]
    pub fn i32(&self, offset: usize) -> i32 {
        self.get(offset)
    }
    /// `i64` at `offset`.
    #[inline(always)]
    pub fn i64(&self, offset: usize) -> i64 {
        self.get(offset)
    }
    /// `f32` at `offset`.
    #[inline(always)]
    pub fn f32(&self, offset: usize) -> f32 {
        self.get(offset)
    }
    /// `f64` at `offset`.
    #[inline(always)]
    pub fn f64(&self, offset: usize) -> f64 {
        self.get(offset)
    }

    /// `bytes_fixed[N]` at `offset`, borrowed; all zeros if it runs past the message.
    #[inline(always)]
    pub fn bytes_fixed<const N: usize>(&self, offset: usize) -> &'a [u8; N] {
        match self
            .buf
            .get(self.slot(offset)..)
            .and_then(|s| s.first_chunk::<N>())
        {
            Some(bytes) => bytes,
            None => const { &[0u8; N] },
        }
    }

    /// `bytes_fixed[n]` at `offset` as a slice; empty if it runs past the message.
    pub fn bytes_fixed_slice(&self, offset: usize, n: usize) -> &'a [u8] {
        let start = self.slot(offset);
        start
            .checked_add(n)
            .and_then(|end| self.buf.get(start..end))
            .unwrap_or_default()
    }

    /// `bytes` at `offset`: the out-of-line payload, borrowed; empty on any bounds failure.
    #[inline]
    pub fn bytes(&self, offset: usize) -> &'a [u8] {
        let slot = self.slot(offset);
        let (Some(rel), Some(len)) = (
            u32::read_at(self.buf, slot),
            u32::read_at(self.buf, slot.saturating_add(4)),
        ) else {
            return &[];
        };
        if rel == 0 {
            return &[];
        }
        // `rel` is unsigned: the payload always lies after its slot.
        let Some(start) = slot.checked_add(rel as usize) else {
            return &[];
        };
        if start < HEADER_SIZE {
            return &[];
        }
        start
            .checked_add(len as usize)
            .and_then(|end| self.buf.get(start..end))
            .unwrap_or_default()
    }

    /// `text` at `offset`. Empty on any bounds failure **and** when the payload is not
    /// valid UTF-8 (a `&str` is never built from invalid bytes); use
    /// [`Object::try_text`] to tell those apart.
    #[inline]
    pub fn text(&self, offset: usize) -> &'a str {
        self.try_text(offset).unwrap_or_default()
    }

    /// `text` at `offset`, or the UTF-8 error of its payload.
    pub fn try_text(&self, offset: usize) -> Result<&'a str, core::str::Utf8Error> {
        utf8(self.bytes(offset))
    }

    /// The child object a struct pointer at `offset` points to, or null.
    ///
    /// The pointer is signed and relative to its slot; 0 is null; the target must lie in
    /// `[16, size)`.
    #[inline]
    pub fn object(&self, offset: usize) -> Object<'a> {
        let slot = self.slot(offset);
        match i32::read_at(self.buf, slot) {
            None | Some(0) => Object::NULL,
            Some(rel) => match slot.checked_add_signed(rel as isize) {
                Some(target) => Object::at(self.buf, target),
                None => Object::NULL,
            },
        }
    }

    /// The list whose slot is at `offset`, or the empty list.
    ///
    /// The pointer is signed and relative to its slot; 0 is empty; the count must not
    /// exceed the message size and the start must lie in `[16, size)`.
    #[inline]
    pub fn list(&self, offset: usize) -> List<'a> {
        let slot = self.slot(offset);
        let (Some(rel), Some(count)) = (
            i32::read_at(self.buf, slot),
            u32::read_at(self.buf, slot.saturating_add(4)),
        ) else {
            return List::EMPTY;
        };
        if rel == 0 || count as usize > self.buf.len() {
            return List::EMPTY;
        }
        match slot.checked_add_signed(rel as isize) {
            Some(start) if (HEADER_SIZE..self.buf.len()).contains(&start) => List {
                buf: self.buf,
                pos: start,
                count: count as usize,
                max: usize::MAX,
            },
            _ => List::EMPTY,
        }
    }
}

/// An object viewed as a struct whose fixed section is `N` bytes, its bounds checked
/// once: what generated readers hold.
///
/// When the message holds all `N` bytes (the object was written with this schema or a
/// later one), the fixed section is kept as an array and every field in it is read at a
/// constant offset into that array: a load, with no bounds check left at run time. An
/// object shorter than `N` (written with an earlier schema, or null) is read through
/// [`Object`]'s per-field checks, where a field past its end reads as zero. Both give
/// the same values; the first only checks once. The rest of [`Object`]'s getters
/// (payloads, lists, children) are reached through `Deref`.
#[derive(Clone, Copy)]
pub struct Fixed<'a, const N: usize> {
    obj: Object<'a>,
    fixed: Option<&'a [u8; N]>,
}

impl<'a, const N: usize> Fixed<'a, N> {
    /// View `obj`, checking once whether its whole fixed section is in the message.
    #[inline(always)]
    pub fn new(obj: Object<'a>) -> Self {
        let fixed = obj.buf.get(obj.pos..).and_then(<[u8]>::first_chunk::<N>);
        Fixed { obj, fixed }
    }

    /// View a list element whose fixed section the list has already found in the
    /// message (`fixed`, from [`StridedObjects::fold_fixed`]); without it, as
    /// [`Fixed::new`]. `fixed` must be the object's own bytes from its position on.
    #[doc(hidden)]
    #[inline(always)]
    pub fn from_element(obj: Object<'a>, fixed: Option<&'a [u8]>) -> Self {
        debug_assert!(fixed.is_none_or(|f| obj.buf.get(obj.pos..obj.pos + f.len()) == Some(f)));
        match fixed.and_then(<[u8]>::first_chunk::<N>) {
            Some(fixed) => Fixed {
                obj,
                fixed: Some(fixed),
            },
            None => Fixed::new(obj),
        }
    }

    /// The object this views (not named `object`, which is the child-pointer getter
    /// reached through `Deref`).
    #[inline(always)]
    pub fn as_object(&self) -> Object<'a> {
        self.obj
    }

    /// Any scalar at `offset` (within the `N` bytes, as generated code asks).
    #[inline(always)]
    pub fn get<T: Scalar>(&self, offset: usize) -> T {
        match self.fixed {
            Some(fixed) => T::read_at(fixed, offset).unwrap_or_default(),
            None => self.obj.get(offset),
        }
    }

    /// `bytes_fixed[M]` at `offset` (within the `N` bytes), borrowed.
    #[inline(always)]
    pub fn bytes_fixed<const M: usize>(&self, offset: usize) -> &'a [u8; M] {
        match self.fixed {
            Some(fixed) => match fixed.get(offset..).and_then(<[u8]>::first_chunk::<M>) {
                Some(bytes) => bytes,
                None => const { &[0u8; M] },
            },
            None => self.obj.bytes_fixed(offset),
        }
    }
}

impl<'a, const N: usize> core::ops::Deref for Fixed<'a, N> {
    type Target = Object<'a>;

    #[inline(always)]
    fn deref(&self) -> &Object<'a> {
        &self.obj
    }
}

/// As the object it views.
impl<const N: usize> core::fmt::Debug for Fixed<'_, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.obj.fmt(f)
    }
}

/// A view of a list: where it starts and how many elements it claims.
///
/// Which shape it has is known from the schema, so the typed accessors ([`List::get`],
/// [`List::scalars`], [`List::objects`], [`List::framed`], [`List::messages`],
/// [`List::pointers`]) each apply their own shape's bounds rules.
#[derive(Clone, Copy)]
pub struct List<'a> {
    buf: &'a [u8],
    pos: usize,
    count: usize,
    /// At most this many elements are exposed ([`List::limit`]); `usize::MAX` if unset.
    /// Applied after the bounds rules, which always judge the count written on the wire.
    max: usize,
}

/// Shows where the list is and the count it claims, not the message it lives in.
impl core::fmt::Debug for List<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("List")
            .field("at", &self.pos)
            .field("count", &self.count)
            .finish()
    }
}

impl Default for List<'_> {
    fn default() -> Self {
        List::EMPTY
    }
}

impl<'a> List<'a> {
    /// The empty (null) list.
    pub const EMPTY: List<'static> = List {
        buf: &[],
        pos: 0,
        count: 0,
        max: usize::MAX,
    };

    /// The element count written in the slot (already checked to be at most the size),
    /// or the [`List::limit`] if that is lower.
    #[inline]
    pub fn len(&self) -> usize {
        self.count.min(self.max)
    }

    /// True for a null or zero-length list.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True for the null list (no pointer, or a pointer that failed its bounds check).
    pub fn is_null(&self) -> bool {
        self.buf.is_empty()
    }

    /// This list with at most `max` elements: every accessor and iterator of the result
    /// sees the first `min(len, max)` elements, so no more than `max` are ever iterated.
    ///
    /// Without it, a reader already iterates at most as many elements as the message
    /// has bytes (the count is checked against the size; a strided list needs `count *
    /// width` bytes, a framed element at least its 4-byte length), so work is bounded by
    /// the frame limit. `limit` is for a handler that wants a tighter, per-field bound:
    /// check [`List::len`] first to refuse an over-long list with an error (usually what
    /// an API wants), or cap it here to read a prefix.
    #[inline]
    pub fn limit(self, max: usize) -> List<'a> {
        List {
            max: self.max.min(max),
            ..self
        }
    }

    /// The number of elements a strided list of `width`-byte elements may expose: the
    /// count, unless `count * width` runs past the message, in which case 0.
    #[inline]
    fn strided_len(&self, width: usize) -> usize {
        let room = self.buf.len().saturating_sub(self.pos);
        match self.count.checked_mul(width) {
            Some(bytes) if bytes <= room => self.count.min(self.max),
            _ => 0,
        }
    }

    /// Element `i` of a strided scalar list; zero if `i` is out of range.
    #[inline]
    pub fn get<T: Scalar>(&self, i: usize) -> T {
        if i >= self.strided_len(T::WIDTH) {
            return T::default();
        }
        T::read_at(self.buf, self.pos + i * T::WIDTH).unwrap_or_default()
    }

    /// Iterate a strided scalar list.
    pub fn scalars<T: Scalar>(&self) -> Scalars<'a, T> {
        let len = self.strided_len(T::WIDTH);
        Scalars {
            buf: &self.buf[self.pos.min(self.buf.len())..],
            i: 0,
            len,
            _t: core::marker::PhantomData,
        }
    }

    /// Element `i` of a strided `bytes_fixed[N]` list; zeros if out of range.
    pub fn bytes_fixed<const N: usize>(&self, i: usize) -> &'a [u8; N] {
        if i >= self.strided_len(N) {
            return const { &[0u8; N] };
        }
        match self
            .buf
            .get(self.pos + i * N..)
            .and_then(|s| s.first_chunk::<N>())
        {
            Some(b) => b,
            None => const { &[0u8; N] },
        }
    }

    /// Iterate a strided `bytes_fixed[N]` list.
    pub fn bytes_fixed_items<const N: usize>(
        &self,
    ) -> impl ExactSizeIterator<Item = &'a [u8; N]> + Clone + 'a {
        let list = *self;
        (0..self.strided_len(N)).map(move |i| list.bytes_fixed::<N>(i))
    }

    /// Element `i` of a strided struct list whose elements are `width` bytes; null if out
    /// of range.
    pub fn object(&self, i: usize, width: usize) -> Object<'a> {
        if i >= self.strided_len(width) {
            return Object::NULL;
        }
        Object::at(self.buf, self.pos + i * width)
    }

    /// Iterate a strided struct list whose elements are `width` bytes.
    pub fn objects(&self, width: usize) -> StridedObjects<'a> {
        StridedObjects {
            list: *self,
            width,
            i: 0,
            len: self.strided_len(width),
        }
    }

    /// Iterate a framed list (`[len u32][payload]` back to back), single pass. Stops at
    /// the count or at the first element that would run past the message.
    pub fn framed(&self) -> Framed<'a> {
        Framed {
            buf: self.buf,
            pos: self.pos,
            left: self.len(),
        }
    }

    /// Iterate a framed list of `text`; an element that is not UTF-8 reads as `""`.
    pub fn texts(&self) -> Texts<'a> {
        Texts {
            inner: self.framed(),
        }
    }

    /// Iterate a framed list of structs: each payload is a complete message; its root is
    /// yielded, or the null object where the payload does not parse.
    pub fn messages(&self) -> Messages<'a> {
        Messages {
            inner: self.framed(),
        }
    }

    /// Iterate a pointer list (`list<ptr<T>>`): 4-byte signed offsets relative to their
    /// own slot; 0 or out-of-bounds targets yield the null object.
    pub fn pointers(&self) -> Pointers<'a> {
        Pointers {
            list: *self,
            i: 0,
            len: self.strided_len(4),
        }
    }
}

/// Iterator over a strided scalar list. See [`List::scalars`].
#[derive(Clone)]
pub struct Scalars<'a, T> {
    buf: &'a [u8],
    i: usize,
    len: usize,
    _t: core::marker::PhantomData<T>,
}

impl<T: Scalar> Iterator for Scalars<'_, T> {
    type Item = T;
    #[inline]
    fn next(&mut self) -> Option<T> {
        if self.i >= self.len {
            return None;
        }
        let v = T::read_at(self.buf, self.i * T::WIDTH).unwrap_or_default();
        self.i += 1;
        Some(v)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len - self.i;
        (n, Some(n))
    }
}
impl<T: Scalar> ExactSizeIterator for Scalars<'_, T> {}

/// Shows the elements still to come (a list holds at most as many as its message has
/// bytes, so this is bounded).
impl<T: Scalar + core::fmt::Debug> core::fmt::Debug for Scalars<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.clone()).finish()
    }
}

/// Iterator over a strided struct list. See [`List::objects`].
#[derive(Clone, Debug)]
pub struct StridedObjects<'a> {
    list: List<'a>,
    width: usize,
    i: usize,
    len: usize,
}

impl<'a> StridedObjects<'a> {
    /// Visit the remaining elements in order, each with its fixed section: `Some(bytes)`
    /// holds the element's `width` bytes where the whole of them is in the message (so a
    /// reader need not check them again), `None` where the element is null or runs past
    /// the message (it is then read field by field, as [`Object`] reads any object).
    ///
    /// The list's length was checked against the message once, when the iterator was
    /// made, so for a list past the header every element is a whole slice of it: the
    /// loop walks those slices instead of finding each element in the message again.
    #[doc(hidden)]
    #[inline(always)]
    pub fn fold_fixed<B>(
        self,
        init: B,
        mut f: impl FnMut(B, Object<'a>, Option<&'a [u8]>) -> B,
    ) -> B {
        let StridedObjects {
            list,
            width,
            i,
            len,
        } = self;
        let start = list.pos + i * width;
        let end = list.pos + len * width;
        // `strided_len` made `len * width` fit in the message after `pos`.
        match list.buf.get(start..end) {
            Some(elements) if width > 0 && list.pos >= HEADER_SIZE => {
                let mut pos = start;
                elements.chunks_exact(width).fold(init, |acc, fixed| {
                    let obj = Object { buf: list.buf, pos };
                    pos += width;
                    f(acc, obj, Some(fixed))
                })
            }
            _ => (i..len).fold(init, |acc, i| {
                f(acc, Object::at(list.buf, list.pos + i * width), None)
            }),
        }
    }
}

impl<'a> Iterator for StridedObjects<'a> {
    type Item = Object<'a>;
    #[inline]
    fn next(&mut self) -> Option<Object<'a>> {
        if self.i >= self.len {
            return None;
        }
        let obj = Object::at(self.list.buf, self.list.pos + self.i * self.width);
        self.i += 1;
        Some(obj)
    }
    #[inline]
    fn fold<B, F>(self, init: B, mut f: F) -> B
    where
        F: FnMut(B, Object<'a>) -> B,
    {
        self.fold_fixed(init, |acc, obj, _| f(acc, obj))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len - self.i;
        (n, Some(n))
    }
}
impl ExactSizeIterator for StridedObjects<'_> {}

/// Single-pass iterator over the payloads of a framed list. See [`List::framed`].
#[derive(Clone)]
pub struct Framed<'a> {
    buf: &'a [u8],
    pos: usize,
    left: usize,
}

/// Shows where the next element is and how many the list still claims.
impl core::fmt::Debug for Framed<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Framed")
            .field("at", &self.pos)
            .field("left", &self.left)
            .finish()
    }
}

impl<'a> Iterator for Framed<'a> {
    type Item = &'a [u8];
    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        if self.left == 0 {
            return None;
        }
        let len = u32::read_at(self.buf, self.pos)? as usize;
        let start = self.pos + 4;
        let Some(payload) = start
            .checked_add(len)
            .and_then(|end| self.buf.get(start..end))
        else {
            self.left = 0;
            return None;
        };
        self.pos = start + len;
        self.left -= 1;
        Some(payload)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.left))
    }
}

/// Iterator over a framed list of `text`. See [`List::texts`].
#[derive(Clone, Debug)]
pub struct Texts<'a> {
    inner: Framed<'a>,
}

impl<'a> Iterator for Texts<'a> {
    type Item = &'a str;
    fn next(&mut self) -> Option<&'a str> {
        self.inner.next().map(|b| utf8(b).unwrap_or_default())
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

/// Iterator over a framed list of structs. See [`List::messages`].
#[derive(Clone, Debug)]
pub struct Messages<'a> {
    inner: Framed<'a>,
}

impl<'a> Iterator for Messages<'a> {
    type Item = Object<'a>;
    fn next(&mut self) -> Option<Object<'a>> {
        let payload = self.inner.next()?;
        Some(
            Message::parse(payload)
                .map(|m| m.root())
                .unwrap_or(Object::NULL),
        )
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

/// Iterator over a pointer list. See [`List::pointers`].
#[derive(Clone, Debug)]
pub struct Pointers<'a> {
    list: List<'a>,
    i: usize,
    len: usize,
}

impl<'a> Iterator for Pointers<'a> {
    type Item = Object<'a>;
    fn next(&mut self) -> Option<Object<'a>> {
        if self.i >= self.len {
            return None;
        }
        let slot = self.list.pos + self.i * 4;
        self.i += 1;
        let target = match i32::read_at(self.list.buf, slot) {
            None | Some(0) => return Some(Object::NULL),
            Some(rel) => slot.checked_add_signed(rel as isize),
        };
        Some(target.map_or(Object::NULL, |t| Object::at(self.list.buf, t)))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len - self.i;
        (n, Some(n))
    }
    /// Element `i` is one 4-byte offset away: skipping is O(1), not `n` reads.
    #[inline]
    fn nth(&mut self, n: usize) -> Option<Object<'a>> {
        self.i = self.i.saturating_add(n).min(self.len);
        self.next()
    }
}
impl ExactSizeIterator for Pointers<'_> {}

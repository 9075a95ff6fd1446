//! [`Builder`]: writes messages the way the canonical builder does (spec §4), so flat
//! messages are byte-identical to the Go and Python runtimes.
//!
//! The buffer, the deferred-payload records and the scratch space are all reused across
//! [`Builder::clear`], so a warm builder performs no heap allocation. Every byte it emits
//! is written explicitly (padding included), so a reused buffer gives the same bytes as a
//! fresh one.

use crate::error::BuildError;
use crate::scalar::Scalar;
use crate::wire::{at, Header};
use crate::{ALIGNMENT, HEADER_SIZE, VERSION1};

/// A position or length known to be within [`Builder::MAX_LEN`] once the message passes
/// the check in [`Builder::finish`]; saturates instead of wrapping before that, so an
/// oversized message is refused there rather than written with wrapped offsets.
#[inline(always)]
fn wire_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The signed distance from `from` to `to` (both message positions), as a pointer or
/// list slot holds it; saturates like [`wire_u32`] (exact within [`Builder::MAX_LEN`]).
#[inline(always)]
fn wire_rel(to: u32, from: u32) -> i32 {
    let rel = i64::from(to) - i64::from(from);
    i32::try_from(rel).unwrap_or(if rel < 0 { i32::MIN } else { i32::MAX })
}

/// Append `payload` to the message in `buf` and point the `bytes` slot at `slot` (its
/// length already written) at it.
#[inline]
fn lay_down(buf: &mut Vec<u8>, slot: usize, payload: &[u8]) {
    crate::copies::note(payload.len());
    let data_pos = buf.len();
    buf.extend_from_slice(payload);
    wire_u32(data_pos - slot).write_at(buf, slot);
}

/// A payload whose bytes are laid down when its object finishes (spec §4 step 5).
#[derive(Clone, Copy, Debug)]
struct Deferred {
    /// Absolute position of the 8-byte slot to patch.
    slot: usize,
    /// Where the payload sits in [`Builder::scratch`].
    at: usize,
    len: usize,
}

/// Builds one ZAP message at a time into a buffer it keeps.
///
/// ```
/// use zap_runtime::Builder;
/// let mut b = Builder::new();
/// let mut req = b.start_object(36);
/// req.set_u64(0, 1);
/// req.set_u64(8, 68943);
/// req.set_bytes_fixed(16, &[0xde; 20]);
/// req.finish_as_root();
/// assert_eq!(b.finish()?.len(), 16 + 36);
/// # Ok::<(), zap_runtime::BuildError>(())
/// ```
#[derive(Clone)]
pub struct Builder {
    buf: Vec<u8>,
    /// Start of the message being written. Non-zero only while a framed list element (a
    /// complete message of its own) is built in place; positions handed out are relative
    /// to it.
    base: usize,
    root: u32,
    version: u16,
    deferred: Vec<Deferred>,
    scratch: Vec<u8>,
    /// Largest message [`Builder::finish`] accepts.
    max_len: usize,
}

/// Shows where the builder is, not the bytes it holds (which may be megabytes).
impl core::fmt::Debug for Builder {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Builder")
            .field("len", &self.buf.len())
            .field("version", &self.version)
            .field("root", &self.root)
            .field("deferred", &self.deferred.len())
            .field("max_len", &self.max_len)
            .finish()
    }
}

impl Default for Builder {
    fn default() -> Self {
        Builder::new()
    }
}

/// Where a finished list is and how many elements it has; pass it to
/// [`ObjectBuilder::set_list`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ListRef {
    /// Position of the first element, relative to the message start.
    pub offset: u32,
    /// Number of elements.
    pub count: u32,
}

/// A reserved pointer list (`list<ptr<T>>`), whose slots are filled with
/// [`Builder::set_pointer`] once the targets are built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointerListRef {
    start: usize,
    count: u32,
}

impl PointerListRef {
    /// The list, for [`ObjectBuilder::set_list`].
    pub fn list(&self, b: &Builder) -> ListRef {
        ListRef {
            offset: b.rel(self.start),
            count: self.count,
        }
    }
}

impl Builder {
    /// The largest message any builder writes: pointer and list slots hold signed 32-bit
    /// offsets, so every position in a message must be below 2^31.
    pub const MAX_LEN: usize = i32::MAX as usize;

    /// A builder with a 256-byte buffer, stamping header version 1.
    pub fn new() -> Self {
        Builder::with_capacity(256)
    }

    /// A builder whose buffer starts with `capacity` bytes.
    pub fn with_capacity(capacity: usize) -> Self {
        let mut b = Builder {
            buf: Vec::with_capacity(capacity.max(HEADER_SIZE)),
            base: 0,
            root: 0,
            version: VERSION1,
            deferred: Vec::new(),
            scratch: Vec::new(),
            max_len: Self::MAX_LEN,
        };
        b.write_header();
        b
    }

    /// Forget the message being built, keeping every buffer's capacity and the version.
    pub fn clear(&mut self) {
        self.buf.clear();
        self.deferred.clear();
        self.scratch.clear();
        self.base = 0;
        self.root = 0;
        self.write_header();
    }

    /// Stamp `version` (1 or 2) in the header of this and later messages.
    pub fn set_version(&mut self, version: u16) {
        self.version = version;
        if let Some(v) = self.buf.get_mut(4..6) {
            v.copy_from_slice(&version.to_le_bytes());
        }
    }

    /// Refuse, in [`Builder::finish`], messages over `max_len` bytes (at most
    /// [`Builder::MAX_LEN`]; larger values are clamped to it). A server can bound what a
    /// handler may answer with this.
    pub fn set_max_len(&mut self, max_len: usize) {
        self.max_len = max_len.min(Self::MAX_LEN);
    }

    /// The largest message [`Builder::finish`] accepts.
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// The header version this builder stamps.
    pub fn version(&self) -> u16 {
        self.version
    }

    fn write_header(&mut self) {
        self.base = self.buf.len();
        // Root and size are written when the message is finished.
        let header = Header {
            version: self.version,
            flags: 0,
            root: 0,
            size: 0,
        };
        self.buf.extend_from_slice(&header.to_bytes());
    }

    /// Bytes written so far (header included).
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Never true: the header is always there.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Heap bytes held by this builder (buffer plus scratch), for pool caps.
    pub fn capacity(&self) -> usize {
        self.buf.capacity()
            + self.scratch.capacity()
            + self.deferred.capacity() * core::mem::size_of::<Deferred>()
    }

    /// Position relative to the message being written.
    #[inline(always)]
    fn rel(&self, abs: usize) -> u32 {
        wire_u32(abs - self.base)
    }

    /// Pad with zeros to the next multiple of 8 from the message start.
    #[inline(always)]
    fn align(&mut self) {
        let misalign = (self.buf.len() - self.base) & (ALIGNMENT - 1);
        if misalign != 0 {
            self.buf.resize(self.buf.len() + ALIGNMENT - misalign, 0);
        }
    }

    /// Start an object whose fixed section is `size` bytes: pad to 8, zero-fill it.
    #[inline]
    pub fn start_object(&mut self, size: usize) -> ObjectBuilder<'_> {
        self.align();
        self.object_here(size)
    }

    #[inline(always)]
    fn object_here(&mut self, size: usize) -> ObjectBuilder<'_> {
        let start = self.buf.len();
        self.buf.resize(start + size, 0);
        let mark = self.deferred.len();
        ObjectBuilder {
            b: self,
            start,
            size,
            mark,
        }
    }

    /// Start a list whose elements are `elem_size` bytes apart (0 for framed lists):
    /// pads to 8.
    pub fn start_list(&mut self, elem_size: usize) -> ListBuilder<'_> {
        self.align();
        let start = self.buf.len();
        ListBuilder {
            b: self,
            start,
            elem_size,
            count: 0,
        }
    }

    /// Reserve a pointer list of `count` null slots (padded to 8). Build the targets
    /// afterwards and point the slots at them with [`Builder::set_pointer`].
    pub fn start_pointer_list(&mut self, count: u32) -> PointerListRef {
        self.align();
        let start = self.buf.len();
        let slots = usize::try_from(count).map_or(usize::MAX, |n| n.saturating_mul(4));
        // A count too large for memory cannot be a message anyway: reserve what fits the
        // limit and let `finish` refuse the message.
        let slots = slots.min(self.max_len.saturating_add(1));
        self.buf.resize(start + slots, 0);
        PointerListRef { start, count }
    }

    /// Point slot `i` of `list` at the object at `target` (0 leaves it null). Out-of-range
    /// `i` is ignored.
    pub fn set_pointer(&mut self, list: PointerListRef, i: u32, target: u32) {
        if i >= list.count {
            return;
        }
        let Some(slot) = usize::try_from(i)
            .ok()
            .and_then(|i| i.checked_mul(4))
            .map(|at| list.start + at)
            .filter(|slot| slot + 4 <= self.buf.len())
        else {
            return;
        };
        let rel = if target == 0 {
            0
        } else {
            wire_rel(target, self.rel(slot))
        };
        rel.write_at(&mut self.buf, slot);
    }

    /// Write raw bytes (padded to 8) and return their position, or 0 if empty.
    pub fn write_bytes(&mut self, data: &[u8]) -> u32 {
        if data.is_empty() {
            return 0;
        }
        self.align();
        let at = self.rel(self.buf.len());
        crate::copies::note(data.len());
        self.buf.extend_from_slice(data);
        at
    }

    /// Encode, in one copy, a message whose root object has only inline fields (scalars
    /// and `bytes_fixed`): `N` is `16 + SIZE`, and `fill` sets each field on an
    /// [`InlineObject`], a zeroed array whose header is already written. The bytes are
    /// those of `start_object(SIZE)`, the setters and [`Builder::finish`] (root 16, size
    /// `N`, flags 0), which generated code relies on for such structs; as `finish`, it
    /// refuses a message over [`Builder::max_len`] (the builder is cleared).
    ///
    /// ```
    /// use zap_runtime::Builder;
    /// let mut slow = Builder::new();
    /// let mut obj = slow.start_object(8);
    /// obj.set_u64(0, 42);
    /// obj.finish_as_root();
    /// let mut fast = Builder::new();
    /// let bytes = fast.encode_inline::<24>(|m| m.set::<u64>(0, 42))?;
    /// assert_eq!(bytes, slow.finish()?);
    /// fast.set_max_len(20);
    /// assert!(fast.encode_inline::<24>(|m| m.set::<u64>(0, 42)).is_err());
    /// # Ok::<(), zap_runtime::BuildError>(())
    /// ```
    #[inline(always)]
    pub fn encode_inline<const N: usize>(
        &mut self,
        fill: impl FnOnce(&mut InlineObject<N>),
    ) -> Result<&[u8], BuildError> {
        const {
            assert!(
                N >= HEADER_SIZE,
                "an inline message is at least its 16-byte header"
            )
        };
        if N > self.max_len {
            return Err(self.refuse(N));
        }
        let mut msg = InlineObject([0u8; N]);
        Header {
            version: self.version,
            flags: 0,
            root: wire_u32(HEADER_SIZE),
            size: wire_u32(N),
        }
        .write(&mut msg.0);
        fill(&mut msg);
        self.buf.clear();
        self.prepare_inline();
        self.buf.extend_from_slice(&msg.0);
        Ok(&self.buf)
    }

    /// Forget the deferred payloads, the scratch copies and the embedding base of a
    /// message before, and make the root the one right after the header. A finished
    /// message leaves them so; on a path that writes a whole message in a few stores,
    /// one test of all four is cheaper than four stores or four branches.
    #[inline(always)]
    fn prepare_inline(&mut self) {
        let root = wire_u32(HEADER_SIZE);
        let set =
            self.deferred.len() | self.scratch.len() | self.base | (self.root ^ root) as usize;
        if set != 0 {
            self.deferred.clear();
            self.scratch.clear();
            self.base = 0;
            self.root = root;
        }
    }

    /// Refuse a message of `len` bytes, over the limit: the builder is cleared. Out
    /// of line, so that the path that encodes stays as short as it can be.
    #[cold]
    #[inline(never)]
    fn refuse(&mut self, len: usize) -> BuildError {
        self.clear();
        BuildError::TooLarge {
            len,
            max: self.max_len,
        }
    }

    /// Finish the message: write the root offset and size. Flags stay 0. Refuses a
    /// message over [`Builder::max_len`] (whose offsets could not all be written).
    pub fn finish(&mut self) -> Result<&[u8], BuildError> {
        self.finish_with_flags(0)
    }

    /// Finish the message with the given flags word (RPC envelopes use `0xC800`).
    pub fn finish_with_flags(&mut self, flags: u16) -> Result<&[u8], BuildError> {
        let len = self.buf.len();
        if len > self.max_len {
            return Err(BuildError::TooLarge {
                len,
                max: self.max_len,
            });
        }
        flags.write_at(&mut self.buf, at::FLAGS);
        self.root.write_at(&mut self.buf, at::ROOT);
        wire_u32(len).write_at(&mut self.buf, at::SIZE);
        Ok(&self.buf)
    }

    /// Finish the message (as [`Builder::finish`]) and hand its buffer out as
    /// [`bytes::Bytes`] without copying it, for sending or keeping. The builder is left
    /// empty and ready, but without its buffer: its next message allocates a new one, so
    /// use this where the builder is not reused (a pooled builder that is reused should
    /// [`finish`](Builder::finish) and copy instead, or keep its buffer).
    pub fn finish_bytes(&mut self) -> Result<bytes::Bytes, BuildError> {
        self.finish()?;
        Ok(bytes::Bytes::from(self.take_bytes()))
    }

    /// The bytes written so far (a complete message only after `finish`).
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }

    /// Take the buffer out (a finished message), leaving the builder ready with a new
    /// buffer of the same capacity: one allocation, where growing an empty one back to
    /// that size would reallocate (and copy) at every doubling. For a builder that is
    /// reused for messages of a similar size (a server connection's, after a large
    /// answer it sends from its own buffer).
    #[cfg(feature = "server")]
    pub(crate) fn take_bytes_keeping_capacity(&mut self) -> Vec<u8> {
        let capacity = self.buf.capacity();
        let out = core::mem::replace(&mut self.buf, Vec::with_capacity(capacity));
        self.clear();
        out
    }

    /// Take the buffer out (a finished message), leaving the builder empty and ready.
    pub fn take_bytes(&mut self) -> Vec<u8> {
        let out = core::mem::take(&mut self.buf);
        self.clear();
        out
    }

    /// Lay down every payload deferred since `mark`, in setter-call order, and patch
    /// each slot's relative offset. Then forget them.
    fn flush_deferred(&mut self, mark: usize) {
        let Some(first) = self.deferred.get(mark).copied() else {
            return;
        };
        for d in &self.deferred[mark..] {
            lay_down(&mut self.buf, d.slot, &self.scratch[d.at..d.at + d.len]);
        }
        self.deferred.truncate(mark);
        self.scratch.truncate(first.at);
    }

    /// Build a complete message in place (a framed struct element): `[len u32]` then
    /// header, then whatever `f` builds; `f` must finish its root object with
    /// [`ObjectBuilder::finish_as_root`].
    fn embedded_message<R>(&mut self, f: impl FnOnce(&mut Builder) -> R) -> R {
        let len_at = self.buf.len();
        self.buf.extend_from_slice(&[0; 4]);
        let (outer_base, outer_root, outer_version) = (self.base, self.root, self.version);
        self.version = VERSION1;
        self.root = 0;
        self.write_header();
        let out = f(self);
        let size = wire_u32(self.buf.len() - self.base);
        let (base, root) = (self.base, self.root);
        root.write_at(&mut self.buf, base + at::ROOT);
        size.write_at(&mut self.buf, base + at::SIZE);
        size.write_at(&mut self.buf, len_at);
        self.base = outer_base;
        self.root = outer_root;
        self.version = outer_version;
        out
    }
}

/// Writes one object's fields. Get one from [`Builder::start_object`].
///
/// Scalars and `bytes_fixed` are written in place; `text` and `bytes` payloads are laid
/// down when the object finishes, in setter-call order, after any children built in
/// the meantime. To build a child object or list while this one is open, use
/// [`ObjectBuilder::builder`], then link it with [`ObjectBuilder::set_object`] /
/// [`ObjectBuilder::set_list`]. An object whose children are built first can set its
/// payloads last with [`ObjectBuilder::set_bytes_last`] and
/// [`ObjectBuilder::set_text_last`], which copy each payload once instead of twice and
/// write the same bytes.
pub struct ObjectBuilder<'b> {
    b: &'b mut Builder,
    start: usize,
    size: usize,
    mark: usize,
}

/// Shows the object's place and size, not the message bytes.
impl core::fmt::Debug for ObjectBuilder<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ObjectBuilder")
            .field("offset", &self.b.rel(self.start))
            .field("size", &self.size)
            .finish()
    }
}

impl<'b> ObjectBuilder<'b> {
    /// The builder, to build children while this object is open.
    pub fn builder(&mut self) -> &mut Builder {
        self.b
    }

    /// This object's position relative to the message start.
    pub fn offset(&self) -> u32 {
        self.b.rel(self.start)
    }

    /// Make sure the slot `[offset, offset + width)` exists; returns its absolute position.
    /// Slots past the fixed section grow the object, as the canonical builder does.
    #[inline(always)]
    fn slot(&mut self, offset: usize, width: usize) -> usize {
        let pos = self.start + offset;
        if pos + width > self.b.buf.len() {
            self.b.buf.resize(pos + width, 0);
        }
        pos
    }

    /// Any scalar at `offset`.
    #[inline(always)]
    pub fn set<T: Scalar>(&mut self, offset: usize, v: T) {
        let pos = self.slot(offset, T::WIDTH);
        v.write_at(&mut self.b.buf, pos);
    }

    /// `bool` at `offset` (written as 0 or 1).
    #[inline(always)]
    pub fn set_bool(&mut self, offset: usize, v: bool) {
        self.set(offset, v)
    }
    /// `u8` at `offset`.
    #[inline(always)]
    pub fn set_u8(&mut self, offset: usize, v: u8) {
        self.set(offset, v)
    }
    /// `u16` at `offset`.
    #[inline(always)]
    pub fn set_u16(&mut self, offset: usize, v: u16) {
        self.set(offset, v)
    }
    /// `u32` at `offset`.
    #[inline(always)]
    pub fn set_u32(&mut self, offset: usize, v: u32) {
        self.set(offset, v)
    }
    /// `u64` at `offset`.
    #[inline(always)]
    pub fn set_u64(&mut self, offset: usize, v: u64) {
        self.set(offset, v)
    }
    /// `i8` at `offset`.
    #[inline(always)]
    pub fn set_i8(&mut self, offset: usize, v: i8) {
        self.set(offset, v)
    }
    /// `i16` at `offset`.
    #[inline(always)]
    pub fn set_i16(&mut self, offset: usize, v: i16) {
        self.set(offset, v)
    }
    /// `i32` at `offset`.
    #[inline(always)]
    pub fn set_i32(&mut self, offset: usize, v: i32) {
        self.set(offset, v)
    }
    /// `i64` at `offset`.
    #[inline(always)]
    pub fn set_i64(&mut self, offset: usize, v: i64) {
        self.set(offset, v)
    }
    /// `f32` at `offset`.
    #[inline(always)]
    pub fn set_f32(&mut self, offset: usize, v: f32) {
        self.set(offset, v)
    }
    /// `f64` at `offset`.
    #[inline(always)]
    pub fn set_f64(&mut self, offset: usize, v: f64) {
        self.set(offset, v)
    }

    /// `bytes_fixed` at `offset`: copies `v` inline (an empty `v` writes nothing).
    #[inline(always)]
    pub fn set_bytes_fixed(&mut self, offset: usize, v: &[u8]) {
        if v.is_empty() {
            return;
        }
        let pos = self.slot(offset, v.len());
        self.b.buf[pos..pos + v.len()].copy_from_slice(v);
    }

    /// `bytes` at `offset`: writes the length now and defers the payload to `finish`.
    /// An empty `v` writes `{0, 0}` and defers nothing.
    pub fn set_bytes(&mut self, offset: usize, v: &[u8]) {
        let pos = self.slot(offset, 8);
        0u32.write_at(&mut self.b.buf, pos);
        wire_u32(v.len()).write_at(&mut self.b.buf, pos + 4);
        if v.is_empty() {
            return;
        }
        let at = self.b.scratch.len();
        crate::copies::note(v.len());
        self.b.scratch.extend_from_slice(v);
        self.b.deferred.push(Deferred {
            slot: pos,
            at,
            len: v.len(),
        });
    }

    /// `text` at `offset`: as [`ObjectBuilder::set_bytes`] with the UTF-8 bytes.
    pub fn set_text(&mut self, offset: usize, v: &str) {
        self.set_bytes(offset, v.as_bytes())
    }

    /// `bytes` at `offset`, its payload copied to the end of the message now instead of
    /// kept aside until the object finishes: one copy of `v` where
    /// [`ObjectBuilder::set_bytes`] makes two. For an object's last fields: the message
    /// is byte for byte what `set_bytes` gives as long as nothing but more `_last`
    /// payloads and scalar fields within the fixed section is written before the object
    /// finishes (children and lists are built first). Generated code sets fields in that
    /// order. Were a child built after it, the message would still be valid, with this
    /// payload before the child instead of after it. If a payload of this object is
    /// still kept aside (set by `set_bytes`), this one is kept aside too, so payloads stay
    /// in setter order.
    pub fn set_bytes_last(&mut self, offset: usize, v: &[u8]) {
        if self.b.deferred.len() > self.mark || v.is_empty() {
            return self.set_bytes(offset, v);
        }
        let pos = self.slot(offset, 8);
        wire_u32(v.len()).write_at(&mut self.b.buf, pos + 4);
        lay_down(&mut self.b.buf, pos, v);
    }

    /// `text` at `offset`: as [`ObjectBuilder::set_bytes_last`] with the UTF-8 bytes.
    pub fn set_text_last(&mut self, offset: usize, v: &str) {
        self.set_bytes_last(offset, v.as_bytes())
    }

    /// A struct pointer at `offset` to the object at `child` (0 writes null).
    pub fn set_object(&mut self, offset: usize, child: u32) {
        let pos = self.slot(offset, 4);
        let rel = if child == 0 {
            0
        } else {
            wire_rel(child, self.b.rel(pos))
        };
        rel.write_at(&mut self.b.buf, pos);
    }

    /// A list slot at `offset` (an empty list writes `{0, 0}`).
    pub fn set_list(&mut self, offset: usize, list: ListRef) {
        let pos = self.slot(offset, 8);
        let (rel, count) = if list.offset == 0 || list.count == 0 {
            (0, 0)
        } else {
            (wire_rel(list.offset, self.b.rel(pos)), list.count)
        };
        rel.write_at(&mut self.b.buf, pos);
        count.write_at(&mut self.b.buf, pos + 4);
    }

    /// Finish the object: lay down its deferred payloads and patch their offsets.
    /// Returns its position, for a parent's [`ObjectBuilder::set_object`].
    #[must_use = "a child object is reachable only once a parent points at its position"]
    pub fn finish(self) -> u32 {
        self.finish_inner().1
    }

    /// Finish the object and make it the message root.
    pub fn finish_as_root(self) -> u32 {
        let (b, at) = self.finish_inner();
        b.root = at;
        at
    }

    /// Finish the object as the root and the message with it; returns the message bytes,
    /// or why the message cannot be written (see [`Builder::finish`]).
    pub fn finish_message(self) -> Result<&'b [u8], BuildError> {
        let (b, at) = self.finish_inner();
        b.root = at;
        b.finish()
    }

    fn finish_inner(mut self) -> (&'b mut Builder, u32) {
        let size = self.size;
        self.slot(0, size);
        let ObjectBuilder { b, start, mark, .. } = self;
        b.flush_deferred(mark);
        let at = b.rel(start);
        (b, at)
    }
}

/// Appends the elements of one list. Get one from [`Builder::start_list`].
pub struct ListBuilder<'b> {
    b: &'b mut Builder,
    start: usize,
    elem_size: usize,
    count: u32,
}

/// Shows the list's place and length, not the message bytes.
impl core::fmt::Debug for ListBuilder<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ListBuilder")
            .field("offset", &self.b.rel(self.start))
            .field("elem_size", &self.elem_size)
            .field("count", &self.count)
            .finish()
    }
}

impl ListBuilder<'_> {
    /// Append a scalar element (strided lists).
    #[inline]
    pub fn push<T: Scalar>(&mut self, v: T) {
        let pos = self.b.buf.len();
        self.b.buf.resize(pos + T::WIDTH, 0);
        v.write_at(&mut self.b.buf, pos);
        self.count = self.count.saturating_add(1);
    }

    /// Append one element's raw bytes (a `bytes_fixed[N]` element, or an all-inline
    /// struct's fixed section).
    pub fn push_raw(&mut self, element: &[u8]) {
        self.b.buf.extend_from_slice(element);
        self.count = self.count.saturating_add(1);
    }

    /// Append one strided struct element: a zero-filled fixed section of the list's
    /// element size, written through the returned builder. Such structs have no
    /// out-of-line fields, so nothing is deferred.
    pub fn push_struct(&mut self) -> ObjectBuilder<'_> {
        self.count = self.count.saturating_add(1);
        self.b.object_here(self.elem_size)
    }

    /// Append one framed element: `[len u32][data]`.
    pub fn push_framed(&mut self, data: &[u8]) {
        crate::copies::note(data.len());
        self.b
            .buf
            .extend_from_slice(&wire_u32(data.len()).to_le_bytes());
        self.b.buf.extend_from_slice(data);
        self.count = self.count.saturating_add(1);
    }

    /// Append one framed struct element, built in place as a complete message: `f`
    /// starts the element's root object on the builder it is given and finishes it with
    /// [`ObjectBuilder::finish_as_root`].
    pub fn push_message<R>(&mut self, f: impl FnOnce(&mut Builder) -> R) -> R {
        self.count = self.count.saturating_add(1);
        self.b.embedded_message(f)
    }

    /// Elements appended so far.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// The builder, e.g. to build the targets of a pointer list.
    pub fn builder(&mut self) -> &mut Builder {
        self.b
    }

    /// Finish the list: where it is and how many elements it has.
    #[must_use = "a list is reachable only once an object's slot points at it"]
    pub fn finish(self) -> ListRef {
        ListRef {
            offset: self.b.rel(self.start),
            count: self.count,
        }
    }
}

/// The message [`Builder::encode_inline`] fills: `N` bytes, the 16-byte header first and
/// the root object's fixed section after it. Offsets are the object's, as a schema gives
/// them; a field past the object's end panics (generated code only writes its layout).
pub struct InlineObject<const N: usize>([u8; N]);

impl<const N: usize> InlineObject<N> {
    /// Set the scalar at the object's byte `offset`.
    #[inline(always)]
    pub fn set<T: Scalar>(&mut self, offset: usize, v: T) {
        v.write_at(&mut self.0, HEADER_SIZE + offset);
    }

    /// Set the `bytes_fixed` field at the object's byte `offset`.
    #[inline(always)]
    pub fn set_bytes_fixed<const K: usize>(&mut self, offset: usize, v: &[u8; K]) {
        let at = HEADER_SIZE + offset;
        self.0[at..at + K].copy_from_slice(v);
    }

    /// The whole message, header included.
    pub fn as_bytes(&self) -> &[u8; N] {
        &self.0
    }
}

impl<const N: usize> core::fmt::Debug for InlineObject<N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("InlineObject").field("len", &N).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_payload_set_last_is_copied_once_into_the_message() {
        let mut b = Builder::new();
        let mut o = b.start_object(16);
        o.set_bytes_last(0, &[7; 4096]);
        assert!(o.b.deferred.is_empty(), "nothing kept aside");
        o.set_text_last(8, "and a text");
        o.finish_as_root();
        assert_eq!(b.scratch.capacity(), 0, "no scratch copy");
        let msg = b.finish().unwrap().to_vec();
        let root = crate::Message::parse(&msg).unwrap().root();
        assert_eq!(root.bytes(0), &[7; 4096]);
        assert_eq!(root.text(8), "and a text");
    }

    #[test]
    fn an_inline_message_after_an_abandoned_one_is_whole_and_leaves_nothing_behind() {
        let slow = |b: &mut Builder| {
            b.clear();
            let mut o = b.start_object(8);
            o.set_u64(0, 42);
            o.finish_as_root();
            b.finish().unwrap().to_vec()
        };
        let mut fresh = Builder::new();
        fresh.set_version(crate::VERSION2);
        let want = slow(&mut fresh);

        let mut b = Builder::new();
        b.set_version(crate::VERSION2);
        // An object whose payload is kept aside, never finished.
        b.start_object(16).set_bytes(0, b"kept aside");
        assert!(!b.deferred.is_empty() && !b.scratch.is_empty());
        let inline = b.encode_inline::<24>(|m| m.set::<u64>(0, 42)).unwrap();
        assert_eq!(inline, want, "version 2 stamped, root 16, size 24");
        assert!(b.deferred.is_empty() && b.scratch.is_empty() && b.base == 0);
        assert_eq!(b.finish().unwrap(), want, "finish keeps the inline root");
        assert_eq!(slow(&mut b), want);
    }

    #[test]
    fn after_a_payload_kept_aside_the_next_is_kept_aside_too() {
        let mut b = Builder::new();
        let mut o = b.start_object(16);
        o.set_bytes(0, b"kept");
        o.set_bytes_last(8, b"kept too");
        assert_eq!(o.b.deferred.len(), 2);
    }
}

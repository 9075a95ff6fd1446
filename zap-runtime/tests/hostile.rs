//! Hostile-input properties of the readers, the frame decoder and the RPC envelope.
//!
//! Beyond "never panics", every read is compared with an independent model of the
//! bounds rules of spec §3 (written here from the spec, not from `read.rs`):
//!
//! * every `&[u8]` / `&str` a getter returns lies inside the message buffer, at the
//!   position the model computes (or is empty / all zeros where the model says the
//!   read fails);
//! * scalars equal the model's little-endian load (bit for bit, floats included);
//! * `object()` / `list()` / `root()` land where the model says, or are null / empty;
//! * list iterators never yield more than `len()` items and yield exactly the model's
//!   elements; framed payloads are disjoint, in order and total at most the message size;
//! * text is valid UTF-8 and `try_text` agrees with `bytes`;
//! * a null object reads all zeros;
//! * an owned message ([`Owned`], over `Bytes`) gives the same verdict as
//!   `Message::parse` and its reader walks exactly as the borrowed one does.
//!
//! The frame decoder is fed arbitrary streams in arbitrary chunks (emulating a read
//! buffer) and compared step by step with a model of spec §6; encoded frames split at
//! every point decode to the same frames.
//!
//! The walk is driven by a small deterministic PRNG seeded from proptest, so a failure
//! shrinks to a (bytes, seed) pair that replays exactly.

use std::ops::Range;
use std::sync::OnceLock;

use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use serde_json::Value;
use zap_runtime::frame::{encode_frame, Direction, FrameDecoder, FRAME_HEADER};
use zap_runtime::rpc::{Request, Response, Status};
use zap_runtime::{
    Builder, Bytes, DecodeBudget, Fixed, FrameError, List, Message, Object, ObjectBuilder, Owned,
    Scalar, ZapStruct, HEADER_SIZE,
};

// ---------------------------------------------------------------------------------------
// Vectors
// ---------------------------------------------------------------------------------------

fn load(name: &str) -> Value {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// Every well-formed message of the shared vectors: flat, nested, the RPC envelopes, the
/// messages embedded in envelope payloads/bodies, and the hostile vectors that parse.
fn vector_messages() -> &'static [Vec<u8>] {
    static CELL: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    CELL.get_or_init(|| {
        let mut out = Vec::new();
        let mut push_hex = |s: &str| {
            let b = hex::decode(s).unwrap();
            if Message::parse(&b).is_ok() {
                out.push(b);
            }
        };
        for file in ["flat.json", "rpc.json", "hostile.json"] {
            for v in load(file)["vectors"].as_array().unwrap() {
                push_hex(v["hex"].as_str().unwrap());
                for key in ["payload", "body"] {
                    if let Some(s) = v.get(key).and_then(Value::as_str) {
                        push_hex(s);
                    }
                }
            }
        }
        push_hex(load("nested.json")["hex"].as_str().unwrap());
        out.push(built_message());
        assert!(
            out.len() >= 15,
            "expected the vector messages, got {}",
            out.len()
        );
        out
    })
}

/// A message with the shapes the vectors lack: a pointer list, a strided struct list,
/// a framed text list (one element not UTF-8) and a framed list of embedded messages.
fn built_message() -> Vec<u8> {
    let mut b = Builder::new();
    let mut root = b.start_object(56);
    root.set_u32(0, 7);
    root.set_text(4, "root");
    let (pointers, structs, texts, messages, child) = {
        let b = root.builder();
        let pl = b.start_pointer_list(3);
        let t1 = {
            let mut o = b.start_object(8);
            o.set_u64(0, 42);
            o.finish()
        };
        let t2 = {
            let mut o = b.start_object(12);
            o.set_u32(0, 9);
            o.set_text(4, "leaf");
            o.finish()
        };
        b.set_pointer(pl, 0, t1);
        b.set_pointer(pl, 2, t2);
        let pointers = pl.list(b);
        let mut l = b.start_list(8);
        for i in 0..3u32 {
            let mut e = l.push_struct();
            e.set_u32(0, i);
            e.set_u16(4, 0xffff);
            let _ = e.finish();
        }
        let structs = l.finish();
        let mut l = b.start_list(0);
        l.push_framed(b"one");
        l.push_framed(b"\xff\xfe");
        l.push_framed(b"");
        let texts = l.finish();
        let mut l = b.start_list(0);
        for i in 0..2u32 {
            l.push_message(|b| {
                let mut o = b.start_object(16);
                o.set_u32(0, i);
                o.set_text(8, "msg");
                o.finish_as_root();
            });
        }
        let messages = l.finish();
        (pointers, structs, texts, messages, t2)
    };
    root.set_list(16, pointers);
    root.set_list(24, structs);
    root.set_list(32, texts);
    root.set_list(40, messages);
    root.set_object(48, child);
    root.finish_as_root();
    let wire = b.finish().unwrap().to_vec();
    let r = Message::parse(&wire).unwrap().root();
    assert_eq!(r.list(16).pointers().filter(|o| !o.is_null()).count(), 2);
    assert_eq!(
        r.list(40).messages().map(|o| o.text(8)).collect::<Vec<_>>(),
        ["msg"; 2]
    );
    wire
}

// ---------------------------------------------------------------------------------------
// A tiny deterministic PRNG that drives the walk
// ---------------------------------------------------------------------------------------

struct Dice(u64);

impl Dice {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    /// A field offset: schema-like small multiples of 4, anything near the message, the
    /// end of the message, or something huge.
    fn offset(&mut self, size: usize) -> usize {
        const HUGE: [usize; 10] = [
            usize::MAX,
            usize::MAX - 1,
            usize::MAX - 3,
            usize::MAX - 7,
            u32::MAX as usize,
            u32::MAX as usize - 3,
            i32::MAX as usize,
            1 << 32,
            isize::MAX as usize,
            isize::MAX as usize + 1,
        ];
        match self.below(10) {
            0 => HUGE[self.below(HUGE.len())],
            1 => size.wrapping_sub(self.below(10)),
            2..=5 => self.below(32) * 4,
            _ => self.below(size + 16),
        }
    }

    /// A list index: the edges of the count, something inside it, or something huge.
    fn index(&mut self, len: usize) -> usize {
        match self.below(7) {
            0 => 0,
            1 => len.wrapping_sub(1),
            2 => len,
            3 => len + 1,
            4 => [usize::MAX, u32::MAX as usize, isize::MAX as usize][self.below(3)],
            _ => self.below(len + 2),
        }
    }
}

// ---------------------------------------------------------------------------------------
// The model: spec §3 written out independently
// ---------------------------------------------------------------------------------------

fn le<const W: usize>(buf: &[u8], pos: Option<usize>) -> Option<[u8; W]> {
    let p = pos?;
    let end = p.checked_add(W)?;
    buf.get(p..end).map(|s| s.try_into().unwrap())
}

fn le_u32(buf: &[u8], pos: Option<usize>) -> Option<u32> {
    le::<4>(buf, pos).map(u32::from_le_bytes)
}

fn le_i32(buf: &[u8], pos: Option<usize>) -> Option<i32> {
    le::<4>(buf, pos).map(i32::from_le_bytes)
}

/// spec §1: `Some(size)` when the header is acceptable.
fn model_parse(buf: &[u8]) -> Option<usize> {
    if buf.len() < 16 || buf[..4] != *b"ZAP\0" {
        return None;
    }
    let version = u16::from_le_bytes([buf[4], buf[5]]);
    let size = u32::from_le_bytes([buf[12], buf[13], buf[14], buf[15]]) as usize;
    ((version == 1 || version == 2) && (16..=buf.len()).contains(&size)).then_some(size)
}

/// Absolute target of a signed pointer in `[16, size)`.
fn model_target(size: usize, slot: usize, rel: i32) -> Option<usize> {
    let abs = slot as i128 + i128::from(rel);
    (abs >= 16 && abs < size as i128).then_some(abs as usize)
}

/// spec §3 text/bytes: the payload range, or None (empty).
fn model_bytes(buf: &[u8], pos: usize, off: usize) -> Option<Range<usize>> {
    let slot = pos.checked_add(off)?;
    let rel = le_u32(buf, Some(slot))?;
    let len = le_u32(buf, slot.checked_add(4))?;
    if rel == 0 {
        return None;
    }
    let abs = slot as u128 + u128::from(rel);
    let end = abs + u128::from(len);
    (abs >= 16 && end <= buf.len() as u128).then_some(abs as usize..end as usize)
}

/// spec §3 struct pointer: the child position, or None (null).
fn model_object(buf: &[u8], pos: usize, off: usize) -> Option<usize> {
    let slot = pos.checked_add(off)?;
    match le_i32(buf, Some(slot))? {
        0 => None,
        rel => model_target(buf.len(), slot, rel),
    }
}

/// spec §3 list: `(start, count)`, or None (empty).
fn model_list(buf: &[u8], pos: usize, off: usize) -> Option<(usize, usize)> {
    let slot = pos.checked_add(off)?;
    let rel = le_i32(buf, Some(slot))?;
    let count = le_u32(buf, slot.checked_add(4))? as usize;
    if rel == 0 || count > buf.len() {
        return None;
    }
    model_target(buf.len(), slot, rel).map(|start| (start, count))
}

/// The list a walk is looking at, as the model sees it.
#[derive(Clone, Copy)]
struct ModelList<'m> {
    buf: &'m [u8],
    start: usize,
    count: usize,
}

impl ModelList<'_> {
    /// Strided lists of `width`-byte elements expose their count only if it fits.
    fn strided_ok(&self, width: usize) -> bool {
        (self.count as u128) * (width as u128) <= (self.buf.len() - self.start) as u128
    }

    fn element(&self, i: usize, width: usize) -> Option<usize> {
        (i < self.count && self.strided_ok(width)).then(|| self.start + i * width)
    }

    /// Framed payload ranges, in order, stopping at the first that does not fit.
    fn framed(&self) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        let mut p = self.start;
        for _ in 0..self.count {
            let Some(len) = le_u32(self.buf, Some(p)) else {
                break;
            };
            let (s, e) = (p + 4, p + 4 + len as usize);
            if e > self.buf.len() {
                break;
            }
            out.push(s..e);
            p = e;
        }
        out
    }
}

// ---------------------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------------------

/// `s` is `outer[range]`, by address: the getter returned a view of the message itself.
fn is_view_of(outer: &[u8], s: &[u8], range: &Range<usize>) -> bool {
    s.len() == range.len() && (s.is_empty() || s.as_ptr() == outer[range.start..].as_ptr())
}

/// `s` lies inside `outer` (empty slices are allowed anywhere).
fn inside(outer: &[u8], s: &[u8]) -> bool {
    let (o, p) = (outer.as_ptr() as usize, s.as_ptr() as usize);
    s.is_empty() || (p >= o && p + s.len() <= o + outer.len())
}

fn check_scalar<T: Scalar, const W: usize>(
    obj: Object<'_>,
    off: usize,
    bits: impl Fn(T) -> [u8; W],
) {
    assert_eq!(T::WIDTH, W);
    let got = bits(obj.get::<T>(off));
    let want = le::<W>(obj.message_bytes(), obj.position().checked_add(off)).unwrap_or([0; W]);
    assert_eq!(got, want, "{} at offset {off}", std::any::type_name::<T>());
}

fn check_fixed<const N: usize>(obj: Object<'_>, off: usize) {
    let buf = obj.message_bytes();
    let got: &[u8; N] = obj.bytes_fixed::<N>(off);
    let range = obj
        .position()
        .checked_add(off)
        .and_then(|s| Some(s..s.checked_add(N)?))
        .filter(|r| r.end <= buf.len() && !buf.is_empty());
    match range {
        Some(r) => assert!(is_view_of(buf, got, &r), "bytes_fixed<{N}> at {off}"),
        None => assert_eq!(got, &[0u8; N], "bytes_fixed<{N}> at {off} out of range"),
    }
}

/// [`Fixed`], the view generated readers hold, checks its `N` bytes once: every
/// scalar and `bytes_fixed` read within them agrees with the model, as [`Object`]'s do
/// (the object whole in the message, shorter, or null).
/// A list element viewed with the fixed bytes its list found reads as the object does.
fn check_element<const N: usize>(obj: Object<'_>, fixed: &[u8]) {
    let element = Fixed::<N>::from_element(obj, Some(fixed));
    let checked = Fixed::<N>::new(obj);
    for off in 0..N {
        assert_eq!(
            element.get::<u8>(off),
            checked.get::<u8>(off),
            "element byte {off}"
        );
        assert_eq!(
            element.get::<u8>(off),
            obj.get::<u8>(off),
            "element byte {off}"
        );
    }
}

fn check_verified<const N: usize>(obj: Object<'_>, off: usize) {
    let fixed = Fixed::<N>::new(obj);
    let buf = obj.message_bytes();
    let at = obj.position().checked_add(off);
    let fits = |width: usize| off.checked_add(width).is_some_and(|end| end <= N);
    if fits(1) {
        let want = le::<1>(buf, at).unwrap_or([0]);
        assert_eq!(
            fixed.get::<u8>(off).to_le_bytes(),
            want,
            "Fixed<{N}> u8 at {off}"
        );
        assert_eq!(
            fixed.get::<bool>(off),
            want[0] != 0,
            "Fixed<{N}> bool at {off}"
        );
    }
    if fits(2) {
        let want = le::<2>(buf, at).unwrap_or([0; 2]);
        assert_eq!(
            fixed.get::<i16>(off).to_le_bytes(),
            want,
            "Fixed<{N}> i16 at {off}"
        );
    }
    if fits(4) {
        let want = le::<4>(buf, at).unwrap_or([0; 4]);
        assert_eq!(
            fixed.get::<u32>(off).to_le_bytes(),
            want,
            "Fixed<{N}> u32 at {off}"
        );
        let f = fixed.get::<f32>(off).to_bits().to_le_bytes();
        assert_eq!(f, want, "Fixed<{N}> f32 at {off}");
    }
    if fits(8) {
        let want = le::<8>(buf, at).unwrap_or([0; 8]);
        assert_eq!(
            fixed.get::<u64>(off).to_le_bytes(),
            want,
            "Fixed<{N}> u64 at {off}"
        );
        assert_eq!(
            fixed.get::<i64>(off).to_le_bytes(),
            want,
            "Fixed<{N}> i64 at {off}"
        );
    }
    if fits(20) {
        let got = fixed.bytes_fixed::<20>(off);
        assert_eq!(
            got,
            obj.bytes_fixed::<20>(off),
            "Fixed<{N}> bytes_fixed<20> at {off}"
        );
        check_fixed::<20>(obj, off);
    }
    assert_eq!(fixed.as_object().position(), obj.position());
}

struct Walker<'m> {
    /// The outermost message: everything returned must lie inside it.
    outer: &'m [u8],
    dice: Dice,
    /// Objects and lists left to visit (keeps the walk bounded).
    budget: usize,
    stats: Stats,
}

/// What a walk reached, so a test can show the walk is not vacuous.
#[derive(Default, Debug, Clone, Copy, PartialEq, Eq)]
struct Stats {
    live_objects: usize,
    live_lists: usize,
    nonempty_bytes: usize,
    framed_payloads: usize,
    live_messages: usize,
    live_pointers: usize,
    strided_scalars: usize,
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        self.live_objects += o.live_objects;
        self.live_lists += o.live_lists;
        self.nonempty_bytes += o.nonempty_bytes;
        self.framed_payloads += o.framed_payloads;
        self.live_messages += o.live_messages;
        self.live_pointers += o.live_pointers;
        self.strided_scalars += o.strided_scalars;
    }
}

impl<'m> Walker<'m> {
    fn new(outer: &'m [u8], seed: u64) -> Self {
        Walker {
            outer,
            dice: Dice(seed),
            budget: 128,
            stats: Stats::default(),
        }
    }

    /// Parse, check the header model, and walk from the root.
    fn walk_message(&mut self, buf: &'m [u8]) {
        let parsed = Message::parse(buf);
        let size = model_parse(buf);
        assert_eq!(parsed.is_ok(), size.is_some(), "parse verdict");
        let Ok(msg) = parsed else { return };
        assert_eq!(Some(msg.size()), size);
        assert!(is_view_of(buf, msg.as_bytes(), &(0..msg.size())));
        assert!(matches!(msg.version(), 1 | 2));
        let root = msg.root();
        let root_at = msg.root_offset() as usize;
        let want = (root_at >= 16 && root_at < msg.size()).then_some(root_at);
        self.check_lands(root, msg.as_bytes(), want);
        self.walk_object(root, 0);
    }

    fn check_lands(&self, obj: Object<'_>, buf: &[u8], want: Option<usize>) {
        match want {
            None => assert!(obj.is_null(), "object should be null"),
            Some(p) => {
                assert!(!obj.is_null(), "object at {p} should be live");
                assert_eq!(obj.position(), p);
                assert!(is_view_of(buf, obj.message_bytes(), &(0..buf.len())));
            }
        }
    }

    fn walk_object(&mut self, obj: Object<'m>, depth: usize) {
        if self.budget == 0 {
            return;
        }
        self.budget -= 1;
        let buf = obj.message_bytes();
        assert!(inside(self.outer, buf));
        if obj.is_null() {
            assert_eq!(obj.position(), 0);
            assert!(buf.is_empty());
        } else {
            assert!(obj.position() >= HEADER_SIZE && obj.position() < buf.len());
            self.stats.live_objects += 1;
        }
        // at the root, every schema-like offset 0, 4, .., 124 as well as random ones
        let sweep = if depth == 0 { 32 } else { 0 };
        for k in 0..sweep + 8 {
            let off = if k < sweep {
                k * 4
            } else {
                self.dice.offset(buf.len())
            };
            self.read_all(obj, off);
            if obj.is_null() {
                null_reads_zero(obj, off);
            }
            // follow live pointers (null ones were checked by read_all and read zero)
            if depth < 3 {
                let child = obj.object(off);
                if !child.is_null() {
                    self.walk_object(child, depth + 1);
                }
                let list = obj.list(off);
                if !list.is_null() {
                    let model = model_list(buf, obj.position(), off)
                        .map(|(start, count)| ModelList { buf, start, count });
                    self.walk_list(list, model, depth + 1);
                }
            }
        }
    }

    /// Every getter of `Object` at `off`, each against the model.
    fn read_all(&mut self, obj: Object<'m>, off: usize) {
        let buf = obj.message_bytes();
        let pos = obj.position();
        // bool is `!= 0` of the byte (the raw byte is checked as u8 below)
        let byte = le::<1>(buf, pos.checked_add(off)).unwrap_or([0])[0];
        assert_eq!(obj.bool(off), byte != 0, "bool at {off}");
        assert_eq!(obj.get::<bool>(off), byte != 0);
        check_scalar::<u8, 1>(obj, off, u8::to_le_bytes);
        check_scalar::<u16, 2>(obj, off, u16::to_le_bytes);
        check_scalar::<u32, 4>(obj, off, u32::to_le_bytes);
        check_scalar::<u64, 8>(obj, off, u64::to_le_bytes);
        check_scalar::<i8, 1>(obj, off, i8::to_le_bytes);
        check_scalar::<i16, 2>(obj, off, i16::to_le_bytes);
        check_scalar::<i32, 4>(obj, off, i32::to_le_bytes);
        check_scalar::<i64, 8>(obj, off, i64::to_le_bytes);
        check_scalar::<f32, 4>(obj, off, |v| v.to_bits().to_le_bytes());
        check_scalar::<f64, 8>(obj, off, |v| v.to_bits().to_le_bytes());
        // the named getters are the generic one
        assert_eq!(obj.u8(off), obj.get::<u8>(off));
        assert_eq!(obj.u16(off), obj.get::<u16>(off));
        assert_eq!(obj.u32(off), obj.get::<u32>(off));
        assert_eq!(obj.u64(off), obj.get::<u64>(off));
        assert_eq!(obj.i8(off), obj.get::<i8>(off));
        assert_eq!(obj.i16(off), obj.get::<i16>(off));
        assert_eq!(obj.i32(off), obj.get::<i32>(off));
        assert_eq!(obj.i64(off), obj.get::<i64>(off));
        assert_eq!(obj.f32(off).to_bits(), obj.get::<f32>(off).to_bits());
        assert_eq!(obj.f64(off).to_bits(), obj.get::<f64>(off).to_bits());

        check_fixed::<0>(obj, off);
        check_fixed::<1>(obj, off);
        check_fixed::<3>(obj, off);
        check_fixed::<8>(obj, off);
        check_fixed::<16>(obj, off);
        check_fixed::<20>(obj, off);
        check_fixed::<32>(obj, off);
        check_verified::<8>(obj, off);
        check_verified::<36>(obj, off);
        check_verified::<56>(obj, off);
        check_verified::<128>(obj, off);
        check_fixed::<64>(obj, off);

        let n = match self.dice.below(4) {
            0 => usize::MAX - self.dice.below(8),
            1 => u32::MAX as usize,
            _ => self.dice.below(80),
        };
        let s = obj.bytes_fixed_slice(off, n);
        let range = pos
            .checked_add(off)
            .and_then(|a| Some(a..a.checked_add(n)?))
            .filter(|r| r.end <= buf.len() && !buf.is_empty());
        match range {
            Some(r) => assert!(is_view_of(buf, s, &r), "bytes_fixed_slice({off}, {n})"),
            None => assert!(s.is_empty(), "bytes_fixed_slice({off}, {n}) out of range"),
        }
        assert!(inside(self.outer, s));

        let b = obj.bytes(off);
        match model_bytes(buf, pos, off) {
            Some(r) => assert!(is_view_of(buf, b, &r), "bytes at {off}: want {r:?}"),
            None => assert!(b.is_empty(), "bytes at {off} should be empty"),
        }
        self.stats.nonempty_bytes += usize::from(!b.is_empty());
        assert!(inside(self.outer, b));
        let t = obj.text(off);
        assert!(inside(self.outer, t.as_bytes()));
        assert!(std::str::from_utf8(t.as_bytes()).is_ok());
        match obj.try_text(off) {
            Ok(s) => {
                assert!(s.is_empty() || s.as_ptr() == b.as_ptr());
                assert_eq!(s.as_bytes(), b);
                assert_eq!(t, s);
            }
            Err(_) => {
                assert!(std::str::from_utf8(b).is_err());
                assert_eq!(t, "");
            }
        }

        let child = obj.object(off);
        self.check_lands(child, buf, model_object(buf, pos, off));
        let list = obj.list(off);
        match model_list(buf, pos, off) {
            None => {
                assert_eq!(list.len(), 0, "list at {off} should be empty");
                assert!(list.is_null());
            }
            Some((_, count)) => {
                assert_eq!(list.len(), count);
                assert!(!list.is_null());
            }
        }
        assert_eq!(list.is_empty(), list.len().eq(&0));
        assert!(list.len() <= buf.len());
    }

    fn walk_list(&mut self, list: List<'m>, model: Option<ModelList<'m>>, depth: usize) {
        if self.budget == 0 {
            return;
        }
        self.budget -= 1;
        let empty = ModelList {
            buf: &[],
            start: 0,
            count: 0,
        };
        let m = model.unwrap_or(empty);
        assert_eq!(list.len(), m.count);
        self.stats.live_lists += usize::from(!list.is_null());

        // strided scalars: index access and iteration
        self.check_strided::<u8, 1>(list, m, u8::to_le_bytes);
        self.check_strided::<u16, 2>(list, m, u16::to_le_bytes);
        self.check_strided::<i16, 2>(list, m, i16::to_le_bytes);
        self.check_strided::<u32, 4>(list, m, u32::to_le_bytes);
        self.check_strided::<i32, 4>(list, m, i32::to_le_bytes);
        self.check_strided::<f32, 4>(list, m, |v| v.to_bits().to_le_bytes());
        self.check_strided::<u64, 8>(list, m, u64::to_le_bytes);
        self.check_strided::<i64, 8>(list, m, i64::to_le_bytes);
        self.check_strided::<f64, 8>(list, m, |v| v.to_bits().to_le_bytes());
        // bool elements are `!= 0` of the byte
        let bools: Vec<bool> = list.scalars::<bool>().collect();
        let bytes: Vec<u8> = list.scalars::<u8>().collect();
        assert_eq!(bools, bytes.iter().map(|b| *b != 0).collect::<Vec<_>>());
        for _ in 0..3 {
            let i = self.dice.index(list.len());
            assert_eq!(list.get::<bool>(i), list.get::<u8>(i) != 0);
        }

        // bytes_fixed elements
        self.check_list_fixed::<0>(list, m);
        self.check_list_fixed::<1>(list, m);
        self.check_list_fixed::<16>(list, m);
        self.check_list_fixed::<20>(list, m);
        self.check_list_fixed::<32>(list, m);

        // strided structs, every width 0..64
        for width in 0..64 {
            for _ in 0..2 {
                let i = self.dice.index(list.len());
                let want = m
                    .element(i, width)
                    .and_then(|p| (p < m.buf.len()).then_some(p));
                self.check_lands(list.object(i, width), m.buf, want);
            }
            let it = list.objects(width);
            let hint = it.len();
            let mut n = 0;
            for (i, o) in it.enumerate() {
                let want = m
                    .element(i, width)
                    .and_then(|p| (p < m.buf.len()).then_some(p));
                self.check_lands(o, m.buf, want);
                n += 1;
            }
            assert_eq!(n, hint);
            assert!(n <= list.len());
            assert_eq!(n, if m.strided_ok(width) { m.count } else { 0 });
            // The loop typed struct lists run: the same elements, each with its fixed
            // bytes exactly where they are all in the message.
            let folded = list.objects(width).fold_fixed(0, |i, o, fixed| {
                let want = m
                    .element(i, width)
                    .and_then(|p| (p < m.buf.len()).then_some(p));
                self.check_lands(o, m.buf, want);
                if let Some(fixed) = fixed {
                    let p = want.expect("fixed bytes for a null element");
                    assert_eq!(Some(fixed), m.buf.get(p..p + width), "element {i} bytes");
                    check_element::<16>(o, fixed);
                }
                i + 1
            });
            assert_eq!(folded, n, "fold_fixed element count");
        }
        if depth < 3 {
            let width = [4usize, 8, 12, 16, 24, 28][self.dice.below(6)];
            let objs: Vec<Object<'m>> = list.objects(width).take(2).collect();
            for o in objs {
                self.walk_object(o, depth + 1);
            }
        }

        // framed payloads
        let want = m.framed();
        let framed: Vec<&'m [u8]> = list.framed().collect();
        assert!(framed.len() <= list.len());
        assert_eq!(framed.len(), want.len(), "framed element count");
        let mut total = 0usize;
        for (p, r) in framed.iter().zip(&want) {
            assert!(is_view_of(m.buf, p, r), "framed payload {r:?}");
            assert!(inside(self.outer, p));
            total += p.len();
        }
        assert!(total <= m.buf.len());
        self.stats.framed_payloads += framed.len();
        assert!(total <= self.outer.len());
        // the iterator stays exhausted
        let mut it = list.framed();
        it.by_ref().for_each(drop);
        assert!(it.next().is_none());

        let texts: Vec<&'m str> = list.texts().collect();
        assert_eq!(texts.len(), framed.len());
        for (t, p) in texts.iter().zip(&framed) {
            assert!(inside(self.outer, t.as_bytes()));
            match std::str::from_utf8(p) {
                Ok(s) => assert_eq!(*t, s),
                Err(_) => assert_eq!(*t, ""),
            }
        }

        let messages: Vec<Object<'m>> = list.messages().collect();
        assert_eq!(messages.len(), framed.len());
        self.stats.live_messages += messages.iter().filter(|o| !o.is_null()).count();
        for (o, p) in messages.iter().zip(&framed) {
            match model_parse(p) {
                None => assert!(o.is_null()),
                Some(size) => {
                    let root = u32::from_le_bytes(p[8..12].try_into().unwrap()) as usize;
                    let inner = &p[..size];
                    let want = (root >= 16 && root < size).then_some(root);
                    self.check_lands(*o, inner, want);
                }
            }
        }
        if depth < 3 {
            for o in messages.into_iter().take(2) {
                self.walk_object(o, depth + 1);
            }
        }

        // pointer list
        let it = list.pointers();
        let hint = it.len();
        let ptrs: Vec<Object<'m>> = it.collect();
        assert_eq!(ptrs.len(), hint);
        assert!(ptrs.len() <= list.len());
        assert_eq!(ptrs.len(), if m.strided_ok(4) { m.count } else { 0 });
        self.stats.live_pointers += ptrs.iter().filter(|o| !o.is_null()).count();
        for (i, o) in ptrs.iter().enumerate() {
            let slot = m.start + 4 * i;
            let want = match le_i32(m.buf, Some(slot)).unwrap() {
                0 => None,
                rel => model_target(m.buf.len(), slot, rel),
            };
            self.check_lands(*o, m.buf, want);
        }
        if depth < 3 {
            for o in ptrs.into_iter().filter(|o| !o.is_null()).take(2) {
                self.walk_object(o, depth + 1);
            }
        }
    }

    fn check_strided<T: Scalar, const W: usize>(
        &mut self,
        list: List<'m>,
        m: ModelList<'_>,
        bits: impl Fn(T) -> [u8; W],
    ) {
        for _ in 0..3 {
            let i = self.dice.index(list.len());
            let want = le::<W>(m.buf, m.element(i, W)).unwrap_or([0; W]);
            assert_eq!(bits(list.get::<T>(i)), want, "get::<{W}>({i})");
        }
        let it = list.scalars::<T>();
        let hint = it.len();
        let all: Vec<T> = it.collect();
        assert_eq!(all.len(), hint);
        assert!(all.len() <= list.len());
        assert_eq!(all.len(), if m.strided_ok(W) { m.count } else { 0 });
        self.stats.strided_scalars += all.len();
        for (i, v) in all.into_iter().enumerate() {
            assert_eq!(
                Some(bits(v)),
                le::<W>(m.buf, m.element(i, W)),
                "scalars[{i}]"
            );
        }
    }

    fn check_list_fixed<const N: usize>(&mut self, list: List<'m>, m: ModelList<'_>) {
        for _ in 0..3 {
            let i = self.dice.index(list.len());
            let got = list.bytes_fixed::<N>(i);
            match m.element(i, N) {
                Some(p) => assert!(is_view_of(m.buf, got, &(p..p + N))),
                None => assert_eq!(got, &[0u8; N]),
            }
        }
    }
}

/// Every getter of a null object reads zero, empty or null.
fn null_reads_zero(obj: Object<'_>, off: usize) {
    assert!(obj.is_null());
    assert!(!obj.bool(off));
    assert_eq!(obj.u8(off), 0);
    assert_eq!(obj.u16(off), 0);
    assert_eq!(obj.u32(off), 0);
    assert_eq!(obj.u64(off), 0);
    assert_eq!(obj.i8(off), 0);
    assert_eq!(obj.i16(off), 0);
    assert_eq!(obj.i32(off), 0);
    assert_eq!(obj.i64(off), 0);
    assert_eq!(obj.f32(off).to_bits(), 0);
    assert_eq!(obj.f64(off).to_bits(), 0);
    assert_eq!(obj.bytes_fixed::<20>(off), &[0u8; 20]);
    assert!(obj.bytes_fixed_slice(off, 4).is_empty());
    assert!(obj.bytes(off).is_empty());
    assert_eq!(obj.text(off), "");
    assert_eq!(obj.try_text(off), Ok(""));
    assert!(obj.object(off).is_null());
    assert!(obj.list(off).is_null());
    assert_eq!(obj.list(off).len(), 0);
}

// ---------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------

/// Bytes that start with a valid header (version 1 or 2, random flags), a random root
/// and a size that is usually, but not always, within the buffer.
fn with_header() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(any::<u8>(), 0..496),
        1u16..=2,
        any::<u16>(),
        prop_oneof![0u32..600, any::<u32>()],
        prop_oneof![3 => Just(None), 1 => any::<u32>().prop_map(Some)],
    )
        .prop_map(|(body, version, flags, root, size)| {
            let mut b = Vec::with_capacity(16 + body.len());
            b.extend_from_slice(b"ZAP\0");
            b.extend_from_slice(&version.to_le_bytes());
            b.extend_from_slice(&flags.to_le_bytes());
            b.extend_from_slice(&root.to_le_bytes());
            let size = size.unwrap_or(16 + body.len() as u32);
            b.extend_from_slice(&size.to_le_bytes());
            b.extend_from_slice(&body);
            b
        })
}

#[derive(Clone, Debug)]
enum Mutation {
    Flip {
        at: usize,
        mask: u8,
    },
    SetByte {
        at: usize,
        value: u8,
    },
    /// Overwrite a u32 with one of the interesting values (index into the table).
    Word {
        at: usize,
        aligned: bool,
        pick: usize,
    },
    Truncate {
        at: usize,
    },
    /// Truncate and rewrite the header size so the result still parses.
    TruncateFixSize {
        at: usize,
    },
    Append {
        bytes: Vec<u8>,
    },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        1 => (any::<usize>(), 1u8..=255).prop_map(|(at, mask)| Mutation::Flip { at, mask }),
        1 => (any::<usize>(), any::<u8>()).prop_map(|(at, value)| Mutation::SetByte { at, value }),
        4 => (any::<usize>(), any::<bool>(), any::<usize>())
            .prop_map(|(at, aligned, pick)| Mutation::Word { at, aligned, pick }),
        1 => any::<usize>().prop_map(|at| Mutation::Truncate { at }),
        1 => any::<usize>().prop_map(|at| Mutation::TruncateFixSize { at }),
        1 => prop::collection::vec(any::<u8>(), 1..64).prop_map(|bytes| Mutation::Append { bytes }),
    ]
}

fn apply(buf: &mut Vec<u8>, m: &Mutation) {
    let len = buf.len();
    match *m {
        Mutation::Flip { at, mask } if len > 0 => buf[at % len] ^= mask,
        Mutation::SetByte { at, value } if len > 0 => buf[at % len] = value,
        Mutation::Word { at, aligned, pick } if len > 0 => {
            let size = len as u32;
            let table = [
                0,
                1,
                15,
                16,
                size.wrapping_sub(1),
                size,
                size + 1,
                u32::MAX,
                0x7fff_ffff,
                0x8000_0000,
                (-4i32) as u32,
                (-16i32) as u32,
                (-(size as i32)) as u32,
                8,
                24,
            ];
            let v = table[pick % table.len()].to_le_bytes();
            let mut at = at % len;
            if aligned {
                at &= !3;
            }
            for (i, b) in v.iter().enumerate() {
                if let Some(slot) = buf.get_mut(at + i) {
                    *slot = *b;
                }
            }
        }
        Mutation::Truncate { at } => buf.truncate(at % (len + 1)),
        Mutation::TruncateFixSize { at } => {
            buf.truncate(16 + at % (len.saturating_sub(16) + 1));
            let n = buf.len() as u32;
            if let Some(s) = buf.get_mut(12..16) {
                s.copy_from_slice(&n.to_le_bytes());
            }
        }
        Mutation::Append { ref bytes } => buf.extend_from_slice(bytes),
        _ => {}
    }
}

fn mutated() -> impl Strategy<Value = Vec<u8>> {
    (
        any::<prop::sample::Index>(),
        prop::collection::vec(mutation(), 1..6),
    )
        .prop_map(|(i, ms)| {
            let vectors = vector_messages();
            let mut buf = i.get(vectors).clone();
            for m in &ms {
                apply(&mut buf, m);
            }
            buf
        })
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------------------------
// Reader properties
// ---------------------------------------------------------------------------------------

/// A struct whose reader is the raw root object: lets [`Owned`] be walked like a
/// borrowed message.
struct Raw;

impl ZapStruct for Raw {
    const NAME: &'static str = "Raw";
    const SIZE: usize = 0;
    const JSON_FIELDS: &'static [&'static str] = &[];
    const INLINE: bool = false;
    type Reader<'a> = Object<'a>;
    fn from_reader_in(_: Object<'_>, _: &mut DecodeBudget) -> Self {
        Raw
    }
    fn write_fields(&self, _: &mut ObjectBuilder<'_>) {}
}

fn walk(buf: &[u8], seed: u64) -> Stats {
    // outer = the input buffer; Message::parse must only ever narrow it
    let mut w = Walker::new(buf, seed);
    w.walk_message(buf);
    let mut stats = w.stats;
    // and the same walk with the message itself as the bound
    let owned = Owned::<Raw>::from_bytes(Bytes::copy_from_slice(buf));
    match Message::parse(buf) {
        Ok(msg) => {
            let mut w = Walker::new(msg.as_bytes(), seed ^ 0x5a5a);
            w.walk_message(msg.as_bytes());
            stats += w.stats;
            // and from an owned copy: the same bytes, the same walk, step by step
            let owned = owned.expect("Owned accepts what Message::parse accepts");
            assert_eq!(owned.as_bytes(), msg.as_bytes());
            assert_eq!(owned.get().position(), msg.root().position());
            let mut borrowed = Walker::new(msg.as_bytes(), seed ^ 0xa5a5);
            borrowed.walk_object(msg.root(), 0);
            let mut own = Walker::new(owned.as_bytes(), seed ^ 0xa5a5);
            own.walk_object(owned.get(), 0);
            assert_eq!(own.stats, borrowed.stats, "owned and borrowed walks differ");
        }
        Err(e) => assert_eq!(owned.err(), Some(e), "Owned refuses as Message::parse does"),
    }
    stats
}

proptest! {
    #![proptest_config(config(384))]

    #[test]
    fn arbitrary_bytes_never_panic_and_match_the_model(
        buf in prop::collection::vec(any::<u8>(), 0..512),
        seed in any::<u64>(),
    ) {
        walk(&buf, seed);
    }

    #[test]
    fn random_bodies_behind_a_valid_header(buf in with_header(), seed in any::<u64>()) {
        walk(&buf, seed);
    }

    #[test]
    fn mutated_vector_messages(buf in mutated(), seed in any::<u64>()) {
        walk(&buf, seed);
    }

    #[test]
    fn envelopes_on_arbitrary_and_mutated_bytes(
        buf in prop_oneof![
            prop::collection::vec(any::<u8>(), 0..256),
            with_header(),
            mutated(),
        ],
    ) {
        check_envelopes(&buf);
    }
}

/// The unmutated vectors: the model and the walk agree on good input too, with many
/// seeds, and the walk really reaches children, lists, framed elements and embedded
/// messages (so the properties above are not vacuous).
#[test]
fn vector_messages_walk_clean() {
    let mut stats = Stats::default();
    for (i, v) in vector_messages().iter().enumerate() {
        for seed in 0..16 {
            stats += walk(v, ((i as u64) << 32) | seed);
        }
    }
    let Stats {
        live_objects,
        live_lists,
        nonempty_bytes,
        framed_payloads,
        live_messages,
        live_pointers,
        strided_scalars,
    } = stats;
    for (what, n) in [
        ("live objects", live_objects),
        ("live lists", live_lists),
        ("non-empty bytes", nonempty_bytes),
        ("framed payloads", framed_payloads),
        ("embedded messages", live_messages),
        ("live pointer-list elements", live_pointers),
        ("strided scalars", strided_scalars),
    ] {
        assert!(n > 0, "the walk never reached {what}: {stats:?}");
    }
}

#[test]
fn null_object_reads_all_zeros() {
    for obj in [Object::NULL, Object::default()] {
        assert_eq!(obj.position(), 0);
        assert!(obj.message_bytes().is_empty());
        for off in [
            0,
            1,
            7,
            8,
            16,
            100,
            u32::MAX as usize,
            usize::MAX - 3,
            usize::MAX,
        ] {
            null_reads_zero(obj, off);
        }
    }
    let l = List::default();
    assert!(l.is_null() && l.is_empty());
    assert_eq!(l.get::<u64>(0), 0);
    assert_eq!(
        l.framed().count() + l.messages().count() + l.pointers().count(),
        0
    );
    assert_eq!(l.objects(0).count() + l.scalars::<u8>().count(), 0);
    assert!(l.object(0, 0).is_null());
}

// ---------------------------------------------------------------------------------------
// RPC envelope
// ---------------------------------------------------------------------------------------

fn check_envelopes(buf: &[u8]) {
    let mut b = Builder::new();
    if let Ok(req) = Request::parse(buf) {
        let size = model_parse(buf).expect("a request is a message");
        let msg = &buf[..size];
        assert!(inside(msg, req.cap) && inside(msg, req.payload));
        let wire = req.encode(&mut b).unwrap().to_vec();
        let again = Request::parse(&wire).expect("a re-encoded request parses");
        assert_eq!(again, req);
        let m = Message::parse(&wire).unwrap();
        assert_eq!((m.version(), m.flags()), (2, 0xC800));
    }
    if let Ok(resp) = Response::parse(buf) {
        let size = model_parse(buf).expect("a response is a message");
        assert!(inside(&buf[..size], resp.body));
        let _ = resp.body_text();
        let _ = resp.status.to_string();
        let wire = resp.encode(&mut b).unwrap().to_vec();
        assert_eq!(Response::parse(&wire).expect("re-encoded response"), resp);
    }
    // a request/response refusal is exactly: not a message, or root + fixed size > size
    for (need, ok) in [
        (28usize, Request::parse(buf).is_ok()),
        (20, Response::parse(buf).is_ok()),
    ] {
        let want = model_parse(buf).is_some_and(|size| {
            let root = u32::from_le_bytes(buf[8..12].try_into().unwrap()) as usize;
            root >= 16 && root < size && root + need <= size
        });
        assert_eq!(ok, want, "envelope verdict (fixed size {need})");
    }
}

#[test]
fn envelope_status_display_never_panics() {
    for s in [0, 200, 400, 401, 403, 404, 500, u32::MAX] {
        assert!(!Status(s).to_string().is_empty());
    }
}

// ---------------------------------------------------------------------------------------
// Frame decoder
// ---------------------------------------------------------------------------------------

/// What the decoder must say about the front of `buf` (spec §6).
#[derive(Debug, PartialEq, Eq)]
enum Step {
    Need,
    Frame { dir: u8, len: usize },
    Empty,
    TooLarge,
    BadDir,
}

fn model_step(buf: &[u8], max: u32) -> Step {
    let Some(len) = le_u32(buf, Some(0)) else {
        return Step::Need;
    };
    if len == 0 {
        return Step::Empty;
    }
    if len > max {
        return Step::TooLarge;
    }
    let Some(&dir) = buf.get(4) else {
        return Step::Need;
    };
    if !(1..=6).contains(&dir) {
        return Step::BadDir;
    }
    if buf.len() < 4 + len as usize {
        return Step::Need;
    }
    Step::Frame {
        dir,
        len: len as usize - 1,
    }
}

type Frames = Vec<(u8, Vec<u8>)>;

/// Feed `stream` in the chunks `cuts` makes (like successive socket reads into a read
/// buffer), decode until None/Err after each, drain what was consumed. Every step is
/// checked against the model. Returns the frames and how it ended: the error, or the
/// bytes left over.
fn feed(max: u32, stream: &[u8], cuts: &[usize]) -> (Frames, Result<usize, FrameError>) {
    let mut dec = FrameDecoder::new(max);
    assert_eq!(dec.max_frame(), max);
    let mut rbuf: Vec<u8> = Vec::new();
    let mut frames = Vec::new();
    let mut consumed = 0u64;
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (stream.len() + 1)).collect();
    points.push(stream.len());
    points.sort_unstable();
    let mut from = 0;
    for to in points {
        rbuf.extend_from_slice(&stream[from..to]);
        from = to;
        loop {
            let want = model_step(&rbuf, max);
            match dec.decode(&rbuf) {
                Ok(None) => {
                    assert_eq!(
                        want,
                        Step::Need,
                        "decoder waits on {:02x?}",
                        &rbuf[..rbuf.len().min(8)]
                    );
                    break;
                }
                Ok(Some((frame, used))) => {
                    assert_eq!(
                        want,
                        Step::Frame {
                            dir: frame.dir as u8,
                            len: frame.envelope.len()
                        }
                    );
                    assert_eq!(used, FRAME_HEADER + frame.envelope.len());
                    assert!(used <= rbuf.len());
                    assert!(is_view_of(&rbuf, frame.envelope, &(FRAME_HEADER..used)));
                    assert_eq!(Direction::from_byte(frame.dir as u8), Some(frame.dir));
                    frames.push((frame.dir as u8, frame.envelope.to_vec()));
                    rbuf.drain(..used);
                    consumed += used as u64;
                }
                Err(e) => {
                    let (kind, offset) = match e {
                        FrameError::Empty { offset } => (Step::Empty, offset),
                        FrameError::TooLarge {
                            offset,
                            len,
                            max: m,
                        } => {
                            assert!(len > m && m == max);
                            (Step::TooLarge, offset)
                        }
                        FrameError::UnknownDirection { offset, dir } => {
                            assert!(!(1..=6).contains(&dir));
                            (Step::BadDir, offset)
                        }
                        FrameError::EnvelopeTooLarge { .. } => panic!("decoder gave {e}"),
                    };
                    assert_eq!(want, kind);
                    assert_eq!(offset, consumed, "error offset is the stream position");
                    assert!(!e.to_string().is_empty());
                    return (frames, Err(e));
                }
            }
        }
    }
    (frames, Ok(rbuf.len()))
}

fn any_max() -> impl Strategy<Value = u32> {
    prop_oneof![
        Just(zap_runtime::frame::DEFAULT_MAX_FRAME),
        0u32..80,
        Just(u32::MAX),
        Just(u32::MAX - 4),
    ]
}

/// A stream that is mostly well-framed with small lengths, so frames actually decode.
fn plausible_stream() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        (
            0u8..=6,
            prop::collection::vec(any::<u8>(), 0..40),
            any::<bool>(),
        ),
        0..8,
    )
    .prop_map(|frames| {
        let mut s = Vec::new();
        for (dir, env, lie) in frames {
            let len = env.len() as u32 + 1 + u32::from(lie);
            s.extend_from_slice(&len.to_le_bytes());
            s.push(dir);
            s.extend_from_slice(&env);
        }
        s
    })
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn frame_decoder_on_arbitrary_chunked_streams(
        stream in prop_oneof![prop::collection::vec(any::<u8>(), 0..300), plausible_stream()],
        cuts in prop::collection::vec(any::<usize>(), 0..12),
        max in any_max(),
    ) {
        let chunked = feed(max, &stream, &cuts);
        // chunking changes nothing: same frames, same ending as one big read
        let whole = feed(max, &stream, &[]);
        prop_assert_eq!(&chunked, &whole);
        let bytewise: Vec<usize> = (0..stream.len()).collect();
        prop_assert_eq!(&feed(max, &stream, &bytewise), &whole);
        let total: usize = chunked.0.iter().map(|(_, e)| e.len() + FRAME_HEADER).sum();
        prop_assert!(total <= stream.len());
    }

    #[test]
    fn encoded_frames_decode_identically_at_every_split(
        frames in prop::collection::vec(
            (1u8..=5, prop::collection::vec(any::<u8>(), 0..48)),
            0..6,
        ),
        tail in prop::collection::vec(any::<u8>(), 0..3),
    ) {
        let mut stream = Vec::new();
        for (dir, env) in &frames {
            encode_frame(&mut stream, Direction::from_byte(*dir).unwrap(), env).unwrap();
        }
        let framed_len = stream.len();
        // a short tail never completes a frame header
        stream.extend_from_slice(&tail);
        for split in 0..=stream.len() {
            let (got, end) = feed(zap_runtime::frame::DEFAULT_MAX_FRAME, &stream, &[split]);
            prop_assert_eq!(&got, &frames);
            prop_assert_eq!(end, Ok(tail.len()));
        }
        // and re-encoding the decoded frames gives the stream back
        let (got, _) = feed(u32::MAX, &stream, &[]);
        let mut again = Vec::new();
        for (dir, env) in &got {
            encode_frame(&mut again, Direction::from_byte(*dir).unwrap(), env).unwrap();
        }
        prop_assert_eq!(&again[..], &stream[..framed_len]);
    }

    #[test]
    fn oversized_length_refused_with_four_bytes(
        max in 0u32..u32::MAX,
        over in 1u32..=u32::MAX,
        extra in prop::collection::vec(any::<u8>(), 0..8),
    ) {
        let len = max.saturating_add(over);
        prop_assume!(len > max);
        let mut dec = FrameDecoder::new(max);
        let bytes = len.to_le_bytes();
        for n in 0..4 {
            prop_assert_eq!(dec.decode(&bytes[..n]), Ok(None));
        }
        let mut buf = bytes.to_vec();
        prop_assert_eq!(
            dec.decode(&buf),
            Err(FrameError::TooLarge { offset: 0, len, max })
        );
        buf.extend_from_slice(&extra);
        prop_assert!(
            matches!(dec.decode(&buf), Err(FrameError::TooLarge { .. })),
            "still refused with more bytes"
        );
    }

    #[test]
    fn zero_length_and_unknown_direction_refused(
        dir in any::<u8>(),
        len in 1u32..1000,
        extra in prop::collection::vec(any::<u8>(), 0..8),
    ) {
        let mut dec = FrameDecoder::default();
        let mut zero = vec![0u8; 4];
        prop_assert_eq!(dec.decode(&zero), Err(FrameError::Empty { offset: 0 }));
        zero.extend_from_slice(&extra);
        prop_assert_eq!(dec.decode(&zero), Err(FrameError::Empty { offset: 0 }));

        let mut buf = len.to_le_bytes().to_vec();
        buf.push(dir);
        let got = dec.decode(&buf);
        if (1..=6).contains(&dir) {
            prop_assert_eq!(got.map(|f| f.is_some()), Ok(len == 1));
        } else {
            prop_assert_eq!(got, Err(FrameError::UnknownDirection { offset: 0, dir }));
        }
    }
}

#[test]
fn encode_frame_length_field() {
    let mut out = Vec::new();
    encode_frame(&mut out, Direction::StreamEnd, b"").unwrap();
    assert_eq!(out, [1, 0, 0, 0, 5]);
    let mut dec = FrameDecoder::new(1);
    let (f, used) = dec.decode(&out).unwrap().unwrap();
    assert_eq!(
        (f.dir, f.envelope, used),
        (Direction::StreamEnd, &b""[..], 5)
    );
}

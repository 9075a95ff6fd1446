//! The full recursive read walk used by the `reader` and `envelope` fuzz targets, and the
//! models of spec §1, §3 and §6 the walk and the frame target compare against.
//!
//! Deliberately independent of `zap-runtime/tests/hostile.rs` (nothing is shared): the
//! models here are written from `spec/wire.md`, not from `read.rs`. Every check is an
//! `assert!`, so a disagreement is a crash libFuzzer keeps.

use std::ops::Range;

use zap_runtime::{Fixed, List, Message, Object, Scalar, HEADER_SIZE};

// ---------------------------------------------------------------------------------------
// Models
// ---------------------------------------------------------------------------------------

/// `W` bytes at `pos`, if they are inside `buf`.
pub fn le<const W: usize>(buf: &[u8], pos: Option<usize>) -> Option<[u8; W]> {
    let p = pos?;
    buf.get(p..p.checked_add(W)?).map(|s| s.try_into().unwrap())
}

pub fn le_u32(buf: &[u8], pos: Option<usize>) -> Option<u32> {
    le::<4>(buf, pos).map(u32::from_le_bytes)
}

pub fn le_i32(buf: &[u8], pos: Option<usize>) -> Option<i32> {
    le::<4>(buf, pos).map(i32::from_le_bytes)
}

/// Spec §1: the message size when the header is acceptable.
pub fn model_parse(buf: &[u8]) -> Option<usize> {
    if buf.len() < 16 || buf[..4] != *b"ZAP\0" {
        return None;
    }
    let version = u16::from_le_bytes([buf[4], buf[5]]);
    let size = u32::from_le_bytes([buf[12], buf[13], buf[14], buf[15]]) as usize;
    (matches!(version, 1 | 2) && size >= 16 && size <= buf.len()).then_some(size)
}

fn target(size: usize, slot: usize, rel: i32) -> Option<usize> {
    let abs = slot as i128 + i128::from(rel);
    (abs >= 16 && abs < size as i128).then_some(abs as usize)
}

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

fn model_object(buf: &[u8], pos: usize, off: usize) -> Option<usize> {
    let slot = pos.checked_add(off)?;
    match le_i32(buf, Some(slot))? {
        0 => None,
        rel => target(buf.len(), slot, rel),
    }
}

fn model_list(buf: &[u8], pos: usize, off: usize) -> Option<ModelList<'_>> {
    let slot = pos.checked_add(off)?;
    let rel = le_i32(buf, Some(slot))?;
    let count = le_u32(buf, slot.checked_add(4))? as usize;
    if rel == 0 || count > buf.len() {
        return None;
    }
    let start = target(buf.len(), slot, rel)?;
    Some(ModelList { buf, start, count })
}

#[derive(Clone, Copy)]
struct ModelList<'m> {
    buf: &'m [u8],
    start: usize,
    count: usize,
}

impl ModelList<'_> {
    const EMPTY: ModelList<'static> = ModelList {
        buf: &[],
        start: 0,
        count: 0,
    };

    fn strided_ok(&self, width: usize) -> bool {
        (self.count as u128) * (width as u128) <= (self.buf.len() - self.start) as u128
    }

    fn element(&self, i: usize, width: usize) -> Option<usize> {
        (i < self.count && self.strided_ok(width)).then(|| self.start + i * width)
    }

    fn live_element(&self, i: usize, width: usize) -> Option<usize> {
        self.element(i, width).filter(|p| *p < self.buf.len())
    }
}

/// Spec §6: what a decoder must say about the front of a read buffer.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub enum Step {
    Need,
    Frame { dir: u8, envelope_len: usize },
    Empty,
    TooLarge,
    BadDir,
}

pub fn model_frame_step(buf: &[u8], max: u32) -> Step {
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
    if (buf.len() as u64) < 4 + u64::from(len) {
        return Step::Need;
    }
    Step::Frame {
        dir,
        envelope_len: len as usize - 1,
    }
}

// ---------------------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------------------

/// `s` is `outer[range]` by address (or both are empty).
pub fn is_view_of(outer: &[u8], s: &[u8], range: &Range<usize>) -> bool {
    s.len() == range.len() && (s.is_empty() || s.as_ptr() == outer[range.start..].as_ptr())
}

/// `s` lies inside `outer` (empty slices may be anywhere).
pub fn inside(outer: &[u8], s: &[u8]) -> bool {
    let (o, p) = (outer.as_ptr() as usize, s.as_ptr() as usize);
    s.is_empty() || (p >= o && p + s.len() <= o + outer.len())
}

/// splitmix64, seeded from the input, picks the random part of the walk.
struct Dice(u64);

impl Dice {
    fn next(&mut self) -> u64 {
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
}

const HUGE: [usize; 8] = [
    usize::MAX,
    usize::MAX - 3,
    usize::MAX - 7,
    u32::MAX as usize,
    u32::MAX as usize - 3,
    i32::MAX as usize,
    isize::MAX as usize,
    isize::MAX as usize + 1,
];

fn check_scalar<T: Scalar, const W: usize>(obj: Object<'_>, off: usize, bits: fn(T) -> [u8; W]) {
    let want = le::<W>(obj.message_bytes(), obj.position().checked_add(off)).unwrap_or([0; W]);
    assert_eq!(
        bits(obj.get::<T>(off)),
        want,
        "scalar of width {W} at {off}"
    );
}

fn check_fixed<const N: usize>(obj: Object<'_>, off: usize) {
    let buf = obj.message_bytes();
    let got = obj.bytes_fixed::<N>(off);
    let range = obj
        .position()
        .checked_add(off)
        .and_then(|s| Some(s..s.checked_add(N)?))
        .filter(|r| r.end <= buf.len() && !buf.is_empty());
    match range {
        Some(r) => assert!(is_view_of(buf, got, &r)),
        None => assert_eq!(got, &[0u8; N]),
    }
}

/// [`Fixed`], the view generated readers hold, checks its `N` bytes once: every
/// scalar and `bytes_fixed` read within them agrees with the model, as [`Object`]'s do
/// (the object whole in the message, shorter, or null).
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

fn assert_lands(obj: Object<'_>, buf: &[u8], want: Option<usize>) {
    match want {
        None => {
            assert!(obj.is_null());
            assert_eq!(obj.position(), 0);
        }
        Some(p) => {
            assert!(!obj.is_null());
            assert_eq!(obj.position(), p);
            assert!(is_view_of(buf, obj.message_bytes(), &(0..buf.len())));
        }
    }
}

/// Walks a message: every getter at many offsets, every list accessor, following live
/// pointers a few levels, each result compared with the model.
pub struct Walker<'m> {
    outer: &'m [u8],
    dice: Dice,
    budget: usize,
}

impl<'m> Walker<'m> {
    /// `outer` bounds every slice a getter may return; `seed` drives the random offsets.
    pub fn new(outer: &'m [u8], seed: u64) -> Self {
        Walker {
            outer,
            dice: Dice(seed),
            budget: 48,
        }
    }

    /// Parse `buf` (checking the verdict against the model) and walk from the root.
    pub fn walk_message(&mut self, buf: &'m [u8]) -> Option<Message<'m>> {
        let parsed = Message::parse(buf);
        assert_eq!(
            parsed.ok().map(|m| m.size()),
            model_parse(buf),
            "parse verdict"
        );
        let msg = parsed.ok()?;
        assert!(is_view_of(buf, msg.as_bytes(), &(0..msg.size())));
        assert!(matches!(msg.version(), 1 | 2));
        let root_at = msg.root_offset() as usize;
        let root = msg.root();
        assert_lands(
            root,
            msg.as_bytes(),
            (root_at >= 16 && root_at < msg.size()).then_some(root_at),
        );
        self.walk_object(root, 0);
        Some(msg)
    }

    fn offset(&mut self, size: usize) -> usize {
        match self.dice.below(8) {
            0 => HUGE[self.dice.below(HUGE.len())],
            1 => size.wrapping_sub(self.dice.below(10)),
            2..=4 => self.dice.below(32) * 4,
            _ => self.dice.below(size + 16),
        }
    }

    fn index(&mut self, len: usize) -> usize {
        match self.dice.below(6) {
            0 => 0,
            1 => len.wrapping_sub(1),
            2 => len,
            3 => HUGE[self.dice.below(HUGE.len())],
            _ => self.dice.below(len + 2),
        }
    }

    pub fn walk_object(&mut self, obj: Object<'m>, depth: usize) {
        if self.budget == 0 {
            return;
        }
        self.budget -= 1;
        let buf = obj.message_bytes();
        assert!(inside(self.outer, buf));
        if !obj.is_null() {
            assert!(obj.position() >= HEADER_SIZE && obj.position() < buf.len());
        }
        // the root gets every schema-like offset 0, 4, .., 124 and a few huge ones
        let sweep = if depth == 0 { 32 } else { 0 };
        for k in 0..sweep + 6 {
            let off = if k < sweep {
                k * 4
            } else {
                self.offset(buf.len())
            };
            self.read_all(obj, off);
            if depth < 3 {
                let child = obj.object(off);
                if !child.is_null() {
                    self.walk_object(child, depth + 1);
                }
                let list = obj.list(off);
                if !list.is_null() {
                    let model = model_list(buf, obj.position(), off).unwrap_or(ModelList::EMPTY);
                    self.walk_list(list, model, depth + 1);
                }
            }
        }
    }

    fn read_all(&mut self, obj: Object<'m>, off: usize) {
        let buf = obj.message_bytes();
        let pos = obj.position();
        let byte = le::<1>(buf, pos.checked_add(off)).unwrap_or([0])[0];
        assert_eq!(obj.bool(off), byte != 0);
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
        assert_eq!(
            (obj.u8(off), obj.u16(off), obj.u32(off), obj.u64(off)),
            (obj.get(off), obj.get(off), obj.get(off), obj.get(off))
        );
        assert_eq!(
            (obj.i8(off), obj.i16(off), obj.i32(off), obj.i64(off)),
            (obj.get(off), obj.get(off), obj.get(off), obj.get(off))
        );
        assert_eq!(obj.f32(off).to_bits(), obj.get::<f32>(off).to_bits());
        assert_eq!(obj.f64(off).to_bits(), obj.get::<f64>(off).to_bits());
        check_fixed::<0>(obj, off);
        check_fixed::<1>(obj, off);
        check_fixed::<8>(obj, off);
        check_fixed::<20>(obj, off);
        check_fixed::<32>(obj, off);
        check_verified::<8>(obj, off);
        check_verified::<36>(obj, off);
        check_verified::<56>(obj, off);
        check_verified::<128>(obj, off);

        let n = match self.dice.below(4) {
            0 => HUGE[self.dice.below(HUGE.len())],
            _ => self.dice.below(80),
        };
        let s = obj.bytes_fixed_slice(off, n);
        let range = pos
            .checked_add(off)
            .and_then(|a| Some(a..a.checked_add(n)?))
            .filter(|r| r.end <= buf.len() && !buf.is_empty());
        match range {
            Some(r) => assert!(is_view_of(buf, s, &r)),
            None => assert!(s.is_empty()),
        }

        let b = obj.bytes(off);
        match model_bytes(buf, pos, off) {
            Some(r) => assert!(is_view_of(buf, b, &r), "bytes at {off}"),
            None => assert!(b.is_empty(), "bytes at {off}"),
        }
        assert!(inside(self.outer, b));
        let t = obj.text(off);
        assert!(inside(self.outer, t.as_bytes()));
        match obj.try_text(off) {
            Ok(s) => assert!(s.as_bytes() == b && t == s),
            Err(_) => assert!(std::str::from_utf8(b).is_err() && t.is_empty()),
        }

        assert_lands(obj.object(off), buf, model_object(buf, pos, off));
        let list = obj.list(off);
        let model = model_list(buf, pos, off);
        assert_eq!(list.is_null(), model.is_none());
        assert_eq!(list.len(), model.map_or(0, |m| m.count));
        assert_eq!(list.is_empty(), list.len().eq(&0));

        if obj.is_null() {
            assert!(buf.is_empty() && pos == 0);
            assert!(!obj.bool(off) && obj.u64(off) == 0 && obj.f64(off).to_bits() == 0);
            assert!(obj.bytes(off).is_empty() && obj.text(off).is_empty());
            assert!(obj.object(off).is_null() && obj.list(off).is_null());
        }
    }

    fn walk_list(&mut self, list: List<'m>, m: ModelList<'m>, depth: usize) {
        if self.budget == 0 {
            return;
        }
        self.budget -= 1;
        assert_eq!(list.len(), m.count);

        self.strided::<u8, 1>(list, m, u8::to_le_bytes);
        self.strided::<i16, 2>(list, m, i16::to_le_bytes);
        self.strided::<u32, 4>(list, m, u32::to_le_bytes);
        self.strided::<f32, 4>(list, m, |v| v.to_bits().to_le_bytes());
        self.strided::<u64, 8>(list, m, u64::to_le_bytes);
        self.strided::<f64, 8>(list, m, |v| v.to_bits().to_le_bytes());
        let bools = list.scalars::<bool>().count();
        assert_eq!(bools, list.scalars::<u8>().count());
        for (b, x) in list.scalars::<bool>().zip(list.scalars::<u8>()) {
            assert_eq!(b, x != 0);
        }
        for _ in 0..2 {
            let i = self.index(list.len());
            assert_eq!(list.get::<bool>(i), list.get::<u8>(i) != 0);
        }
        self.list_fixed::<0>(list, m);
        self.list_fixed::<3>(list, m);
        self.list_fixed::<20>(list, m);

        // strided structs: a handful of widths, fully consumed, plus index access
        let mut widths = [0usize, 1, 4, 8, 12, 16, 24, 28, 0, 0];
        widths[8] = self.dice.below(64);
        widths[9] = HUGE[self.dice.below(HUGE.len())];
        for width in widths {
            for _ in 0..2 {
                let i = self.index(list.len());
                assert_lands(list.object(i, width), m.buf, m.live_element(i, width));
            }
            let it = list.objects(width);
            let hint = it.len();
            let mut n = 0;
            for (i, o) in it.enumerate() {
                assert_lands(o, m.buf, m.live_element(i, width));
                n += 1;
            }
            assert!(n == hint && n <= list.len());
            assert_eq!(n, if m.strided_ok(width) { m.count } else { 0 });
            // The loop typed struct lists run: the same elements, with each element's
            // bytes exactly where all of them are in the message.
            let folded = list.objects(width).fold_fixed(0, |i, o, fixed| {
                let want = m.live_element(i, width);
                assert_lands(o, m.buf, want);
                if let Some(fixed) = fixed {
                    let p = want.expect("fixed bytes for a null element");
                    assert_eq!(Some(fixed), m.buf.get(p..p + width), "element {i} bytes");
                }
                i + 1
            });
            assert_eq!(folded, n, "fold_fixed element count");
        }
        if depth < 3 {
            let width = [8usize, 12, 16, 24][self.dice.below(4)];
            let objs: Vec<Object<'m>> = list.objects(width).take(2).collect();
            for o in objs {
                self.walk_object(o, depth + 1);
            }
        }

        // framed: model the element walk, compare payload by payload
        let mut want = Vec::new();
        let mut p = m.start;
        for _ in 0..m.count {
            let Some(len) = le_u32(m.buf, Some(p)) else {
                break;
            };
            let (s, e) = (p + 4, p + 4 + len as usize);
            if e > m.buf.len() {
                break;
            }
            want.push(s..e);
            p = e;
        }
        let mut it = list.framed();
        let mut total = 0usize;
        let mut n = 0;
        for payload in it.by_ref() {
            assert!(n < want.len(), "more framed elements than the model");
            assert!(is_view_of(m.buf, payload, &want[n]));
            assert!(inside(self.outer, payload));
            total += payload.len();
            n += 1;
        }
        assert!(it.next().is_none());
        assert_eq!(n, want.len());
        assert!(n <= list.len() && total <= m.buf.len());

        let mut n = 0;
        for (t, r) in list.texts().zip(&want) {
            let raw = &m.buf[r.clone()];
            match std::str::from_utf8(raw) {
                Ok(s) => assert!(t == s && (t.is_empty() || t.as_ptr() == raw.as_ptr())),
                Err(_) => assert!(t.is_empty()),
            }
            n += 1;
        }
        assert_eq!(n, want.len());
        assert_eq!(list.texts().count(), want.len());

        let messages: Vec<Object<'m>> = list.messages().collect();
        assert_eq!(messages.len(), want.len());
        for (o, r) in messages.iter().zip(&want) {
            let payload = &m.buf[r.clone()];
            match model_parse(payload) {
                None => assert!(o.is_null()),
                Some(size) => {
                    let root = u32::from_le_bytes(payload[8..12].try_into().unwrap()) as usize;
                    let want = (root >= 16 && root < size).then_some(root);
                    assert_lands(*o, &payload[..size], want);
                }
            }
        }
        if depth < 3 {
            for o in messages.into_iter().filter(|o| !o.is_null()).take(2) {
                self.walk_object(o, depth + 1);
            }
        }

        // pointer list
        let it = list.pointers();
        let hint = it.len();
        let mut live = Vec::new();
        let mut n = 0;
        for (i, o) in it.enumerate() {
            let slot = m.start + 4 * i;
            let want = match le_i32(m.buf, Some(slot)).expect("pointer slot inside") {
                0 => None,
                rel => target(m.buf.len(), slot, rel),
            };
            assert_lands(o, m.buf, want);
            if !o.is_null() && live.len() < 2 {
                live.push(o);
            }
            n += 1;
        }
        assert!(n == hint && n <= list.len());
        assert_eq!(n, if m.strided_ok(4) { m.count } else { 0 });
        if depth < 3 {
            for o in live {
                self.walk_object(o, depth + 1);
            }
        }
    }

    fn strided<T: Scalar, const W: usize>(
        &mut self,
        list: List<'m>,
        m: ModelList<'_>,
        bits: fn(T) -> [u8; W],
    ) {
        for _ in 0..2 {
            let i = self.index(list.len());
            let want = le::<W>(m.buf, m.element(i, W)).unwrap_or([0; W]);
            assert_eq!(bits(list.get::<T>(i)), want);
        }
        let it = list.scalars::<T>();
        let hint = it.len();
        let mut n = 0;
        for (i, v) in it.enumerate() {
            assert_eq!(Some(bits(v)), le::<W>(m.buf, m.element(i, W)));
            n += 1;
        }
        assert!(n == hint && n <= list.len());
        assert_eq!(n, if m.strided_ok(W) { m.count } else { 0 });
    }

    fn list_fixed<const N: usize>(&mut self, list: List<'m>, m: ModelList<'_>) {
        for _ in 0..2 {
            let i = self.index(list.len());
            let got = list.bytes_fixed::<N>(i);
            match m.element(i, N) {
                Some(p) => assert!(is_view_of(m.buf, got, &(p..p + N))),
                None => assert_eq!(got, &[0u8; N]),
            }
        }
    }
}

/// FNV-1a, to seed the walk from bytes.
pub fn seed_of(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// Parse `buf` and walk it; the bytes after the message (which the parser ignores) seed
/// the random part of the walk, so the fuzzer can vary the walk without touching the
/// message.
pub fn walk(buf: &[u8]) {
    let seed = match model_parse(buf) {
        Some(size) => seed_of(&buf[size..]),
        None => seed_of(buf),
    };
    Walker::new(buf, seed).walk_message(buf);
}

pub mod mutate;
pub mod schemas;
pub mod seeds;
pub mod support;
pub mod targets;

//! A call's context: its deadline and its metadata, on the wire and in a handler.
//!
//! **On the wire** (ZAP/TCP, both framings, and QUIC) the context rides in the request
//! frame, after the request envelope: the envelope is a ZAP message whose header says
//! how long it is, and every ZAP runtime reads a frame's envelope up to that length and
//! ignores what follows (the Go, Python and TypeScript runtimes check only that the
//! declared size fits the buffer). So a call that carries a context is answered by any
//! runtime, and one that carries none is the call it always was. The bytes after the
//! envelope are an [`Extension`]:
//!
//! ```text
//! 0   "ZC"           2 bytes, the extension's magic
//! 2   version  u8    1
//! 3   flags    u8    bit 0: a budget follows; every other bit must be 0
//! 4   count    u16   metadata pairs
//! 6   reserved u16   0
//! 8   budget   u64   microseconds the caller still waits (only with flag bit 0)
//! ..  count × ( key length u8 | key | value length u32 | value )
//! ```
//!
//! All integers little-endian; the pairs end exactly at the end of the frame. The
//! deadline travels as the time left (a budget), not as a point in time, so the two
//! hosts' clocks need not agree; each hop starts its own clock when the frame arrives.
//! An answer may carry metadata the same way after the response envelope (no budget).
//!
//! Anything else after the envelope is refused (status 400, the connection kept): a
//! wrong magic or version, an unknown flag bit, a non-zero reserved field, a key that
//! is empty, too long or not made of `a-z 0-9 - _ .`, lengths that run past the frame,
//! bytes left over, more than [`MAX_PAIRS`] pairs or more than [`MAX_METADATA_BYTES`]
//! of keys and values.
//!
//! **In a handler**, [`Context::current`] (features `server`, `client`, `jsonrpc`)
//! tells the call's deadline and metadata; a generated client called from inside a
//! handler passes what is left of the deadline on.

use bytes::Bytes;
use std::time::Duration;

#[cfg(any(feature = "server", feature = "client", feature = "jsonrpc"))]
mod scope;
#[cfg(any(feature = "server", feature = "http"))]
pub(crate) use scope::with_peer;
#[cfg(any(feature = "server", feature = "client", feature = "jsonrpc"))]
#[cfg_attr(
    docsrs,
    doc(cfg(any(feature = "server", feature = "client", feature = "jsonrpc")))
)]
pub use scope::{peer_addr, AnswerMetadata, CallOptions, Context, PROPAGATION_MARGIN};

/// The extension's first two bytes.
pub const MAGIC: [u8; 2] = *b"ZC";
/// The version this runtime writes and reads.
pub const VERSION: u8 = 1;
/// Flag bit 0: a budget follows the fixed part.
pub const FLAG_BUDGET: u8 = 1;
/// The fixed part: magic, version, flags, count, reserved.
pub const FIXED: usize = 8;
/// At most this many metadata pairs in one extension.
pub const MAX_PAIRS: usize = 64;
/// At most this many bytes of keys and values together in one extension.
pub const MAX_METADATA_BYTES: usize = 8 << 10;
/// At most this many bytes in a key.
pub const MAX_KEY_LEN: usize = 128;

/// Why an extension (or a metadata pair) is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExtensionError {
    #[error("{len} bytes follow the envelope: too few for a call context extension ({FIXED} bytes at least)")]
    Short { len: usize },
    #[error("the bytes after the envelope do not start with the call context magic \"ZC\"")]
    Magic,
    #[error(
        "call context extension version {0} is not supported (this server reads version {VERSION})"
    )]
    Version(u8),
    #[error("call context flags {0:#04x} name bits this server does not know (only bit 0, a budget, is defined)")]
    Flags(u8),
    #[error("the call context's reserved field is {0}, not 0")]
    Reserved(u16),
    #[error("the call context ends inside {0}")]
    Truncated(&'static str),
    #[error("{0} bytes are left after the call context's last metadata pair")]
    Trailing(usize),
    #[error("{0} metadata pairs: at most {MAX_PAIRS} are allowed")]
    TooManyPairs(usize),
    #[error(
        "{0} bytes of metadata: at most {MAX_METADATA_BYTES} bytes of keys and values are allowed"
    )]
    TooLarge(usize),
    #[error(
        "metadata key {0:?} is not 1 to {MAX_KEY_LEN} characters of a-z, 0-9, '-', '_' and '.'"
    )]
    Key(String),
    #[error("this call's caller sent no context, so its answer carries no metadata back")]
    NoAnswer,
}

/// Whether `key` may name a metadata pair: 1 to [`MAX_KEY_LEN`] bytes of `a-z`, `0-9`,
/// `-`, `_` and `.` (so every key is also a valid HTTP header name).
pub fn valid_key(key: &[u8]) -> bool {
    !key.is_empty()
        && key.len() <= MAX_KEY_LEN
        && key
            .iter()
            .all(|&b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.'))
}

/// A call context extension read from the bytes after an envelope, borrowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extension<'a> {
    budget: Option<Duration>,
    count: usize,
    pairs: &'a [u8],
}

impl<'a> Extension<'a> {
    /// Read and check the whole extension (see the module documentation for what is
    /// refused).
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ExtensionError> {
        if bytes.len() < FIXED {
            return Err(ExtensionError::Short { len: bytes.len() });
        }
        if bytes[..2] != MAGIC {
            return Err(ExtensionError::Magic);
        }
        if bytes[2] != VERSION {
            return Err(ExtensionError::Version(bytes[2]));
        }
        let flags = bytes[3];
        if flags & !FLAG_BUDGET != 0 {
            return Err(ExtensionError::Flags(flags));
        }
        let count = usize::from(u16::from_le_bytes([bytes[4], bytes[5]]));
        let reserved = u16::from_le_bytes([bytes[6], bytes[7]]);
        if reserved != 0 {
            return Err(ExtensionError::Reserved(reserved));
        }
        if count > MAX_PAIRS {
            return Err(ExtensionError::TooManyPairs(count));
        }
        let mut rest = &bytes[FIXED..];
        let budget = if flags & FLAG_BUDGET != 0 {
            let (micros, after) = rest
                .split_first_chunk::<8>()
                .ok_or(ExtensionError::Truncated("the budget"))?;
            rest = after;
            Some(Duration::from_micros(u64::from_le_bytes(*micros)))
        } else {
            None
        };
        let pairs = rest;
        let mut total = 0usize;
        for _ in 0..count {
            let (&key_len, after) = rest
                .split_first()
                .ok_or(ExtensionError::Truncated("a key's length"))?;
            let key = after
                .get(..usize::from(key_len))
                .ok_or(ExtensionError::Truncated("a key"))?;
            if !valid_key(key) {
                return Err(ExtensionError::Key(
                    String::from_utf8_lossy(key).into_owned(),
                ));
            }
            let after = &after[key.len()..];
            let (len, after) = after
                .split_first_chunk::<4>()
                .ok_or(ExtensionError::Truncated("a value's length"))?;
            let value_len = u32::from_le_bytes(*len) as usize;
            total = total.saturating_add(key.len()).saturating_add(value_len);
            if total > MAX_METADATA_BYTES {
                return Err(ExtensionError::TooLarge(total));
            }
            rest = after
                .get(value_len..)
                .ok_or(ExtensionError::Truncated("a value"))?;
        }
        if !rest.is_empty() {
            return Err(ExtensionError::Trailing(rest.len()));
        }
        Ok(Extension {
            budget,
            count,
            pairs: &pairs[..pairs.len() - rest.len()],
        })
    }

    /// The time the caller still waits, as it was when the frame was sent.
    pub fn budget(&self) -> Option<Duration> {
        self.budget
    }

    /// The number of metadata pairs.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether there is no metadata.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The metadata pairs in order, as `(key, value)` ranges of the bytes given to
    /// [`Extension::parse`] shifted by `base` (the extension's position in its frame),
    /// so a transport can cut each out of the frame without a copy.
    pub fn pair_ranges(
        &self,
        base: usize,
    ) -> impl Iterator<Item = (core::ops::Range<usize>, core::ops::Range<usize>)> + 'a {
        let mut rest = self.pairs;
        let mut at = base + self.budget.map_or(FIXED, |_| FIXED + 8);
        (0..self.count).map(move |_| {
            // Checked by `parse`: every length is within the bytes.
            let key_len = usize::from(rest[0]);
            let key = at + 1..at + 1 + key_len;
            let value_len =
                u32::from_le_bytes(rest[1 + key_len..5 + key_len].try_into().unwrap_or([0; 4]))
                    as usize;
            let value = key.end + 4..key.end + 4 + value_len;
            let used = 5 + key_len + value_len;
            rest = &rest[used..];
            at += used;
            (key, value)
        })
    }
}

/// Key/value pairs sent beside a call or its answer: binary-safe values under keys of
/// `a-z 0-9 - _ .`, at most [`MAX_PAIRS`] pairs and [`MAX_METADATA_BYTES`] bytes. Keys
/// may repeat; [`Metadata::get`] finds the first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Metadata {
    pairs: Vec<(Bytes, Bytes)>,
    bytes: usize,
}

impl Metadata {
    /// No pairs.
    pub const fn new() -> Self {
        Metadata {
            pairs: Vec::new(),
            bytes: 0,
        }
    }

    /// Add a pair; refused when the key is not valid ([`valid_key`]) or the limits
    /// would be passed.
    pub fn insert(
        &mut self,
        key: impl AsRef<str>,
        value: impl Into<Bytes>,
    ) -> Result<&mut Self, ExtensionError> {
        let key = key.as_ref();
        if !valid_key(key.as_bytes()) {
            return Err(ExtensionError::Key(key.to_owned()));
        }
        let value = value.into();
        if self.pairs.len() >= MAX_PAIRS {
            return Err(ExtensionError::TooManyPairs(self.pairs.len() + 1));
        }
        let bytes = self.bytes + key.len() + value.len();
        if bytes > MAX_METADATA_BYTES {
            return Err(ExtensionError::TooLarge(bytes));
        }
        self.pairs
            .push((Bytes::copy_from_slice(key.as_bytes()), value));
        self.bytes = bytes;
        Ok(self)
    }

    /// The pairs of a checked extension, cut out of `frame` (which holds the extension
    /// at `base`) without copying.
    pub fn from_extension(extension: &Extension<'_>, frame: &Bytes, base: usize) -> Self {
        let mut bytes = 0;
        let pairs = extension
            .pair_ranges(base)
            .map(|(key, value)| {
                bytes += key.len() + value.len();
                (frame.slice(key), frame.slice(value))
            })
            .collect();
        Metadata { pairs, bytes }
    }

    /// The value of the first pair named `key`.
    pub fn get(&self, key: &str) -> Option<&[u8]> {
        self.pairs
            .iter()
            .find(|(k, _)| k.as_ref() == key.as_bytes())
            .map(|(_, v)| v.as_ref())
    }

    /// The value of the first pair named `key`, if it is UTF-8.
    pub fn get_str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(|v| std::str::from_utf8(v).ok())
    }

    /// Every pair in order (keys are ASCII, so always `str`).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.pairs
            .iter()
            .map(|(k, v)| (std::str::from_utf8(k).unwrap_or(""), v.as_ref()))
    }

    /// The number of pairs.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Whether there are no pairs.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }
}

/// The metadata an answer carries after its envelope (`frame[envelope]`: the response
/// message, then, when the frame is longer than the message says, an extension without
/// a budget); `None` for none.
pub fn answer_metadata(
    frame: &Bytes,
    envelope: core::ops::Range<usize>,
) -> Result<Option<Metadata>, ExtensionError> {
    let bytes = &frame[envelope.clone()];
    let Some(size) = after_envelope(bytes) else {
        return Ok(None);
    };
    let extension = Extension::parse(&bytes[size..])?;
    if extension.budget().is_some() {
        return Err(ExtensionError::Flags(FLAG_BUDGET));
    }
    Ok(Some(Metadata::from_extension(
        &extension,
        frame,
        envelope.start + size,
    )))
}

/// Where the bytes after the envelope message at the start of `bytes` begin (its
/// header's declared size), when there are any. `bytes` is an envelope that parsed, so
/// its header is whole and its size within the bytes.
pub(crate) fn after_envelope(bytes: &[u8]) -> Option<usize> {
    let size = bytes.get(12..16).map_or(bytes.len(), |s| {
        u32::from_le_bytes([s[0], s[1], s[2], s[3]]) as usize
    });
    (size < bytes.len()).then_some(size)
}

/// Append the extension for `budget` and `metadata` to `out`. The budget is rounded up
/// to a whole microsecond (a budget of zero says the deadline has passed).
pub fn write_extension(out: &mut Vec<u8>, budget: Option<Duration>, metadata: &Metadata) {
    out.extend_from_slice(&MAGIC);
    out.push(VERSION);
    out.push(if budget.is_some() { FLAG_BUDGET } else { 0 });
    // `Metadata` holds at most MAX_PAIRS pairs.
    out.extend_from_slice(&(metadata.pairs.len() as u16).to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    if let Some(budget) = budget {
        let micros = u64::try_from(budget.as_nanos().div_ceil(1000)).unwrap_or(u64::MAX);
        out.extend_from_slice(&micros.to_le_bytes());
    }
    for (key, value) in &metadata.pairs {
        out.push(key.len() as u8);
        out.extend_from_slice(key);
        out.extend_from_slice(&(value.len() as u32).to_le_bytes());
        out.extend_from_slice(value);
    }
}

/// The length [`write_extension`] appends.
pub fn extension_len(budget: Option<Duration>, metadata: &Metadata) -> usize {
    FIXED
        + if budget.is_some() { 8 } else { 0 }
        + metadata
            .pairs
            .iter()
            .map(|(k, v)| 5 + k.len() + v.len())
            .sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(pairs: &[(&str, &[u8])]) -> Metadata {
        let mut m = Metadata::new();
        for (k, v) in pairs {
            m.insert(k, Bytes::copy_from_slice(v))
                .expect("a valid pair");
        }
        m
    }

    #[test]
    fn round_trip() {
        let m = meta(&[
            ("request-id", b"abc"),
            ("bin", &[0, 255, 10]),
            ("empty", b""),
        ]);
        for budget in [
            None,
            Some(Duration::from_millis(2500)),
            Some(Duration::ZERO),
        ] {
            let mut out = vec![9, 9];
            write_extension(&mut out, budget, &m);
            assert_eq!(out.len() - 2, extension_len(budget, &m));
            let ext = Extension::parse(&out[2..]).expect("parses");
            assert_eq!(ext.budget(), budget);
            assert_eq!(ext.len(), 3);
            let back = Metadata::from_extension(&ext, &Bytes::from(out.clone()), 2);
            assert_eq!(back, m);
            assert_eq!(back.get("bin"), Some(&[0, 255, 10][..]));
            assert_eq!(back.get_str("request-id"), Some("abc"));
        }
    }

    #[test]
    fn budget_rounds_up_to_a_microsecond() {
        let mut out = Vec::new();
        write_extension(&mut out, Some(Duration::from_nanos(1)), &Metadata::new());
        assert_eq!(
            Extension::parse(&out).unwrap().budget(),
            Some(Duration::from_micros(1))
        );
    }

    #[test]
    fn limits_hold_on_both_sides() {
        let mut m = Metadata::new();
        for i in 0..MAX_PAIRS {
            m.insert(format!("k{i}"), Bytes::new()).unwrap();
        }
        assert_eq!(
            m.insert("one-more", Bytes::new()).unwrap_err(),
            ExtensionError::TooManyPairs(MAX_PAIRS + 1)
        );
        let mut m = Metadata::new();
        m.insert("big", vec![0u8; MAX_METADATA_BYTES - 3]).unwrap();
        assert!(matches!(
            m.insert("x", vec![1u8]).unwrap_err(),
            ExtensionError::TooLarge(_)
        ));
        for bad in [
            "",
            "Upper",
            "sp ace",
            "colon:",
            &"k".repeat(MAX_KEY_LEN + 1),
        ] {
            assert!(matches!(
                Metadata::new().insert(bad, Bytes::new()).unwrap_err(),
                ExtensionError::Key(_)
            ));
        }
    }

    #[test]
    fn hostile_extensions_are_refused() {
        let mut good = Vec::new();
        write_extension(
            &mut good,
            Some(Duration::from_secs(1)),
            &meta(&[("a", b"b")]),
        );
        assert!(Extension::parse(&good).is_ok());
        // Every truncation is refused, never read past the end.
        for cut in 0..good.len() {
            assert!(Extension::parse(&good[..cut]).is_err(), "cut at {cut}");
        }
        let mut longer = good.clone();
        longer.push(0);
        assert_eq!(Extension::parse(&longer), Err(ExtensionError::Trailing(1)));
        let mut bad = good.clone();
        bad[0] = b'X';
        assert_eq!(Extension::parse(&bad), Err(ExtensionError::Magic));
        let mut bad = good.clone();
        bad[2] = 2;
        assert_eq!(Extension::parse(&bad), Err(ExtensionError::Version(2)));
        let mut bad = good.clone();
        bad[3] = 0b11;
        assert_eq!(Extension::parse(&bad), Err(ExtensionError::Flags(3)));
        let mut bad = good.clone();
        bad[6] = 1;
        assert_eq!(Extension::parse(&bad), Err(ExtensionError::Reserved(1)));
        // A count that lies: more pairs than there are.
        let mut bad = good.clone();
        bad[4] = 2;
        assert!(matches!(
            Extension::parse(&bad),
            Err(ExtensionError::Truncated(_))
        ));
        // A value length that lies.
        let mut bad = good.clone();
        let value_len_at = FIXED + 8 + 1 + 1;
        bad[value_len_at..value_len_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            Extension::parse(&bad),
            Err(ExtensionError::TooLarge(_))
        ));
        let mut bad = good.clone();
        bad[value_len_at..value_len_at + 4].copy_from_slice(&2u32.to_le_bytes());
        assert!(matches!(
            Extension::parse(&bad),
            Err(ExtensionError::Truncated("a value"))
        ));
        // A key that is not a token.
        let mut bad = good;
        bad[FIXED + 8 + 1] = b'A';
        assert!(matches!(
            Extension::parse(&bad),
            Err(ExtensionError::Key(_))
        ));
        // A count over the limit.
        let mut many = vec![b'Z', b'C', 1, 0, 0, 0, 0, 0];
        many[4..6].copy_from_slice(&((MAX_PAIRS + 1) as u16).to_le_bytes());
        assert_eq!(
            Extension::parse(&many),
            Err(ExtensionError::TooManyPairs(MAX_PAIRS + 1))
        );
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for len in 0..400 {
            let bytes: Vec<u8> = (0..len)
                .map(|i| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    // Mostly a plausible head, so the pair reader is reached.
                    match i {
                        0 => b'Z',
                        1 => b'C',
                        2 => 1,
                        3 => (seed & 1) as u8,
                        6 | 7 => 0,
                        _ => seed as u8,
                    }
                })
                .collect();
            if let Ok(ext) = Extension::parse(&bytes) {
                let frame = Bytes::from(bytes.clone());
                let m = Metadata::from_extension(&ext, &frame, 0);
                assert_eq!(m.len(), ext.len());
            }
        }
    }
}

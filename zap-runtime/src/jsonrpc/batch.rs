//! Reading a JSON-RPC body: one request or a batch, each kept as the raw JSON slice it
//! is (nothing is copied or built into a tree), where a batch over the limit is counted
//! without being kept, so an oversized batch costs no memory for its calls.

use serde::de::{DeserializeSeed, IgnoredAny, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// What a body holds.
#[derive(Debug)]
pub(super) enum Body<'a> {
    /// One request (anything that does not start with `[`): not yet checked to be JSON,
    /// which reading its envelope does in the same pass.
    Single(&'a str),
    /// A batch of at most `max_batch` requests (maybe empty).
    Batch(Vec<&'a RawValue>),
    /// A batch of this many requests, more than `max_batch`.
    TooLarge(usize),
}

/// Parse `body` (already checked to be UTF-8); at most `max_batch` batch members are
/// kept. The whole body is checked to be valid JSON either way.
pub(super) fn parse(body: &str, max_batch: usize) -> Result<Body<'_>, serde_json::Error> {
    if nesting_exceeds(body, MAX_NESTING) {
        return Err(serde::de::Error::custom(format!(
            "nested more than {MAX_NESTING} levels deep"
        )));
    }
    let is_batch = body
        .bytes()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| b == b'[');
    if !is_batch {
        return Ok(Body::Single(body));
    }
    let mut de = serde_json::Deserializer::from_str(body);
    let parsed = BatchSeed { max_batch }.deserialize(&mut de)?;
    de.end()?;
    Ok(parsed)
}

/// The deepest nesting of arrays and objects accepted: serde_json's own limit for the
/// values it builds. Raw slices are skipped without one, so it is checked here first.
const MAX_NESTING: usize = 128;

/// True when `[`/`{` nest deeper than `max` outside strings (one pass, no allocation).
fn nesting_exceeds(body: &str, max: usize) -> bool {
    // Nesting deeper than `max` needs more than `max` openers, so more than `max`
    // bytes: most bodies have far fewer, and counting them is quicker than following
    // strings.
    if body.len() <= max || openers(body.as_bytes()) <= max {
        return false;
    }
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in body.as_bytes() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// How many `[` and `{` bytes `bytes` holds. Counted in blocks whose count fits a byte,
/// so that the compiler keeps the counters in vector lanes.
fn openers(bytes: &[u8]) -> usize {
    bytes
        .chunks(255)
        .map(|block| {
            // `[` (0x5B) and `{` (0x7B) are the only bytes that are `{` with bit 5 set.
            let n = block
                .iter()
                .fold(0u8, |n, &b| n + u8::from(b | 0x20 == b'{'));
            usize::from(n)
        })
        .sum()
}

struct BatchSeed {
    max_batch: usize,
}

impl<'de> DeserializeSeed<'de> for BatchSeed {
    type Value = Body<'de>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Body<'de>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for BatchSeed {
    type Value = Body<'de>;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("a batch: an array of request objects")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Body<'de>, A::Error> {
        let mut calls = Vec::new();
        while calls.len() < self.max_batch {
            match seq.next_element::<&'de RawValue>()? {
                Some(call) => calls.push(call),
                None => return Ok(Body::Batch(calls)),
            }
        }
        if seq.next_element::<IgnoredAny>()?.is_none() {
            return Ok(Body::Batch(calls));
        }
        let mut count = calls.len() + 1;
        drop(calls);
        // Past the limit: check the rest is valid JSON and count it, building nothing.
        while seq.next_element::<IgnoredAny>()?.is_some() {
            count += 1;
        }
        Ok(Body::TooLarge(count))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_batch_and_too_large() {
        assert!(matches!(parse(" {\"a\":1}", 2), Ok(Body::Single(_))));
        assert!(matches!(parse("7", 2), Ok(Body::Single(_))));
        assert!(matches!(parse("\n[1, 2]", 2), Ok(Body::Batch(v)) if v.len() == 2));
        assert!(matches!(parse("[]", 2), Ok(Body::Batch(v)) if v.is_empty()));
        assert!(matches!(parse("[1, 2, {}, [3]]", 2), Ok(Body::TooLarge(4))));
    }

    #[test]
    fn openers_are_counted_in_long_bodies() {
        assert_eq!(openers(b""), 0);
        assert_eq!(openers(b"[{}]{x[;K"), 4);
        // Every byte value once: only `[` and `{` count.
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(openers(&all), 2);
        // Blocks of 255 and their sum: 1,000 openers among 10,000 bytes.
        let long: Vec<u8> = (0..10_000)
            .map(|i| match i % 10 {
                0 => b'[',
                5 if i % 20 == 5 => b'{',
                _ => b'a',
            })
            .collect();
        assert_eq!(openers(&long), 1_500);
    }

    #[test]
    fn nesting_is_limited_outside_strings() {
        let deep = format!("{}{}", "[".repeat(129), "]".repeat(129));
        assert!(parse(&deep, 5).is_err());
        let fine = format!("{}{}", "[".repeat(128), "]".repeat(128));
        assert!(parse(&fine, 5).is_ok());
        let quoted = format!("[\"{}\\\"\"]", "[".repeat(500));
        assert!(
            parse(&quoted, 5).is_ok(),
            "brackets in strings do not count"
        );
    }

    #[test]
    fn malformed_is_an_error_even_past_the_limit() {
        assert!(parse("[1, 2, 3", 1).is_err());
        assert!(parse("[1, 2] x", 5).is_err());
        assert!(parse("[1, 2, nul]", 1).is_err());
        assert!(parse("[1, \"\\x\"]", 1).is_err());
        assert!(parse("[", 1).is_err());
    }

    /// A body that is not a batch is checked to be JSON where its envelope is read.
    #[test]
    fn a_single_body_is_left_to_the_envelope_reader() {
        assert!(matches!(parse("", 1), Ok(Body::Single(""))));
        assert!(matches!(parse("{x", 1), Ok(Body::Single("{x"))));
    }
}

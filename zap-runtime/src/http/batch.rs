//! Reading a JSON-RPC body: one request or a batch, where a batch over the limit is
//! counted without being built, so an oversized batch costs no memory for its calls.

use serde::de::{DeserializeSeed, IgnoredAny, SeqAccess, Visitor};
use serde_json::Value;

/// What a body holds.
#[derive(Debug)]
pub(super) enum Body {
    /// One request (any JSON value that is not an array; checked later).
    Single(Value),
    /// A batch of at most `max_batch` requests (maybe empty).
    Batch(Vec<Value>),
    /// A batch of this many requests, more than `max_batch`.
    TooLarge(usize),
}

/// Parse `body`; at most `max_batch` batch members are built.
pub(super) fn parse(body: &[u8], max_batch: usize) -> Result<Body, serde_json::Error> {
    let is_batch = body
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| *b == b'[');
    if !is_batch {
        return serde_json::from_slice(body).map(Body::Single);
    }
    let mut de = serde_json::Deserializer::from_slice(body);
    let parsed = BatchSeed { max_batch }.deserialize(&mut de)?;
    de.end()?;
    if let Body::TooLarge(_) = parsed {
        // The members past the limit were skipped, and skipping a string does not check
        // its UTF-8; a body that is not UTF-8 is not JSON, whatever its length.
        if let Err(e) = std::str::from_utf8(body) {
            return Err(serde::de::Error::custom(format!(
                "invalid UTF-8 at byte {}",
                e.valid_up_to()
            )));
        }
    }
    Ok(parsed)
}

struct BatchSeed {
    max_batch: usize,
}

impl<'de> DeserializeSeed<'de> for BatchSeed {
    type Value = Body;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Body, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for BatchSeed {
    type Value = Body;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("a batch: an array of request objects")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Body, A::Error> {
        let mut calls = Vec::new();
        while calls.len() < self.max_batch {
            match seq.next_element::<Value>()? {
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
        assert!(matches!(parse(b" {\"a\":1}", 2), Ok(Body::Single(_))));
        assert!(matches!(parse(b"7", 2), Ok(Body::Single(_))));
        assert!(matches!(parse(b"\n[1, 2]", 2), Ok(Body::Batch(v)) if v.len() == 2));
        assert!(matches!(parse(b"[]", 2), Ok(Body::Batch(v)) if v.is_empty()));
        assert!(matches!(
            parse(b"[1, 2, {}, [3]]", 2),
            Ok(Body::TooLarge(4))
        ));
    }

    #[test]
    fn malformed_is_an_error_even_past_the_limit() {
        // Found by the `jsonrpc` fuzz target: invalid UTF-8 inside a string past the
        // limit was skipped unchecked, so the body was "too large" instead of not JSON.
        assert!(parse(b"[1, \"\xff\"]", 1).is_err());
        assert!(parse(b"[1, \"\xff\"]", 2).is_err());
        assert!(parse(b"[1, 2, 3", 1).is_err());
        assert!(parse(b"[1, 2] x", 5).is_err());
        assert!(parse(b"[1, 2, nul]", 1).is_err());
        assert!(parse(b"", 1).is_err());
    }
}

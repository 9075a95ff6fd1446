//! The JSON mapping of the schema language (used by the HTTP fallback and by
//! `zapc encode/decode`): field names in lowerCamelCase, integers as numbers (64-bit ones
//! also accepted as decimal or `0x` strings), `bytes` and `bytes_fixed` as `"0x…"`
//! lower-case hex, lists as arrays, a null child as `null`. A schema's `json(...)`
//! options change a field's key, write integers as Ethereum quantities ([`quantity`])
//! and accept block tags ([`block_tag`]); the binary layout never changes with them.
//!
//! Generated owned types derive serde with `#[serde(with = ...)]` pointing at the
//! modules here, so users need no serde dependency of their own.

use serde::de::{self, Deserializer, Visitor};
use serde::ser::{SerializeSeq, Serializer};
use serde::Deserialize;

use crate::error::ParseError;

pub mod enum_value;
mod numbers;
mod params;
mod result;

pub use numbers::{
    block_number, block_quantity, block_tag, parse_quantity, quantity, write_quantity, Quantity,
    QuantityError,
};
pub use params::{no_params, params_to_value, params_to_wire, raw_json_type};
pub use result::{no_result, result_to_json};

/// Lower-case hex digits, by value.
const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";

/// The value of one hex digit (either case).
fn hex_digit(c: u8) -> Option<u8> {
    match HEX_VALUES[usize::from(c)] {
        NOT_HEX => None,
        value => Some(value),
    }
}

/// Every byte's value as a hex digit, or [`NOT_HEX`].
const HEX_VALUES: [u8; 256] = {
    let mut values = [NOT_HEX; 256];
    let mut c = 0;
    while c < 256 {
        values[c] = match c as u8 {
            b @ b'0'..=b'9' => b - b'0',
            b @ b'a'..=b'f' => b - b'a' + 10,
            b @ b'A'..=b'F' => b - b'A' + 10,
            _ => NOT_HEX,
        };
        c += 1;
    }
    values
};
const NOT_HEX: u8 = 0xff;

/// Decode the pairs of hex digits in `digits` into `out` (as many as both hold), in one
/// branch-free pass; on a byte that is not a hex digit, the error names the first one
/// (`s` is the whole text, for the message).
fn decode_pairs(digits: &[u8], out: &mut [u8], s: &str) -> Result<(), String> {
    let mut bad = 0u8;
    for (byte, pair) in out.iter_mut().zip(digits.chunks_exact(2)) {
        let (high, low) = (
            HEX_VALUES[usize::from(pair[0])],
            HEX_VALUES[usize::from(pair[1])],
        );
        bad |= high | low;
        *byte = high << 4 | (low & 0x0f);
    }
    if bad & 0x80 == 0 {
        return Ok(());
    }
    let c = digits
        .iter()
        .copied()
        .find(|&c| hex_digit(c).is_none())
        .unwrap_or_default();
    Err(format!("{:?} is not a hex digit in {s:?}", c as char))
}

/// `0x` followed by lower-case hex of `bytes`.
pub fn to_hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(2 + bytes.len() * 2);
    s.push_str("0x");
    for b in bytes {
        s.push(HEX_DIGITS[(b >> 4) as usize] as char);
        s.push(HEX_DIGITS[(b & 15) as usize] as char);
    }
    s
}

/// Decode hex with or without `0x` (either case).
pub fn from_hex(s: &str) -> Result<Vec<u8>, String> {
    let digits = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    if !digits.len().is_multiple_of(2) {
        return Err(format!("hex string {s:?} has an odd number of digits"));
    }
    let mut out = vec![0u8; digits.len() / 2];
    decode_pairs(digits.as_bytes(), &mut out, s)?;
    Ok(out)
}

fn fixed<const N: usize>(s: &str) -> Result<[u8; N], String> {
    let digits = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s)
        .as_bytes();
    if !digits.len().is_multiple_of(2) {
        return Err(format!("hex string {s:?} has an odd number of digits"));
    }
    if digits.len() != 2 * N {
        return Err(format!(
            "expected {N} bytes of hex, found {} in {s:?}",
            digits.len() / 2
        ));
    }
    let mut out = [0u8; N];
    decode_pairs(digits, &mut out, s)?;
    Ok(out)
}

/// A string that borrows from the input when it has no escapes (serde's own `Cow<str>`
/// impl always copies): JSON-RPC envelope members and params keys.
pub(crate) struct CowStr<'de>(pub(crate) std::borrow::Cow<'de, str>);

impl<'de> Deserialize<'de> for CowStr<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CowStr<'de>;
            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<CowStr<'de>, E> {
                Ok(CowStr(std::borrow::Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<CowStr<'de>, E> {
                Ok(CowStr(std::borrow::Cow::Owned(s.to_owned())))
            }
        }
        d.deserialize_str(V)
    }
}

/// A string read without copying it when the input allows (serde's `Cow<str>` always
/// copies), handed to `f`.
struct WithStr<F>(F);

impl<'de, T, F: FnOnce(&str) -> Result<T, String>> Visitor<'de> for WithStr<F> {
    type Value = T;
    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("a hex string")
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<T, E> {
        (self.0)(s).map_err(E::custom)
    }
}

/// serde `with` module for `bytes` (`Vec<u8>` as `"0x…"`).
pub mod hex_bytes {
    use super::*;
    pub fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&to_hex(v))
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        d.deserialize_str(WithStr(from_hex))
    }
}

/// serde `with` module for `bytes_fixed[N]` (`[u8; N]` as `"0x…"`, exactly N bytes).
pub mod hex_array {
    use super::*;
    pub fn serialize<S: Serializer, const N: usize>(v: &[u8; N], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&to_hex(v))
    }
    pub fn deserialize<'de, D: Deserializer<'de>, const N: usize>(
        d: D,
    ) -> Result<[u8; N], D::Error> {
        d.deserialize_str(WithStr(fixed::<N>))
    }
}

/// serde `with` module for `list<bytes>`.
pub mod hex_bytes_list {
    use super::*;
    pub fn serialize<S: Serializer>(v: &[Vec<u8>], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(v.len()))?;
        for item in v {
            seq.serialize_element(&to_hex(item))?;
        }
        seq.end()
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Vec<u8>>, D::Error> {
        let items = Vec::<String>::deserialize(d)?;
        items
            .iter()
            .map(|s| from_hex(s).map_err(de::Error::custom))
            .collect()
    }
}

/// serde `with` module for `list<bytes_fixed[N]>`.
pub mod hex_array_list {
    use super::*;
    pub fn serialize<S: Serializer, const N: usize>(
        v: &[[u8; N]],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(v.len()))?;
        for item in v {
            seq.serialize_element(&to_hex(item))?;
        }
        seq.end()
    }
    pub fn deserialize<'de, D: Deserializer<'de>, const N: usize>(
        d: D,
    ) -> Result<Vec<[u8; N]>, D::Error> {
        let items = Vec::<String>::deserialize(d)?;
        items
            .iter()
            .map(|s| fixed(s).map_err(de::Error::custom))
            .collect()
    }
}

/// A 64-bit integer that reads from a JSON number, a decimal string or a `0x` string.
struct Lenient64<T>(T);

macro_rules! lenient_64 {
    ($t:ty, $module:ident, $list:ident) => {
        impl<'de> Deserialize<'de> for Lenient64<$t> {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl Visitor<'_> for V {
                    type Value = $t;
                    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                        f.write_str(concat!("a ", stringify!($t), " as a number, a decimal string or a 0x string"))
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$t, E> {
                        <$t>::try_from(v).map_err(|_| E::custom(format!("{v} does not fit {}", stringify!($t))))
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$t, E> {
                        <$t>::try_from(v).map_err(|_| E::custom(format!("{v} does not fit {}", stringify!($t))))
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$t, E> {
                        let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                            Some(hex) => <$t>::from_str_radix(hex, 16),
                            None => s.parse::<$t>(),
                        };
                        parsed.map_err(|_| E::custom(format!("{s:?} is not a valid {}", stringify!($t))))
                    }
                }
                d.deserialize_any(V).map(Lenient64)
            }
        }

        #[doc = concat!("serde `with` module for a `", stringify!($t), "` field (lenient on input).")]
        pub mod $module {
            use super::*;
            pub fn serialize<S: Serializer>(v: &$t, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_some(v)
            }
            pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
                Lenient64::<$t>::deserialize(d).map(|v| v.0)
            }
        }

        #[doc = concat!("serde `with` module for a `list<", stringify!($t), ">` field.")]
        pub mod $list {
            use super::*;
            pub fn serialize<S: Serializer>(v: &[$t], s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(v)
            }
            pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<$t>, D::Error> {
                let items = Vec::<Lenient64<$t>>::deserialize(d)?;
                Ok(items.into_iter().map(|v| v.0).collect())
            }
        }
    };
}

lenient_64!(u64, u64_lenient, u64_list);
lenient_64!(i64, i64_lenient, i64_list);

/// Why JSON-RPC `params` do not make a request message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParamsError {
    /// The method takes a struct but no params were given.
    #[error(
        "params are required: an object with the fields of {request}, or an array of them in order"
    )]
    Missing { request: &'static str },
    /// Positional params longer than the struct's field list.
    #[error("{request} has {fields} fields, but {given} positional params were given")]
    TooMany {
        request: &'static str,
        fields: usize,
        given: usize,
    },
    /// Params of the wrong JSON type (not an object or array).
    #[error("params must be an object or an array, found {found}")]
    WrongType { found: &'static str },
    /// The params make a request message over the builder's limit.
    #[error("params are too large: {0}")]
    TooLarge(#[from] crate::error::BuildError),
    /// A field failed to convert.
    #[error("invalid params for {request}: {reason}")]
    Invalid {
        request: &'static str,
        reason: String,
    },
    /// The method takes no params but some were given.
    #[error("this method takes no params")]
    Unexpected,
}

/// How an error message names the type of a JSON value: `null`, `a boolean`, `a number`,
/// `a string`, `an array`, `an object`.
pub fn json_type(v: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Why a response body could not be given its JSON mapping (answered as JSON-RPC
/// -32603, internal error, by the HTTP server).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResultError {
    /// The body is not a valid message of the response type.
    #[error("the response is not a valid message: {0}")]
    Decode(#[from] ParseError),
    /// The decoded value failed to serialize (its `Serialize` implementation refused).
    #[error("the response cannot be written as JSON: {0}")]
    Serialize(String),
}

#[cfg(test)]
mod hex_tests {
    use super::*;

    #[test]
    fn every_byte_is_a_hex_digit_or_not_as_char_says() {
        for c in 0..=255u8 {
            let expected = (c as char).to_digit(16).map(|d| d as u8);
            assert_eq!(hex_digit(c), expected, "byte {c}");
        }
    }

    #[test]
    fn hex_decodes_in_either_case_with_or_without_0x() {
        assert_eq!(from_hex("0x00ff7fAb"), Ok(vec![0x00, 0xff, 0x7f, 0xab]));
        assert_eq!(from_hex("0X10"), Ok(vec![0x10]));
        assert_eq!(from_hex("c0DE"), Ok(vec![0xc0, 0xde]));
        assert_eq!(from_hex("0x"), Ok(vec![]));
        assert_eq!(fixed::<2>("0xBeEf"), Ok([0xbe, 0xef]));
    }

    #[test]
    fn the_error_names_the_first_byte_that_is_not_hex() {
        assert_eq!(
            from_hex("0x12g4z6"),
            Err(r#"'g' is not a hex digit in "0x12g4z6""#.to_owned())
        );
        assert_eq!(
            fixed::<2>("0x1\u{e9}1"),
            Err("'Ã' is not a hex digit in \"0x1é1\"".to_owned())
        );
        assert!(from_hex("0x123")
            .unwrap_err()
            .contains("odd number of digits"));
        assert!(fixed::<2>("0x12").unwrap_err().contains("expected 2 bytes"));
    }
}

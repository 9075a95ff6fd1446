//! Ethereum's JSON encodings of numbers: quantities (`json(quantity)` in a schema) and
//! block tags (`json(block_tags)`).
//!
//! A quantity is `0x` followed by lower-case hex digits without leading zeros; zero is
//! `0x0`. Reading is as strict as Ethereum clients: a JSON string only (not a number),
//! `0x` (or `0X`) required, no leading zero digit, not just `0x`, at most the type's width. Upper-
//! case hex digits are accepted, as they are by those clients.

use serde::de::{self, Deserializer, Visitor};
use serde::ser::Serializer;

/// Block tags: the names Ethereum's JSON-RPC accepts in place of a block number, and the
/// reserved `u64` values they travel as on the wire (block numbers this large never
/// occur). `earliest` is the genesis block, 0.
pub mod block_tag {
    /// `"earliest"`: the genesis block.
    pub const EARLIEST: u64 = 0;
    /// `"latest"`: the most recent block.
    pub const LATEST: u64 = u64::MAX;
    /// `"pending"`: the block being built.
    pub const PENDING: u64 = u64::MAX - 1;
    /// `"safe"`: the most recent block safe from re-organisation.
    pub const SAFE: u64 = u64::MAX - 2;
    /// `"finalized"`: the most recent finalized block.
    pub const FINALIZED: u64 = u64::MAX - 3;

    /// [`LATEST`], as a function: what a `block_tags` field reads when JSON leaves it out
    /// (Ethereum's default block).
    pub fn latest() -> u64 {
        LATEST
    }

    /// Every tag with its reserved value (`earliest` last: 0 is written as a number).
    pub const ALL: [(&str, u64); 5] = [
        ("latest", LATEST),
        ("pending", PENDING),
        ("safe", SAFE),
        ("finalized", FINALIZED),
        ("earliest", EARLIEST),
    ];

    /// The value of a tag name.
    pub fn parse(tag: &str) -> Option<u64> {
        ALL.iter().find(|(name, _)| *name == tag).map(|(_, v)| *v)
    }

    /// The tag a reserved value is written as (`earliest`, 0, is written as a number).
    pub fn name(value: u64) -> Option<&'static str> {
        ALL[..4].iter().find(|(_, v)| *v == value).map(|(n, _)| *n)
    }
}

/// Why a string is not a quantity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuantityError {
    /// No `0x` prefix.
    MissingPrefix,
    /// `0x` and nothing else.
    Empty,
    /// A zero digit before other digits (`0x01`).
    LeadingZero,
    /// A character that is not a hex digit.
    NotHex,
    /// More than `bits` bits.
    TooLarge { bits: u32 },
}

impl core::fmt::Display for QuantityError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            QuantityError::MissingPrefix => f.write_str("a quantity must start with 0x"),
            QuantityError::Empty => f.write_str("a quantity needs at least one digit after 0x"),
            QuantityError::LeadingZero => f.write_str("a quantity cannot have leading zero digits"),
            QuantityError::NotHex => f.write_str("a quantity has only hex digits after 0x"),
            QuantityError::TooLarge { bits } => write!(f, "the quantity does not fit {bits} bits"),
        }
    }
}

/// Read a quantity of at most `bits` bits (8 to 64).
pub fn parse_quantity(s: &str, bits: u32) -> Result<u64, QuantityError> {
    let digits = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .ok_or(QuantityError::MissingPrefix)?
        .as_bytes();
    match digits {
        [] => return Err(QuantityError::Empty),
        [b'0', _, ..] => return Err(QuantityError::LeadingZero),
        _ => {}
    }
    let mut value: u64 = 0;
    for &c in digits {
        let nibble = super::hex_digit(c).ok_or(QuantityError::NotHex)?;
        if value >> (bits - 4) != 0 {
            return Err(QuantityError::TooLarge { bits });
        }
        value = value << 4 | u64::from(nibble);
    }
    Ok(value)
}

/// Write `value` as a quantity into `buf`; returns the text.
pub fn write_quantity(value: u64, buf: &mut [u8; 18]) -> &str {
    let count = ((64 - value.leading_zeros()).div_ceil(4)).max(1) as usize;
    buf[0] = b'0';
    buf[1] = b'x';
    for i in 0..count {
        let nibble = (value >> (4 * (count - 1 - i))) & 15;
        buf[2 + i] = super::HEX_DIGITS[nibble as usize];
    }
    // Only ASCII was written.
    core::str::from_utf8(&buf[..2 + count]).unwrap_or("0x0")
}

/// An unsigned integer type that can be a quantity.
pub trait Quantity: Copy {
    /// Its width in bits.
    const BITS: u32;
    /// Widen to `u64`.
    fn to_u64(self) -> u64;
    /// Narrow from a value that [`parse_quantity`] checked fits.
    fn from_u64(v: u64) -> Self;
}

macro_rules! quantity_impl {
    ($($t:ty),*) => {$(
        impl Quantity for $t {
            const BITS: u32 = <$t>::BITS;
            fn to_u64(self) -> u64 {
                u64::from(self)
            }
            fn from_u64(v: u64) -> Self {
                <$t>::try_from(v).unwrap_or(<$t>::MAX)
            }
        }
    )*};
}
quantity_impl!(u8, u16, u32, u64);

/// For serializing through a reference (the derive's JSON impls borrow their fields).
impl<T: Quantity> Quantity for &T {
    const BITS: u32 = T::BITS;
    fn to_u64(self) -> u64 {
        (*self).to_u64()
    }
    fn from_u64(_: u64) -> Self {
        unreachable!("references are only serialized, never deserialized")
    }
}

/// How a number field reads: which forms besides its own it accepts.
#[derive(Clone, Copy)]
struct NumberForm {
    /// Quantity strings (else JSON numbers, decimal and `0x` strings, as by default).
    quantity: bool,
    /// Block tags.
    tags: bool,
    bits: u32,
}

impl<'de> Visitor<'de> for NumberForm {
    type Value = u64;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match (self.quantity, self.tags) {
            (true, true) => f.write_str("a quantity (\"0x\" hex) or a block tag"),
            (true, false) => f.write_str("a quantity (a \"0x\" hex string)"),
            (false, true) => f.write_str("a block number or a block tag"),
            (false, false) => f.write_str("a number"),
        }
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
        if self.quantity {
            return Err(E::invalid_type(de::Unexpected::Unsigned(v), &self));
        }
        if self.bits < 64 && v >> self.bits != 0 {
            return Err(E::custom(format!("{v} does not fit {} bits", self.bits)));
        }
        Ok(v)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
        match u64::try_from(v) {
            Ok(v) => self.visit_u64(v),
            Err(_) => Err(E::invalid_value(de::Unexpected::Signed(v), &self)),
        }
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<u64, E> {
        Err(E::invalid_type(de::Unexpected::Float(v), &self))
    }

    /// EIP-1898's `{"blockNumber": "0x2c"}`, where tags are accepted. A block given by
    /// hash is refused: a number cannot be told from a hash here.
    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<u64, A::Error> {
        if !self.tags {
            return Err(de::Error::invalid_type(de::Unexpected::Map, &self));
        }
        let mut number = None;
        while let Some(key) = map.next_key::<KeyName>()? {
            match key.0 {
                KeyKind::BlockNumber => {
                    let form = NumberForm {
                        quantity: true,
                        tags: false,
                        bits: 64,
                    };
                    number = Some(map.next_value_seed(form)?);
                }
                KeyKind::BlockHash => {
                    return Err(de::Error::custom(
                        "a block given by hash (EIP-1898 blockHash) is not supported: give a block number or a tag",
                    ))
                }
                KeyKind::Other => {
                    return Err(de::Error::custom(
                        "a block object takes only \"blockNumber\" (EIP-1898)",
                    ))
                }
            }
        }
        number.ok_or_else(|| de::Error::custom("a block object needs \"blockNumber\" (EIP-1898)"))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<u64, E> {
        if self.tags {
            if let Some(v) = block_tag::parse(s) {
                return Ok(v);
            }
        }
        if self.quantity {
            return parse_quantity(s, self.bits).map_err(|e| E::custom(format!("{s:?}: {e}")));
        }
        let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => s.parse::<u64>(),
        };
        match parsed {
            Ok(v) => self.visit_u64(v),
            Err(_) => Err(E::invalid_value(de::Unexpected::Str(s), &self)),
        }
    }
}

impl<'de> de::DeserializeSeed<'de> for NumberForm {
    type Value = u64;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<u64, D::Error> {
        if self.quantity && !self.tags {
            d.deserialize_str(self)
        } else {
            d.deserialize_any(self)
        }
    }
}

/// A key of an EIP-1898 block object.
enum KeyKind {
    BlockNumber,
    BlockHash,
    Other,
}

struct KeyName(KeyKind);

impl<'de> de::Deserialize<'de> for KeyName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = KeyName;
            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<KeyName, E> {
                Ok(KeyName(match s {
                    "blockNumber" => KeyKind::BlockNumber,
                    "blockHash" | "requireCanonical" => KeyKind::BlockHash,
                    _ => KeyKind::Other,
                }))
            }
        }
        d.deserialize_str(V)
    }
}

fn serialize_quantity<S: Serializer>(v: u64, s: S) -> Result<S::Ok, S::Error> {
    let mut buf = [0u8; 18];
    s.serialize_str(write_quantity(v, &mut buf))
}

/// serde `with` module for `json(quantity)`: an unsigned integer as a quantity.
pub mod quantity {
    use super::*;
    pub fn serialize<S: Serializer, T: Quantity>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        serialize_quantity(v.to_u64(), s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>, T: Quantity>(d: D) -> Result<T, D::Error> {
        let form = NumberForm {
            quantity: true,
            tags: false,
            bits: T::BITS,
        };
        d.deserialize_str(form).map(T::from_u64)
    }
}

/// serde `with` module for `json(quantity, block_tags)`: a block number as a quantity or
/// a tag, written back as the tag for the reserved values.
pub mod block_quantity {
    use super::*;
    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        match block_tag::name(*v) {
            Some(tag) => s.serialize_str(tag),
            None => serialize_quantity(*v, s),
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        let form = NumberForm {
            quantity: true,
            tags: true,
            bits: 64,
        };
        d.deserialize_any(form)
    }
}

/// serde `with` module for `json(block_tags)` without `quantity`: a block number as a
/// JSON number (or decimal/`0x` string) or a tag.
pub mod block_number {
    use super::*;
    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        match block_tag::name(*v) {
            Some(tag) => s.serialize_str(tag),
            None => s.serialize_u64(*v),
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        let form = NumberForm {
            quantity: false,
            tags: true,
            bits: 64,
        };
        d.deserialize_any(form)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_read_as_ethereum_clients_do() {
        assert_eq!(parse_quantity("0x0", 64), Ok(0));
        assert_eq!(parse_quantity("0x400", 64), Ok(1024));
        assert_eq!(parse_quantity("0xABCdef", 64), Ok(0xabcdef));
        assert_eq!(parse_quantity("0xffffffffffffffff", 64), Ok(u64::MAX));
        assert_eq!(parse_quantity("0x", 64), Err(QuantityError::Empty));
        assert_eq!(parse_quantity("0x00", 64), Err(QuantityError::LeadingZero));
        assert_eq!(
            parse_quantity("0x0400", 64),
            Err(QuantityError::LeadingZero)
        );
        assert_eq!(parse_quantity("400", 64), Err(QuantityError::MissingPrefix));
        assert_eq!(parse_quantity("0X400", 64), Ok(1024));
        assert_eq!(parse_quantity("0x4g", 64), Err(QuantityError::NotHex));
        assert_eq!(
            parse_quantity("-0x1", 64),
            Err(QuantityError::MissingPrefix)
        );
        assert_eq!(
            parse_quantity("0x10000000000000000", 64),
            Err(QuantityError::TooLarge { bits: 64 })
        );
        assert_eq!(parse_quantity("0xff", 8), Ok(255));
        assert_eq!(
            parse_quantity("0x100", 8),
            Err(QuantityError::TooLarge { bits: 8 })
        );
    }

    #[test]
    fn quantities_write_without_leading_zeros_and_read_back() {
        let mut buf = [0u8; 18];
        for v in [0, 1, 15, 16, 255, 1024, 0x1234_5678_9abc, u64::MAX] {
            let text = write_quantity(v, &mut buf).to_owned();
            assert_eq!(text, format!("{v:#x}"));
            assert_eq!(parse_quantity(&text, 64), Ok(v));
        }
    }

    #[test]
    fn tags_round_trip_and_earliest_is_zero() {
        for (tag, value) in block_tag::ALL {
            assert_eq!(block_tag::parse(tag), Some(value));
        }
        assert_eq!(block_tag::name(block_tag::LATEST), Some("latest"));
        assert_eq!(block_tag::name(0), None);
        assert_eq!(block_tag::parse("Latest"), None);
    }
}

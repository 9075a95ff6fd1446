//! `0x`-prefixed hex for fixed-size byte arrays in serde, without heap allocation (a
//! stack buffer on the way out, a borrowed or transient `&str` on the way in): the most
//! charitable hex handling a JSON codec can get.

use core::fmt;
use core::marker::PhantomData;

use serde::de::{Error, Visitor};
use serde::{Deserializer, Serializer};

/// Largest array this module formats (a 32-byte hash).
const MAX: usize = 32;

/// Write `v` as `0x…` into `buf`; returns the text.
pub fn encode<'b, const N: usize>(v: &[u8; N], buf: &'b mut [u8; 2 + 2 * MAX]) -> &'b str {
    const { assert!(N <= MAX) };
    buf[0] = b'0';
    buf[1] = b'x';
    let out = &mut buf[..2 + 2 * N];
    // Cannot fail: the output slice is exactly twice the input.
    let _ = hex::encode_to_slice(v, &mut out[2..]);
    core::str::from_utf8(out).unwrap_or_default()
}

/// Parse `0x…` (the prefix is optional) of exactly `N` bytes.
pub fn decode<const N: usize>(s: &str) -> Result<[u8; N], hex::FromHexError> {
    let digits = s.strip_prefix("0x").unwrap_or(s);
    let mut out = [0u8; N];
    hex::decode_to_slice(digits, &mut out)?;
    Ok(out)
}

pub fn serialize<S: Serializer, const N: usize>(v: &[u8; N], s: S) -> Result<S::Ok, S::Error> {
    let mut buf = [0u8; 2 + 2 * MAX];
    s.serialize_str(encode(v, &mut buf))
}

pub fn deserialize<'de, D: Deserializer<'de>, const N: usize>(d: D) -> Result<[u8; N], D::Error> {
    struct HexVisitor<const N: usize>(PhantomData<[u8; N]>);
    impl<const N: usize> Visitor<'_> for HexVisitor<N> {
        type Value = [u8; N];
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "a 0x-prefixed hex string of {N} bytes")
        }
        fn visit_str<E: Error>(self, s: &str) -> Result<[u8; N], E> {
            decode(s).map_err(E::custom)
        }
    }
    d.deserialize_str(HexVisitor::<N>(PhantomData))
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_trip() {
        let mut buf = [0u8; 66];
        let text = super::encode(&[0xde, 0xad], &mut buf);
        assert_eq!(text, "0xdead");
        assert_eq!(super::decode::<2>(text).unwrap(), [0xde, 0xad]);
        assert!(super::decode::<2>("0xdea").is_err());
        assert!(super::decode::<3>("0xdead").is_err());
    }
}

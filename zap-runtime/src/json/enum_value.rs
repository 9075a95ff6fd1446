//! The JSON form of an enum value: its name (`"Red"`) when the schema declares the number,
//! else the number itself (`7`), so a value added by a newer schema survives a JSON round
//! trip through an older peer. Reading accepts a declared name, a number that fits the
//! representation (declared or not), and a number written as a decimal string.

use core::fmt;
use core::marker::PhantomData;

use serde::de::{self, Deserializer, Visitor};
use serde::ser::Serializer;

use crate::ZapEnum;

/// Write `value` as its name, or as its number when it has none.
pub fn serialize<E: ZapEnum, S: Serializer>(value: &E, serializer: S) -> Result<S::Ok, S::Error> {
    match value.name() {
        Some(name) => serializer.serialize_str(name),
        None => serializer.serialize_u64(value.to_repr().into()),
    }
}

/// Read a name or a number.
pub fn deserialize<'de, E: ZapEnum, D: Deserializer<'de>>(deserializer: D) -> Result<E, D::Error> {
    deserializer.deserialize_any(EnumVisitor(PhantomData))
}

/// The value named `text`, or numbered by `text` in decimal.
pub fn from_text<E: ZapEnum>(text: &str) -> Result<E, String> {
    if let Some(value) = E::from_name(text) {
        return Ok(value);
    }
    match text.parse::<u64>() {
        Ok(n) => from_number(n),
        Err(_) => Err(format!(
            "unknown value {text:?} of enum `{}`; expected {} or a number",
            E::NAME,
            expected_names::<E>()
        )),
    }
}

/// The value numbered `n`, if it fits the representation.
pub fn from_number<E: ZapEnum>(n: u64) -> Result<E, String> {
    E::from_u64(n).ok_or_else(|| {
        format!(
            "{n} does not fit enum `{}` ({} bytes)",
            E::NAME,
            <E::Repr as crate::Scalar>::WIDTH
        )
    })
}

/// "`Red`, `Green`" for messages.
fn expected_names<E: ZapEnum>() -> String {
    E::VALUES
        .iter()
        .map(|(name, _)| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

struct EnumVisitor<E>(PhantomData<E>);

impl<E: ZapEnum> Visitor<'_> for EnumVisitor<E> {
    type Value = E;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a value of enum `{}`: a name or a number", E::NAME)
    }

    fn visit_str<Er: de::Error>(self, v: &str) -> Result<E, Er> {
        from_text(v).map_err(Er::custom)
    }

    fn visit_u64<Er: de::Error>(self, v: u64) -> Result<E, Er> {
        from_number(v).map_err(Er::custom)
    }

    fn visit_i64<Er: de::Error>(self, v: i64) -> Result<E, Er> {
        let n = u64::try_from(v)
            .map_err(|_| Er::custom(format!("{v} is negative; enum `{}` is unsigned", E::NAME)))?;
        self.visit_u64(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    enum Kind {
        #[default]
        A,
        B,
        Unknown(u16),
    }

    impl ZapEnum for Kind {
        type Repr = u16;
        const NAME: &'static str = "Kind";
        const VALUES: &'static [(&'static str, u16)] = &[("A", 0), ("B", 300)];
        fn from_repr(raw: u16) -> Self {
            match raw {
                0 => Kind::A,
                300 => Kind::B,
                n => Kind::Unknown(n),
            }
        }
        fn to_repr(self) -> u16 {
            match self {
                Kind::A => 0,
                Kind::B => 300,
                Kind::Unknown(n) => n,
            }
        }
    }

    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    struct Holder(#[serde(with = "crate::json::enum_value")] Kind);

    fn json(k: Kind) -> String {
        serde_json::to_string(&Holder(k)).unwrap()
    }

    fn read(text: &str) -> Result<Kind, String> {
        serde_json::from_str::<Holder>(text)
            .map(|h| h.0)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn names_for_declared_values_numbers_for_the_rest() {
        assert_eq!(json(Kind::A), "\"A\"");
        assert_eq!(json(Kind::B), "\"B\"");
        assert_eq!(json(Kind::Unknown(7)), "7");
    }

    #[test]
    fn reads_names_numbers_and_decimal_strings() {
        assert_eq!(read("\"B\""), Ok(Kind::B));
        assert_eq!(read("300"), Ok(Kind::B));
        assert_eq!(read("\"300\""), Ok(Kind::B));
        assert_eq!(read("7"), Ok(Kind::Unknown(7)));
        assert_eq!(read("65535"), Ok(Kind::Unknown(65535)));
    }

    #[test]
    fn refuses_unknown_names_and_numbers_that_do_not_fit() {
        let err = read("\"C\"").unwrap_err();
        assert!(
            err.contains("unknown value \"C\" of enum `Kind`; expected `A`, `B` or a number"),
            "{err}"
        );
        let err = read("65536").unwrap_err();
        assert!(
            err.contains("65536 does not fit enum `Kind` (2 bytes)"),
            "{err}"
        );
        let err = read("-1").unwrap_err();
        assert!(err.contains("negative"), "{err}");
        assert!(read("true").is_err());
    }
}

//! A response message to its JSON, written straight into the response buffer: the whole
//! response object, or (for a method declared with `json(result = Field)`) one field of
//! it, alone.

use serde::ser::{self, Impossible, Serialize, SerializeStruct, Serializer};

use super::ResultError;
use crate::zap_struct::ZapStruct;

/// Write the JSON of response `body` (a `T` message) into `out`: the whole object, or
/// only the field whose JSON key is `field`.
pub fn result_to_json<T: ZapStruct + Serialize>(
    body: &[u8],
    field: Option<&str>,
    out: &mut Vec<u8>,
) -> Result<(), ResultError> {
    let value = T::decode(body)?;
    let serialize_error = |e: serde_json::Error| ResultError::Serialize(e.to_string());
    match field {
        None => serde_json::to_writer(&mut *out, &value).map_err(serialize_error),
        Some(key) => {
            let start = out.len();
            let mut picker = FieldPicker {
                key,
                out: &mut *out,
                found: false,
            };
            value.serialize(&mut picker).map_err(serialize_error)?;
            if picker.found {
                Ok(())
            } else {
                out.truncate(start);
                Err(ResultError::Serialize(format!(
                    "{} has no field with the JSON key {key:?}",
                    T::NAME
                )))
            }
        }
    }
}

/// For methods without a result: `null`.
pub fn no_result(_body: &[u8], _field: Option<&str>, out: &mut Vec<u8>) -> Result<(), ResultError> {
    out.extend_from_slice(b"null");
    Ok(())
}

/// A serializer that accepts one struct and writes only the field named `key`, as JSON.
struct FieldPicker<'a> {
    key: &'a str,
    out: &'a mut Vec<u8>,
    found: bool,
}

fn not_a_struct() -> serde_json::Error {
    ser::Error::custom("an unwrapped result must come from a struct")
}

impl<'p, 'a> Serializer for &'p mut FieldPicker<'a> {
    type Ok = ();
    type Error = serde_json::Error;
    type SerializeSeq = Impossible<(), serde_json::Error>;
    type SerializeTuple = Impossible<(), serde_json::Error>;
    type SerializeTupleStruct = Impossible<(), serde_json::Error>;
    type SerializeTupleVariant = Impossible<(), serde_json::Error>;
    type SerializeMap = Impossible<(), serde_json::Error>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), serde_json::Error>;

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self, Self::Error> {
        Ok(self)
    }

    fn serialize_bool(self, _: bool) -> Result<(), Self::Error> {
        Err(not_a_struct())
    }
    fn serialize_i8(self, _: i8) -> Result<(), Self::Error> {
        Err(not_a_struct())
    }
    fn serialize_i16(self, _: i16) -> Result<(), Self::Error> {
        Err(not_a_struct())
    }
    fn serialize_i32(self, _: i32) -> Result<(), Self::Error> {
        Err(not_a_struct())
    }
    fn serialize_i64(self, _: i64) -> Result<(), Self::Error> {
        Err(not_a_struct())
    }
    fn serialize_u8(self, _: u8) -> Result<(), Self::Error> {
        Err(not_a_struct())
    }
    fn serialize_u16(self, _: u16) -> Result<(), Self::Error> {
        Err(not_a_struct())
    }
    fn serialize_u32(self, _: u32) -> Result<(), Self::Error> {
        Err(not_a_struct())
    }
    fn serialize_u64(self, _: u64) -> Result<(), Self::Error> {
        Err(not_a_struct())
    }
    fn serialize_f32(self, _: f32) -> Result<(), Self::Error> {
        Err(not_a_struct())
    }
    fn serialize_f64(self, _: f64) -> Result<(), Self::Error> {
        Err(not_a_struct())
    }
    fn serialize_char(self, _: char) -> Result<(), Self::Error> {
        Err(not_a_struct())
    }
    fn serialize_str(self, _: &str) -> Result<(), Self::Error> {
        Err(not_a_struct())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), Self::Error> {
        Err(not_a_struct())
    }
    fn serialize_none(self) -> Result<(), Self::Error> {
        Err(not_a_struct())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<(), Self::Error> {
        Err(not_a_struct())
    }
    fn serialize_unit(self) -> Result<(), Self::Error> {
        Err(not_a_struct())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Self::Error> {
        Err(not_a_struct())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> Result<(), Self::Error> {
        Err(not_a_struct())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<(), Self::Error> {
        Err(not_a_struct())
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Self::Error> {
        Err(not_a_struct())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Self::Error> {
        Err(not_a_struct())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Self::Error> {
        Err(not_a_struct())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Self::Error> {
        Err(not_a_struct())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Self::Error> {
        Err(not_a_struct())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Self::Error> {
        Err(not_a_struct())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Self::Error> {
        Err(not_a_struct())
    }
}

impl SerializeStruct for &mut FieldPicker<'_> {
    type Ok = ();
    type Error = serde_json::Error;

    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Self::Error> {
        if key == self.key && !self.found {
            self.found = true;
            serde_json::to_writer(&mut *self.out, value)?;
        }
        Ok(())
    }

    fn end(self) -> Result<(), Self::Error> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize)]
    struct Pair {
        first: u64,
        #[serde(rename = "secondOne")]
        second: &'static str,
    }

    fn pick(key: &str) -> Result<String, serde_json::Error> {
        let mut out = Vec::new();
        let mut picker = FieldPicker {
            key,
            out: &mut out,
            found: false,
        };
        Pair {
            first: 7,
            second: "x",
        }
        .serialize(&mut picker)?;
        Ok(String::from_utf8(out).unwrap())
    }

    #[test]
    fn picks_one_field_by_its_json_key() {
        assert_eq!(pick("first").unwrap(), "7");
        assert_eq!(pick("secondOne").unwrap(), "\"x\"");
        assert_eq!(pick("second").unwrap(), "");
    }

    #[test]
    fn refuses_what_is_not_a_struct() {
        let mut out = Vec::new();
        let mut picker = FieldPicker {
            key: "x",
            out: &mut out,
            found: false,
        };
        assert!(7u8.serialize(&mut picker).is_err());
    }
}

//! JSON-RPC `params` straight into the request value: read from the raw JSON slice the
//! envelope kept, without building a `serde_json::Value` tree.
//!
//! By name (an object), each key goes to the request's own `Deserialize`; by position
//! (an array), element `i` is given the key of the method's `i`-th positional field, so
//! both forms end in the same derived code. Errors name the param they are about.

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, IgnoredAny, IntoDeserializer, MapAccess,
    SeqAccess, Visitor,
};
use serde_json::value::RawValue;

use super::{CowStr, ParamsError};
use crate::builder::Builder;
use crate::zap_struct::ZapStruct;

/// How an error message names the type of a raw JSON value, from its first character.
pub fn raw_json_type(raw: &RawValue) -> &'static str {
    match raw.get().as_bytes().first() {
        Some(b'n') => "null",
        Some(b't' | b'f') => "a boolean",
        Some(b'"') => "a string",
        Some(b'[') => "an array",
        Some(b'{') => "an object",
        _ => "a number",
    }
}

/// JSON-RPC `params` to the owned request value: an object by JSON key, or an array in
/// the order of `positional` (JSON keys; the method's `json(params = [...])`, else
/// every field in declaration order). Missing trailing positions read as zero, like
/// absent keys.
pub fn params_to_value<T: ZapStruct + DeserializeOwned>(
    params: Option<&RawValue>,
    positional: &[&str],
) -> Result<T, ParamsError> {
    let invalid = |e: serde_json::Error| ParamsError::Invalid {
        request: T::NAME,
        reason: without_position(e),
    };
    let Some(raw) = params else {
        return Err(ParamsError::Missing { request: T::NAME });
    };
    match raw.get().as_bytes().first() {
        Some(b'{') => {
            let mut de = serde_json::Deserializer::from_str(raw.get());
            T::deserialize(Named(&mut de)).map_err(invalid)
        }
        Some(b'[') => {
            let values = Positions::read(raw, positional.len()).map_err(invalid)?;
            if values.given > positional.len() {
                return Err(ParamsError::TooMany {
                    request: T::NAME,
                    fields: positional.len(),
                    given: values.given,
                });
            }
            T::deserialize(ByPosition {
                names: positional,
                values: &values,
                next: 0,
            })
            .map_err(invalid)
        }
        Some(b'n') => Err(ParamsError::Missing { request: T::NAME }),
        _ => Err(ParamsError::WrongType {
            found: raw_json_type(raw),
        }),
    }
}

/// [`params_to_value`], then encode the value as a complete message into `b`.
pub fn params_to_wire<T: ZapStruct + DeserializeOwned>(
    params: Option<&RawValue>,
    positional: &[&str],
    b: &mut Builder,
) -> Result<(), ParamsError> {
    params_to_value::<T>(params, positional)?.encode(b)?;
    Ok(())
}

/// For methods without a parameter: accept absent, null, `[]` or `{}` params.
pub fn no_params(
    params: Option<&RawValue>,
    _positional: &[&str],
    _b: &mut Builder,
) -> Result<(), ParamsError> {
    let Some(raw) = params else {
        return Ok(());
    };
    let mut de = serde_json::Deserializer::from_str(raw.get());
    match de.deserialize_any(CountItems) {
        Ok(0) => Ok(()),
        _ => Err(ParamsError::Unexpected),
    }
}

/// serde_json appends " at line L column C" to errors, which says nothing useful about a
/// params slice taken out of a larger body: `e` as text, without it.
fn without_position(e: impl core::fmt::Display) -> String {
    let text = e.to_string();
    let Some(at) = text.rfind(" at line ") else {
        return text;
    };
    let tail = &text[at + " at line ".len()..];
    let is_position = tail.split_once(" column ").is_some_and(|(line, column)| {
        [line, column]
            .iter()
            .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    });
    if is_position {
        text[..at].to_owned()
    } else {
        text
    }
}

/// Items in an array or entries in an object (null counts as none); anything else is one.
struct CountItems;

impl<'de> Visitor<'de> for CountItems {
    type Value = usize;
    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("params")
    }
    fn visit_unit<E: de::Error>(self) -> Result<usize, E> {
        Ok(0)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
        let mut n = 0;
        while seq.next_element::<IgnoredAny>()?.is_some() {
            n += 1;
        }
        Ok(n)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<usize, A::Error> {
        let mut n = 0;
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {
            n += 1;
        }
        Ok(n)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<usize, E> {
        Ok(1)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<usize, E> {
        Ok(1)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<usize, E> {
        Ok(1)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<usize, E> {
        Ok(1)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<usize, E> {
        Ok(1)
    }
}

/// Params by name: the object's own map, with every value error prefixed by its key.
struct Named<'a, 'de>(&'a mut serde_json::Deserializer<serde_json::de::StrRead<'de>>);

impl<'de> Deserializer<'de> for Named<'_, 'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        let value = self.0.deserialize_map(KeyedVisitor(visitor))?;
        self.0.end()?;
        Ok(value)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map struct
        enum identifier ignored_any
    }
}

struct KeyedVisitor<V>(V);

impl<'de, V: Visitor<'de>> Visitor<'de> for KeyedVisitor<V> {
    type Value = V::Value;
    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.0.expecting(f)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.0.visit_map(Keyed { map, key: None })
    }
}

struct Keyed<'de, A> {
    map: A,
    key: Option<CowStr<'de>>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Keyed<'de, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.key = self.map.next_key::<CowStr<'de>>()?;
        match &self.key {
            None => Ok(None),
            Some(CowStr(key)) => {
                let de: de::value::StrDeserializer<'_, A::Error> = key.as_ref().into_deserializer();
                seed.deserialize(de).map(Some)
            }
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        self.map.next_value_seed(seed).map_err(|e| {
            let key = self.key.as_ref().map_or("?", |k| k.0.as_ref());
            de::Error::custom(format_args!("{key}: {}", without_position(&e)))
        })
    }
}

/// The elements of a params array as raw slices: the first `capacity` kept (on the stack
/// for the usual handful), the rest only counted.
struct Positions<'de> {
    stack: [Option<&'de RawValue>; 8],
    heap: Vec<&'de RawValue>,
    /// How many elements the array has.
    given: usize,
}

impl<'de> Positions<'de> {
    fn read(raw: &'de RawValue, capacity: usize) -> Result<Self, serde_json::Error> {
        let mut de = serde_json::Deserializer::from_str(raw.get());
        let positions = de.deserialize_seq(PositionsVisitor { capacity })?;
        de.end()?;
        Ok(positions)
    }

    fn get(&self, i: usize) -> Option<&'de RawValue> {
        if self.heap.is_empty() {
            self.stack.get(i).copied().flatten()
        } else {
            self.heap.get(i).copied()
        }
    }

    fn kept(&self) -> usize {
        if self.heap.is_empty() {
            self.stack.iter().take_while(|v| v.is_some()).count()
        } else {
            self.heap.len()
        }
    }
}

struct PositionsVisitor {
    capacity: usize,
}

impl<'de> Visitor<'de> for PositionsVisitor {
    type Value = Positions<'de>;
    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("an array of params")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Positions<'de>, A::Error> {
        let mut positions = Positions {
            stack: [None; 8],
            heap: Vec::new(),
            given: 0,
        };
        let on_heap = self.capacity > positions.stack.len();
        while positions.given < self.capacity {
            let Some(value) = seq.next_element::<&'de RawValue>()? else {
                return Ok(positions);
            };
            if on_heap {
                positions.heap.push(value);
            } else {
                positions.stack[positions.given] = Some(value);
            }
            positions.given += 1;
        }
        while seq.next_element::<IgnoredAny>()?.is_some() {
            positions.given += 1;
        }
        Ok(positions)
    }
}

/// Params by position, seen as a map from the positional keys to the array's elements.
struct ByPosition<'p, 'de> {
    names: &'p [&'p str],
    values: &'p Positions<'de>,
    next: usize,
}

impl<'de> Deserializer<'de> for ByPosition<'_, 'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_map(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map struct
        enum identifier ignored_any
    }
}

impl<'de> MapAccess<'de> for ByPosition<'_, 'de> {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        if self.next >= self.values.kept() {
            return Ok(None);
        }
        let name = self.names[self.next];
        let de: de::value::StrDeserializer<'_, Self::Error> = name.into_deserializer();
        seed.deserialize(de).map(Some)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<S::Value, Self::Error> {
        let i = self.next;
        self.next += 1;
        let raw = self
            .values
            .get(i)
            .ok_or_else(|| <serde_json::Error as de::Error>::custom("a param is missing"))?;
        let mut de = serde_json::Deserializer::from_str(raw.get());
        seed.deserialize(&mut de).map_err(|e| {
            <serde_json::Error as de::Error>::custom(format_args!(
                "params[{i}] ({}): {}",
                self.names[i],
                without_position(e)
            ))
        })
    }
}

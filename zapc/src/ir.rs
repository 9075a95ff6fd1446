//! The laid-out model of a schema: what every back end (code generator, `zapc layout`,
//! `zapc encode/decode`, `#[derive(Zap)]`) consumes.
//!
//! Slots are placed exactly once (the `layout` stage), before the checks, and the
//! `lower` stage builds this model from them. Nothing downstream recomputes an offset
//! or a width.
//! Aliases are already resolved here: a field's [`Type`] is always concrete. The model
//! says nothing about Rust spellings: the derive hands those to the code generator
//! separately.

/// One `.zap` file, checked and laid out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schema {
    /// The file the schema came from, as given by the caller (used in `@generated` headers).
    pub source_name: String,
    /// `package NAME`, if the file declares one.
    pub package: Option<String>,
    /// Structs in declaration order.
    pub structs: Vec<Struct>,
    /// Interfaces in declaration order.
    pub interfaces: Vec<Interface>,
    /// Enums in declaration order.
    pub enums: Vec<Enum>,
    /// Constants (`const NAME: Type = value`) in declaration order; never on the wire.
    pub consts: Vec<Const>,
    /// Every file this one imports, directly or through another import, checked and laid
    /// out, dependencies first. In them every struct name is qualified by its package
    /// (`common.Kind`, and so are the struct types of their fields), so a qualified name
    /// means the same everywhere. Their interfaces are left out.
    pub imports: Vec<Schema>,
}

impl Schema {
    /// Look a struct up by its schema name: a struct of this file (`Kind`) or, by its
    /// qualified name, of an imported one (`common.Kind`).
    pub fn struct_named(&self, name: &str) -> Option<&Struct> {
        if name.contains('.') {
            return self
                .imports
                .iter()
                .flat_map(|i| &i.structs)
                .find(|s| s.name == name);
        }
        self.structs.iter().find(|s| s.name == name)
    }

    /// Look an enum up by its schema name: an enum of this file (`Color`) or, by its
    /// qualified name, of an imported one (`common.Color`).
    pub fn enum_named(&self, name: &str) -> Option<&Enum> {
        if name.contains('.') {
            return self
                .imports
                .iter()
                .flat_map(|i| &i.enums)
                .find(|e| e.name == name);
        }
        self.enums.iter().find(|e| e.name == name)
    }

    /// This file's enums, then those of every imported file (qualified names).
    pub fn all_enums(&self) -> impl Iterator<Item = &Enum> {
        self.enums
            .iter()
            .chain(self.imports.iter().flat_map(|i| &i.enums))
    }

    /// This file's structs, then those of every imported file (qualified names).
    pub fn all_structs(&self) -> impl Iterator<Item = &Struct> {
        self.structs
            .iter()
            .chain(self.imports.iter().flat_map(|i| &i.structs))
    }
}

/// `enum Name : u8 { A = 0 ... }`: named values of an unsigned integer. A field of enum
/// type is that integer on the wire; values a reader does not know are kept as numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enum {
    /// Schema name as written (`Color`).
    pub name: String,
    pub doc: Vec<String>,
    /// The integer on the wire: [`Scalar::U8`], [`Scalar::U16`] or [`Scalar::U32`].
    pub repr: Scalar,
    /// Values in declaration order; names and numbers are unique, never empty.
    pub values: Vec<EnumValue>,
}

impl Enum {
    /// The representations an enum may have.
    pub const REPRS: [Scalar; 3] = [Scalar::U8, Scalar::U16, Scalar::U32];

    /// The name of the value `raw`, if declared.
    pub fn name_of(&self, raw: u64) -> Option<&str> {
        self.values
            .iter()
            .find(|v| u64::from(v.value) == raw)
            .map(|v| v.name.as_str())
    }

    /// The number of the value named `name`, if declared.
    pub fn value_named(&self, name: &str) -> Option<u32> {
        self.values.iter().find(|v| v.name == name).map(|v| v.value)
    }
}

/// One named value of an enum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnumValue {
    /// Name as written (`Red`): the Rust variant and the JSON form.
    pub name: String,
    pub doc: Vec<String>,
    pub value: u32,
}

/// The package and the name of a qualified type name (`common.Kind`), if it is one.
pub fn split_qualified(name: &str) -> Option<(&str, &str)> {
    name.split_once('.')
}

/// A struct with every field at its final byte offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Struct {
    /// Schema name, UpperCamel as written (`BalanceRequest`).
    pub name: String,
    /// Doc comment lines (without the leading `#`), in order.
    pub doc: Vec<String>,
    /// Fields in declaration order (not necessarily offset order).
    pub fields: Vec<Field>,
    /// Fixed size of the object: the end of its last slot (max of `offset + width`).
    pub size: u32,
    /// How a `list<ThisStruct>` is laid out: strided when every field (reserved slots
    /// included) is a scalar or `bytes_fixed`, framed otherwise.
    pub list_shape: ListShape,
    /// `struct Name deprecated`: generated types carry `#[deprecated]`.
    pub deprecated: bool,
    /// Reserved slots (`reserved Name Type @N`), in declaration order: placed like fields
    /// and counted in `size` and `list_shape`, but never read or written (zero when
    /// built), and no generated code names them.
    pub reserved: Vec<Field>,
}

impl Struct {
    /// The field or reserved slot named `name`.
    pub fn slot_named(&self, name: &str) -> Option<&Field> {
        self.fields
            .iter()
            .chain(&self.reserved)
            .find(|f| f.name == name)
    }
}

/// One field of a struct.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// Schema name as written (`BlockHash`).
    pub name: String,
    /// Doc comment lines (without the leading `#`).
    pub doc: Vec<String>,
    /// The concrete type (aliases resolved).
    pub ty: Type,
    /// Byte offset of the slot inside the object's fixed section.
    pub offset: u32,
    /// Slot width in bytes (see [`Type::slot_width`]).
    pub width: u32,
    /// How the field looks in JSON. Never changes the binary layout.
    pub json: FieldJson,
    /// `deprecated`: generated accessors and the owned field carry `#[deprecated]`; the
    /// field is still on the wire and in JSON.
    pub deprecated: bool,
}

impl Field {
    /// The field's JSON key: `json(name = "...")` if given, else the name in
    /// lowerCamelCase (`BlockHash` -> `blockHash`).
    pub fn json_key(&self) -> String {
        match &self.json.name {
            Some(name) => name.clone(),
            None => json_key(&self.name),
        }
    }
}

/// The default JSON key of a schema name: lowerCamelCase (`BlockHash` -> `blockHash`).
pub fn json_key(name: &str) -> String {
    heck::ToLowerCamelCase::to_lower_camel_case(name)
}

/// A field's JSON options (`json(...)` after it in a schema, `#[zap(json(...))]` in
/// Rust).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldJson {
    /// `name = "key"`: the JSON key instead of the lowerCamelCase name.
    pub name: Option<String>,
    /// `quantity`: an unsigned integer written as an Ethereum quantity, `0x`-hex without
    /// leading zeros (`"0x0"` for zero); reading refuses leading zeros and a bare `0x`.
    pub quantity: bool,
    /// `block_tags`: a `u64` that also reads Ethereum's block tags, mapped to reserved
    /// values (`zap_runtime::json::block_tag`) and written back as the tag.
    pub block_tags: bool,
}

impl FieldJson {
    /// True when nothing differs from the default mapping.
    pub fn is_default(&self) -> bool {
        *self == FieldJson::default()
    }
}

/// Fixed-width scalar types, including `bool`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scalar {
    Bool,
    U8,
    U16,
    U32,
    U64,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
}

impl Scalar {
    /// Every scalar, in the order the spec lists them.
    pub const ALL: [Scalar; 11] = [
        Scalar::Bool,
        Scalar::U8,
        Scalar::U16,
        Scalar::U32,
        Scalar::U64,
        Scalar::I8,
        Scalar::I16,
        Scalar::I32,
        Scalar::I64,
        Scalar::F32,
        Scalar::F64,
    ];

    /// Width on the wire, in bytes.
    pub fn width(self) -> u32 {
        match self {
            Scalar::Bool | Scalar::U8 | Scalar::I8 => 1,
            Scalar::U16 | Scalar::I16 => 2,
            Scalar::U32 | Scalar::I32 | Scalar::F32 => 4,
            Scalar::U64 | Scalar::I64 | Scalar::F64 => 8,
        }
    }

    /// The schema keyword (`u64`).
    pub fn keyword(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::U8 => "u8",
            Scalar::U16 => "u16",
            Scalar::U32 => "u32",
            Scalar::U64 => "u64",
            Scalar::I8 => "i8",
            Scalar::I16 => "i16",
            Scalar::I32 => "i32",
            Scalar::I64 => "i64",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
        }
    }

    /// Parse a schema keyword.
    pub fn from_keyword(s: &str) -> Option<Scalar> {
        Scalar::ALL.into_iter().find(|k| k.keyword() == s)
    }
}

/// A concrete field type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Type {
    Scalar(Scalar),
    /// `text`: 8-byte slot, UTF-8 payload out of line.
    Text,
    /// `bytes`: 8-byte slot, payload out of line.
    Bytes,
    /// `bytes_fixed[N]`: N bytes inline (N >= 1).
    BytesFixed(u32),
    /// A struct by name: a 4-byte signed pointer slot to a child object.
    Struct(String),
    /// An enum by name, stored inline as its representation (`repr`).
    Enum {
        name: String,
        repr: Scalar,
    },
    /// `list<T>` or `list<ptr<T>>`: an 8-byte slot.
    List(Box<List>),
}

impl Type {
    /// Width of the slot this type occupies in an object's fixed section.
    pub fn slot_width(&self) -> u32 {
        match self {
            Type::Scalar(s) | Type::Enum { repr: s, .. } => s.width(),
            Type::Text | Type::Bytes | Type::List(_) => 8,
            Type::BytesFixed(n) => *n,
            Type::Struct(_) => 4,
        }
    }

    /// The type as a schema would write it (aliases resolved): `u64`, `bytes_fixed[20]`,
    /// `list<ptr<Leaf>>`.
    pub fn schema_syntax(&self) -> String {
        match self {
            Type::Scalar(s) => s.keyword().to_owned(),
            Type::Text => "text".to_owned(),
            Type::Bytes => "bytes".to_owned(),
            Type::BytesFixed(n) => format!("bytes_fixed[{n}]"),
            Type::Struct(name) | Type::Enum { name, .. } => name.clone(),
            Type::List(list) => match list.shape {
                ListShape::Pointer => format!("list<ptr<{}>>", list.elem.schema_syntax()),
                _ => format!("list<{}>", list.elem.schema_syntax()),
            },
        }
    }

    /// True for types that live entirely inside the fixed section (scalars, enums,
    /// `bytes_fixed`).
    pub fn is_inline(&self) -> bool {
        matches!(
            self,
            Type::Scalar(_) | Type::Enum { .. } | Type::BytesFixed(_)
        )
    }
}

/// A list's element type and the shape the spec assigns to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct List {
    /// The element type. Never a list (lists of lists are rejected by the checker).
    /// For `list<ptr<T>>` this is `Type::Struct(T)` and `shape` is [`ListShape::Pointer`].
    pub elem: Type,
    /// The shape. For a list of structs, generated code takes the shape from the element's
    /// `ZapStruct::INLINE` at compile time instead (a derive sees one struct only, so both
    /// front ends do the same); a struct declared in Rust records `Framed` here for a
    /// list of another Rust struct, whose layout it cannot see.
    pub shape: ListShape,
}

impl ListShape {
    /// The shape of a `list<S>` for a struct `S` of fixed size `size`: strided when every
    /// field is inline (scalars, `bytes_fixed`), framed otherwise.
    pub fn of_struct(all_inline: bool, size: u32) -> ListShape {
        if all_inline {
            ListShape::Strided { width: size }
        } else {
            ListShape::Framed
        }
    }
}

/// The three list shapes of spec §2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListShape {
    /// Element i at `start + i * width`: scalars, `bytes_fixed`, all-inline structs.
    Strided { width: u32 },
    /// `[len u32][payload]` back to back: `text`, `bytes`, structs with a pointer field
    /// (each struct element is a complete ZAP message with its own header).
    Framed,
    /// `list<ptr<T>>`: 4-byte signed offsets relative to their own slot.
    Pointer,
}

/// An interface: methods in declaration order, each with its 1-based ordinal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interface {
    /// Schema name as written (`Eth`).
    pub name: String,
    pub doc: Vec<String>,
    pub methods: Vec<Method>,
    /// Ordinals kept by `reserved @N` (removed methods), in declaration order: no method
    /// has them, so a call to one is answered like any unknown method.
    pub reserved: Vec<u32>,
}

/// One interface method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Method {
    /// Name as written (`getBalance`).
    pub name: String,
    pub doc: Vec<String>,
    /// 1-based ordinal, what a call carries: the explicit `@N`, else the method's
    /// position among the interface's methods.
    pub ordinal: u32,
    /// The parameter (`req: BalanceRequest`), if any: for a stream method, the
    /// message that opens the stream.
    pub param: Option<Param>,
    /// The `stream T` parameter, if any: the messages the client sends on the stream.
    pub stream_param: Option<Param>,
    /// The result (`resp: BalanceResponse`), if any.
    pub result: Option<Param>,
    /// `returns stream T`: the server sends any number of results, not one.
    pub result_stream: bool,
    /// The capability permission bits a call needs (`requires 0x1`); 0 when the schema
    /// says nothing (a server that checks capabilities then asks only for a valid one).
    pub permissions: u64,
    /// How the method looks in JSON-RPC.
    pub json: MethodJson,
    /// `deprecated`: the handler trait method and the client stub carry `#[deprecated]`,
    /// and OpenRPC marks it.
    pub deprecated: bool,
    /// `idempotent` or `no_side_effects`: whether a client may send the call again.
    pub idempotency: Idempotency,
}

/// Whether a call may be sent more than once (gRPC's idempotency levels): what a client
/// may retry when a connection fails before the answer, or a server sheds the call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Idempotency {
    /// Nothing is said: the call is sent at most once.
    #[default]
    Unknown,
    /// `idempotent`: sending it twice has the effect of sending it once.
    Idempotent,
    /// `no_side_effects`: it changes nothing (a read); idempotent too.
    NoSideEffects,
}

impl Idempotency {
    /// The schema's word for it (`""` for none).
    pub fn keyword(self) -> &'static str {
        match self {
            Idempotency::Unknown => "",
            Idempotency::Idempotent => "idempotent",
            Idempotency::NoSideEffects => "no_side_effects",
        }
    }
}

/// A method's JSON-RPC options (`json(...)` after it in a schema).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MethodJson {
    /// `name = "eth_getBalance"`: the JSON-RPC method name instead of
    /// `<interface>_<method>`.
    pub name: Option<String>,
    /// `params = [A, B]`: positional params name these request fields, in this order
    /// (schema names). Without it, positional params follow declaration order. Params by
    /// name (an object) are accepted either way.
    pub positional: Option<Vec<String>>,
    /// `result = F`: the JSON result is field `F` of the response (schema name), alone,
    /// instead of the whole response object.
    pub result_field: Option<String>,
    /// `subscription = "newHeads"`: a server stream that JSON-RPC clients reach as a
    /// subscription of this name (`eth_subscribe("newHeads")` over WebSocket).
    pub subscription: Option<String>,
}

/// A named struct-typed parameter or result of a method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    /// The name as written (`req`); may be empty when the schema gives only a type.
    pub name: String,
    /// The struct type's schema name.
    pub ty: String,
}

/// How a method exchanges messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Streaming {
    /// One request, one answer.
    Unary,
    /// `returns stream T`: the server sends any number of messages.
    Server,
    /// `(stream T)`: the client sends any number; the server answers with one.
    Client,
    /// `(stream T) returns stream U`.
    Bidi,
}

impl Streaming {
    /// The `zap_runtime::stream::Streaming` variant's name.
    pub fn variant(self) -> &'static str {
        match self {
            Streaming::Unary => "Unary",
            Streaming::Server => "Server",
            Streaming::Client => "Client",
            Streaming::Bidi => "Bidi",
        }
    }

    /// In words, for diagnostics and documents.
    pub fn describe(self) -> &'static str {
        match self {
            Streaming::Unary => "a call",
            Streaming::Server => "a server stream",
            Streaming::Client => "a client stream",
            Streaming::Bidi => "a bidirectional stream",
        }
    }
}

impl Method {
    /// A call or which kind of stream.
    pub fn streaming(&self) -> Streaming {
        match (self.stream_param.is_some(), self.result_stream) {
            (false, false) => Streaming::Unary,
            (false, true) => Streaming::Server,
            (true, false) => Streaming::Client,
            (true, true) => Streaming::Bidi,
        }
    }

    /// The JSON-RPC method name: `json(name = ...)` if given, else the lower-cased
    /// interface, underscore, method as written.
    pub fn json_rpc_name(&self, interface: &str) -> String {
        match &self.json.name {
            Some(name) => name.clone(),
            None => default_json_rpc_name(interface, &self.name),
        }
    }
}

/// The JSON-RPC namespace of a method named `json_rpc_name`: what comes before its
/// first underscore (`eth` of `eth_newHeads`), the whole name when it has none. A
/// subscription is opened with `<namespace>_subscribe`, as geth does for any namespace.
pub fn json_rpc_namespace(json_rpc_name: &str) -> &str {
    json_rpc_name
        .split_once('_')
        .map_or(json_rpc_name, |(namespace, _)| namespace)
}

/// A method's JSON-RPC name without `json(name = ...)`: the lower-cased interface,
/// underscore, the method as written (`eth_getBalance`).
pub fn default_json_rpc_name(interface: &str, method: &str) -> String {
    format!("{}_{method}", interface.to_lowercase())
}

/// A constant: `const NAME: Type = value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Const {
    /// Schema name as written (`MAX_LOGS`, `maxLogs`).
    pub name: String,
    pub doc: Vec<String>,
    pub value: ConstValue,
}

/// The types a constant may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConstType {
    /// An integer scalar (never `bool`, `f32` or `f64`).
    Int(Scalar),
    Bool,
    Text,
}

/// A constant's checked value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConstValue {
    /// An integer that fits its scalar type.
    Int(Scalar, i128),
    Bool(bool),
    Text(String),
}

impl ConstValue {
    /// The type as a schema writes it (`u32`, `bool`, `text`).
    pub fn schema_type(&self) -> &'static str {
        match self {
            ConstValue::Int(scalar, _) => scalar.keyword(),
            ConstValue::Bool(_) => "bool",
            ConstValue::Text(_) => "text",
        }
    }

    /// The value as a schema writes it (`1000`, `true`, `"zap"`).
    pub fn schema_syntax(&self) -> String {
        match self {
            ConstValue::Int(_, n) => n.to_string(),
            ConstValue::Bool(b) => b.to_string(),
            ConstValue::Text(t) => format!("\"{t}\""),
        }
    }
}

//! The syntax tree of one `.zap` file, exactly as written.
//!
//! Nothing here is checked or resolved: names may be unknown, numbers may not fit, aliases
//! are still names. Every name, type and number carries the byte [`Span`] it was read from,
//! so the checker can point at it.

use std::ops::Range;

/// A byte range in the original source text.
pub type Span = Range<usize>;

/// A name as written, with where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ident {
    pub text: String,
    pub span: Span,
}

/// A decimal number as written (an offset or a `bytes_fixed` length), kept as text so an
/// oversized value is reported by the checker rather than lost by the parser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Number {
    pub digits: String,
    pub span: Span,
}

impl Number {
    /// The value, if it fits a `u32`.
    pub fn as_u32(&self) -> Option<u32> {
        self.digits.parse().ok()
    }
}

/// One parsed file: its declarations in order, plus layout facts the checker needs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SchemaFile {
    pub declarations: Vec<Declaration>,
    /// The indentation of every line of every whitespace-form block (to find tabs).
    pub block_indents: Vec<Indentation>,
}

/// The leading whitespace of one line of a whitespace-form block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Indentation {
    pub text: String,
    pub span: Span,
}

impl Indentation {
    /// Byte position of the first tab, if the indentation contains one.
    pub fn first_tab(&self) -> Option<usize> {
        self.text.find('\t').map(|i| self.span.start + i)
    }
}

/// A top-level declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Declaration {
    Package(PackageDecl),
    Alias(AliasDecl),
    Struct(StructDecl),
    Interface(InterfaceDecl),
    Enum(EnumDecl),
    Const(ConstDecl),
    Import(ImportDecl),
}

/// `import "common.zap"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportDecl {
    /// The path as written, without the quotes.
    pub path: String,
    /// The quoted path, quotes included.
    pub span: Span,
}

/// `package NAME`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageDecl {
    pub name: Ident,
    /// The `package` keyword.
    pub keyword: Span,
}

/// `type NAME = TYPE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AliasDecl {
    pub doc: Vec<String>,
    pub name: Ident,
    pub target: TypeExpr,
}

/// `struct NAME [deprecated] { fields }` or the whitespace form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StructDecl {
    pub doc: Vec<String>,
    pub name: Ident,
    /// Fields and reserved field slots, in declaration order (both take part in layout).
    pub fields: Vec<FieldDecl>,
    /// The `deprecated` after the name, if written.
    pub deprecated: Option<Span>,
}

/// `Name Type [@Offset] [deprecated] [json(...)]`, or a reserved slot
/// `reserved Name Type [@Offset]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldDecl {
    pub doc: Vec<String>,
    pub name: Ident,
    pub ty: TypeExpr,
    /// The explicit `@N`, if written (span of the digits).
    pub offset: Option<Number>,
    /// `json(...)`, if written.
    pub json: Option<JsonOptions>,
    /// The `reserved` keyword of a reserved slot: placed like a field, never read or
    /// written, its name and bytes never reused.
    pub reserved: Option<Span>,
    /// The `deprecated` flag, if written.
    pub deprecated: Option<Span>,
}

impl FieldDecl {
    /// True for a `reserved Name Type @N` slot.
    pub fn is_reserved(&self) -> bool {
        self.reserved.is_some()
    }
}

/// `const NAME: Type = value`: a named value generated as a Rust constant, never on the
/// wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConstDecl {
    pub doc: Vec<String>,
    pub name: Ident,
    pub ty: TypeExpr,
    pub value: ConstLiteral,
}

/// A constant's value as written: the checker decides whether it fits the type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConstLiteral {
    /// `-12`, `1000`, `0xff` (kept as text, so an oversized value is reported).
    Integer { text: String, span: Span },
    /// `true` or `false`.
    Bool { value: bool, span: Span },
    /// `"text"` (without the quotes; the span includes them).
    Text { text: String, span: Span },
}

impl ConstLiteral {
    pub fn span(&self) -> Span {
        match self {
            ConstLiteral::Integer { span, .. }
            | ConstLiteral::Bool { span, .. }
            | ConstLiteral::Text { span, .. } => span.clone(),
        }
    }

    /// How the value is written, for messages: "an integer", "`true`", "a quoted text".
    pub fn kind(&self) -> &'static str {
        match self {
            ConstLiteral::Integer { .. } => "an integer",
            ConstLiteral::Bool { value: true, .. } => "`true`",
            ConstLiteral::Bool { value: false, .. } => "`false`",
            ConstLiteral::Text { .. } => "a quoted text",
        }
    }

    /// The value of an integer literal (decimal or `0x` hex, optionally negative), if it
    /// fits an `i128` (every integer type's range does).
    pub fn integer(&self) -> Option<i128> {
        let ConstLiteral::Integer { text, .. } = self else {
            return None;
        };
        let (negative, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text.as_str()),
        };
        let magnitude = match digits
            .strip_prefix("0x")
            .or_else(|| digits.strip_prefix("0X"))
        {
            Some(hex) => i128::from_str_radix(hex, 16).ok()?,
            None => digits.parse::<i128>().ok()?,
        };
        Some(if negative { -magnitude } else { magnitude })
    }
}

/// `enum NAME : REPR { Value = N ... }` or the whitespace form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnumDecl {
    pub doc: Vec<String>,
    pub name: Ident,
    /// The representation as written (`u8`); the checker allows `u8`, `u16` and `u32`.
    pub repr: Ident,
    pub values: Vec<EnumValueDecl>,
}

/// `Name = N` inside an enum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnumValueDecl {
    pub doc: Vec<String>,
    pub name: Ident,
    /// The value as written (decimal digits), checked against the representation.
    pub value: Number,
}

/// `interface NAME { methods }` or the whitespace form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterfaceDecl {
    pub doc: Vec<String>,
    pub name: Ident,
    pub methods: Vec<MethodDecl>,
    /// The ordinals of `reserved @N` lines, in declaration order.
    pub reserved: Vec<Number>,
}

/// `name [@N] (params) [returns results] [requires BITS] [deprecated] [json(...)]`. The
/// grammar accepts any number of parameters and results so the checker can say precisely
/// what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodDecl {
    pub doc: Vec<String>,
    pub name: Ident,
    /// The explicit ordinal `@N`, if written (span of the digits).
    pub ordinal: Option<Number>,
    /// The `deprecated` flag, if written.
    pub deprecated: Option<Span>,
    pub params: Vec<ParamDecl>,
    pub results: Vec<ParamDecl>,
    /// `requires 0x1`: the capability permission bits a call needs.
    pub requires: Option<Bits>,
    /// `idempotent` or `no_side_effects`, if written, and where.
    pub idempotency: Option<(crate::ir::Idempotency, Span)>,
    /// `json(...)`, if written.
    pub json: Option<JsonOptions>,
}

/// `json(option, option = value, ...)` after a field or method: how it looks in JSON.
/// The grammar accepts any option name and value; the checker says which are known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonOptions {
    pub options: Vec<JsonOption>,
    /// The whole `json(...)`.
    pub span: Span,
}

/// One option: a flag (`quantity`) or `name = value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonOption {
    pub name: Ident,
    pub value: Option<OptionValue>,
}

impl JsonOption {
    /// The span of the whole option, value included.
    pub fn span(&self) -> Span {
        match &self.value {
            Some(value) => self.name.span.start..value.span().end,
            None => self.name.span.clone(),
        }
    }
}

/// The value of an option.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionValue {
    /// `"text"` (without the quotes; the span includes them).
    Text { text: String, span: Span },
    /// A bare name: `Balance`.
    Word(Ident),
    /// `[A, B]`.
    Names { names: Vec<Ident>, span: Span },
}

impl OptionValue {
    pub fn span(&self) -> Span {
        match self {
            OptionValue::Text { span, .. } | OptionValue::Names { span, .. } => span.clone(),
            OptionValue::Word(word) => word.span.clone(),
        }
    }

    /// How the value is written, for messages: "a string", "a name", "a list of names".
    pub fn kind(&self) -> &'static str {
        match self {
            OptionValue::Text { .. } => "a string",
            OptionValue::Word(_) => "a name",
            OptionValue::Names { .. } => "a list of names",
        }
    }
}

/// A permission mask as written: decimal or `0x` hex.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bits {
    pub text: String,
    pub span: Span,
}

impl Bits {
    /// The value, if it fits a `u64`.
    pub fn value(&self) -> Option<u64> {
        match self
            .text
            .strip_prefix("0x")
            .or_else(|| self.text.strip_prefix("0X"))
        {
            Some(hex) => u64::from_str_radix(hex, 16).ok(),
            None => self.text.parse().ok(),
        }
    }
}

/// `name: Type` or just `Type`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamDecl {
    pub name: Option<Ident>,
    pub ty: TypeExpr,
    /// `stream T`: the span of the `stream` keyword.
    pub stream: Option<Span>,
}

/// A type as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeExpr {
    pub kind: TypeKind,
    /// The whole type expression (`list<Leaf>`).
    pub span: Span,
}

/// The forms a written type can take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeKind {
    /// A built-in keyword (`u64`, `text`), a struct name or an alias name.
    Named(Ident),
    /// `bytes_fixed[N]`.
    BytesFixed(Number),
    /// `list<T>`.
    List(Box<TypeExpr>),
    /// `ptr<T>` (legal only as a list element).
    Ptr(Box<TypeExpr>),
}

impl TypeExpr {
    /// The type in schema syntax, normalised (`list<ptr<Leaf>>`).
    pub fn to_schema_syntax(&self) -> String {
        match &self.kind {
            TypeKind::Named(name) => name.text.clone(),
            TypeKind::BytesFixed(n) => format!("bytes_fixed[{}]", n.digits),
            TypeKind::List(inner) => format!("list<{}>", inner.to_schema_syntax()),
            TypeKind::Ptr(inner) => format!("ptr<{}>", inner.to_schema_syntax()),
        }
    }
}

impl SchemaFile {
    /// Every struct declaration, in order.
    pub fn structs(&self) -> impl Iterator<Item = &StructDecl> {
        self.declarations.iter().filter_map(|d| match d {
            Declaration::Struct(s) => Some(s),
            _ => None,
        })
    }

    /// Every alias declaration, in order.
    pub fn aliases(&self) -> impl Iterator<Item = &AliasDecl> {
        self.declarations.iter().filter_map(|d| match d {
            Declaration::Alias(a) => Some(a),
            _ => None,
        })
    }

    /// Every interface declaration, in order.
    pub fn interfaces(&self) -> impl Iterator<Item = &InterfaceDecl> {
        self.declarations.iter().filter_map(|d| match d {
            Declaration::Interface(i) => Some(i),
            _ => None,
        })
    }

    /// Every enum declaration, in order.
    pub fn enums(&self) -> impl Iterator<Item = &EnumDecl> {
        self.declarations.iter().filter_map(|d| match d {
            Declaration::Enum(e) => Some(e),
            _ => None,
        })
    }

    /// Every constant declaration, in order.
    pub fn consts(&self) -> impl Iterator<Item = &ConstDecl> {
        self.declarations.iter().filter_map(|d| match d {
            Declaration::Const(c) => Some(c),
            _ => None,
        })
    }

    /// Every import, in order.
    pub fn imports(&self) -> impl Iterator<Item = &ImportDecl> {
        self.declarations.iter().filter_map(|d| match d {
            Declaration::Import(i) => Some(i),
            _ => None,
        })
    }

    /// Every package declaration, in order (a valid file has at most one).
    pub fn packages(&self) -> impl Iterator<Item = &PackageDecl> {
        self.declarations.iter().filter_map(|d| match d {
            Declaration::Package(p) => Some(p),
            _ => None,
        })
    }
}

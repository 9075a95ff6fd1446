//! Text to syntax tree: runs the pest grammar (`grammar.pest`) and turns its pairs into
//! [`crate::ast`].
//!
//! # What is accepted
//!
//! - Top level, one declaration per line (blank and `#` comment lines anywhere):
//!   `package NAME`, `type NAME = TYPE`, `const NAME: TYPE = VALUE`, `struct NAME BLOCK`,
//!   `interface NAME BLOCK`, `enum NAME : REPR BLOCK` (a BLOCK of `Value = N` items).
//! - `import "PATH"` (top level), and type names qualified by the package of an imported
//!   file, `common.Kind` (resolved by `crate::imports`).
//! - A BLOCK is either braces (`{` on the header line; items separated by line breaks
//!   or just spaces, so `struct G { A u32 @0  B text @8 }` fits on one line), or the
//!   whitespace form: nothing after the header, then one item per indented line. Blank and
//!   comment lines may sit inside; the block ends at the first line that starts in column
//!   one. Tabs in that indentation parse but are reported by the checker.
//! - A field: `Name Type [@Offset]`. A method: `name(PARAMS) [returns RESULT]
//!   [requires BITS]`, where PARAMS is empty or comma-separated `name: Type` / `Type`,
//!   RESULT is `(PARAMS)` or a bare `Type`, and BITS the capability permission bits a
//!   call needs (decimal or `0x` hex). Any number of parameters and results parse; the
//!   checker allows at most one each.
//! - Schema evolution (docs/evolution.md): `const NAME: Type = VALUE` at top level (VALUE an
//!   integer, decimal or `0x` hex, optionally negative, `true`/`false` or a `"text"`);
//!   `deprecated` after a struct name, after a field's offset and after a method's
//!   `requires`; `name @N (...)`, a method's explicit ordinal; `reserved @N` among methods
//!   and `reserved Name Type [@Offset]` among fields.
//! - After a field or a method, optionally `json(OPTION, ...)`, where an OPTION is a
//!   name, or `name = VALUE` with VALUE a `"string"`, a name or `[Name, ...]`; which
//!   options exist is the checker's business.
//! - Types: a name (built-in, struct or alias), `bytes_fixed[N]`, `list<T>`, `ptr<T>`
//!   (placement is checked later). `<...>` nesting deeper than [`MAX_TYPE_NESTING`] is
//!   refused before parsing, so hostile input cannot exhaust the stack.
//! - Line breaks may be `\n` or `\r\n`.
//!
//! A syntax error becomes one [`Diagnostic`] that says, in words, what was expected.
//! Doc comments are read from the source text above each declaration, field and method
//! (see [`doc_above`]).

mod expected;

use pest::iterators::Pair;
use pest::Parser as _;

use crate::ast::{
    AliasDecl, Bits, ConstDecl, ConstLiteral, Declaration, EnumDecl, EnumValueDecl, FieldDecl,
    Ident, ImportDecl, Indentation, InterfaceDecl, JsonOption, JsonOptions, MethodDecl, Number,
    OptionValue, PackageDecl, ParamDecl, SchemaFile, Span, StructDecl, TypeExpr, TypeKind,
};
use crate::diag::Diagnostic;

pub(crate) mod grammar {
    #[derive(pest_derive::Parser)]
    #[grammar = "grammar.pest"]
    pub(crate) struct ZapParser;
}

use grammar::{Rule, ZapParser};

/// Deepest `<...>` nesting accepted; keeps the recursive-descent parser far from the stack limit.
pub const MAX_TYPE_NESTING: usize = 32;

/// Parse one file. Fails with the first syntax error (pest stops there).
pub fn parse(source: &str) -> Result<SchemaFile, Diagnostic> {
    check_type_nesting(source)?;
    let mut pairs =
        ZapParser::parse(Rule::schema, source).map_err(|e| expected::syntax_error(source, &e))?;
    let root = pairs
        .next()
        .ok_or_else(|| internal_error(0..0, "the parser returned no schema"))?;
    TreeBuilder::new(source).schema(root)
}

/// Refuse absurdly nested types before pest recurses into them.
fn check_type_nesting(source: &str) -> Result<(), Diagnostic> {
    let mut depth = 0usize;
    let mut in_comment = false;
    for (index, ch) in source.char_indices() {
        match ch {
            '\n' => in_comment = false,
            '#' => in_comment = true,
            '<' if !in_comment => {
                depth += 1;
                if depth > MAX_TYPE_NESTING {
                    return Err(Diagnostic::error(
                        "type nested too deeply",
                        index..index + 1,
                        format!("more than {MAX_TYPE_NESTING} levels of `<`"),
                    )
                    .with_hint("lists of lists are not allowed anyway; use a struct element"));
                }
            }
            '>' if !in_comment => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

fn internal_error(span: Span, what: &str) -> Diagnostic {
    Diagnostic::error(format!("internal parser error: {what}"), span, "here")
        .with_hint("this is a bug in zapc; please report it with this schema")
}

/// Builds the syntax tree from pest pairs, remembering the source for doc comments.
struct TreeBuilder<'s> {
    source: &'s str,
    block_indents: Vec<Indentation>,
}

type Built<T> = Result<T, Diagnostic>;

impl<'s> TreeBuilder<'s> {
    fn new(source: &'s str) -> Self {
        TreeBuilder {
            source,
            block_indents: Vec::new(),
        }
    }

    fn schema(mut self, root: Pair<'_, Rule>) -> Built<SchemaFile> {
        let mut declarations = Vec::new();
        for pair in root.into_inner() {
            let declaration = match pair.as_rule() {
                Rule::package_decl => Declaration::Package(self.package(pair)?),
                Rule::alias_decl => Declaration::Alias(self.alias(pair)?),
                Rule::struct_decl => Declaration::Struct(self.structure(pair)?),
                Rule::interface_decl => Declaration::Interface(self.interface(pair)?),
                Rule::import_decl => Declaration::Import(import(&pair)?),
                Rule::enum_decl => Declaration::Enum(self.enumeration(pair)?),
                Rule::const_decl => Declaration::Const(self.constant(pair)?),
                _ => continue,
            };
            declarations.push(declaration);
        }
        Ok(SchemaFile {
            declarations,
            block_indents: self.block_indents,
        })
    }

    fn package(&self, pair: Pair<'_, Rule>) -> Built<PackageDecl> {
        Ok(PackageDecl {
            keyword: span_of(&child(&pair, Rule::kw_package)?),
            name: ident(&child(&pair, Rule::package_name)?),
        })
    }

    fn alias(&self, pair: Pair<'_, Rule>) -> Built<AliasDecl> {
        Ok(AliasDecl {
            doc: doc_above(self.source, pair.as_span().start()),
            name: ident(&child(&pair, Rule::alias_name)?),
            target: type_expr(child(&pair, Rule::type_expr)?)?,
        })
    }

    fn structure(&mut self, pair: Pair<'_, Rule>) -> Built<StructDecl> {
        let doc = doc_above(self.source, pair.as_span().start());
        let name = ident(&child(&pair, Rule::struct_name)?);
        let deprecated = find_child(&pair, Rule::deprecation).map(|d| span_of(&d));
        let mut fields = Vec::new();
        for part in pair.into_inner() {
            match part.as_rule() {
                Rule::field => fields.push(self.field(part)?),
                Rule::reserved_field => fields.push(self.field(part)?),
                Rule::indented_line => self.note_indentation(&part),
                _ => {}
            }
        }
        Ok(StructDecl {
            doc,
            name,
            fields,
            deprecated,
        })
    }

    fn constant(&self, pair: Pair<'_, Rule>) -> Built<ConstDecl> {
        let value = child(&pair, Rule::const_value)?;
        Ok(ConstDecl {
            doc: doc_above(self.source, pair.as_span().start()),
            name: ident(&child(&pair, Rule::const_name)?),
            ty: type_expr(child(&pair, Rule::type_expr)?)?,
            value: const_literal(value)?,
        })
    }

    fn field(&self, pair: Pair<'_, Rule>) -> Built<FieldDecl> {
        // One pass over the parts (a schema is mostly fields: benches/check_rounds.py).
        let (mut name, mut ty, mut offset, mut reserved, mut deprecated) =
            (None, None, None, None, None);
        for part in pair.clone().into_inner() {
            match part.as_rule() {
                Rule::misplaced_part => {
                    return Err(misplaced_error(
                        &part,
                        "a field",
                        "`Name Type @Offset deprecated json(...)`",
                    ))
                }
                Rule::field_name => name = Some(ident(&part)),
                Rule::type_expr => ty = Some(part),
                Rule::offset => offset = Some(number(&child(&part, Rule::offset_number)?)),
                Rule::kw_reserved => reserved = Some(span_of(&part)),
                Rule::deprecation => deprecated = Some(span_of(&part)),
                _ => {}
            }
        }
        let missing = |what| internal_error(span_of(&pair), &format!("missing {what:?}"));
        Ok(FieldDecl {
            doc: doc_above(self.source, pair.as_span().start()),
            name: name.ok_or_else(|| missing(Rule::field_name))?,
            ty: type_expr(ty.ok_or_else(|| missing(Rule::type_expr))?)?,
            offset,
            json: json_options(&pair)?,
            reserved,
            deprecated,
        })
    }

    fn interface(&mut self, pair: Pair<'_, Rule>) -> Built<InterfaceDecl> {
        let doc = doc_above(self.source, pair.as_span().start());
        let name = ident(&child(&pair, Rule::interface_name)?);
        let mut methods = Vec::new();
        let mut reserved = Vec::new();
        for part in pair.into_inner() {
            match part.as_rule() {
                Rule::method => methods.push(self.method(part)?),
                Rule::reserved_method => reserved.push(ordinal(&part)?),
                Rule::indented_line => self.note_indentation(&part),
                _ => {}
            }
        }
        Ok(InterfaceDecl {
            doc,
            name,
            methods,
            reserved,
        })
    }

    fn method(&self, pair: Pair<'_, Rule>) -> Built<MethodDecl> {
        misplaced(
            &pair,
            "a method",
            "`name @N (params) returns (result) idempotent requires BITS deprecated json(...)`",
        )?;
        let results = match find_child(&pair, Rule::method_result) {
            Some(result) => method_results(result)?,
            None => Vec::new(),
        };
        let requires = match find_child(&pair, Rule::requirement) {
            Some(req) => {
                let bits = child(&req, Rule::permission_bits)?;
                Some(Bits {
                    text: bits.as_str().to_owned(),
                    span: span_of(&bits),
                })
            }
            None => None,
        };
        let explicit = match find_child(&pair, Rule::ordinal) {
            Some(_) => Some(ordinal(&pair)?),
            None => None,
        };
        let idempotency = find_child(&pair, Rule::idempotency).map(|marker| {
            let kind = match marker.as_str() {
                "no_side_effects" => crate::ir::Idempotency::NoSideEffects,
                _ => crate::ir::Idempotency::Idempotent,
            };
            (kind, span_of(&marker))
        });
        Ok(MethodDecl {
            doc: doc_above(self.source, pair.as_span().start()),
            name: ident(&child(&pair, Rule::method_name)?),
            ordinal: explicit,
            deprecated: find_child(&pair, Rule::deprecation).map(|d| span_of(&d)),
            params: parameters(child(&pair, Rule::parameters)?)?,
            results,
            requires,
            idempotency,
            json: json_options(&pair)?,
        })
    }

    fn enumeration(&mut self, pair: Pair<'_, Rule>) -> Built<EnumDecl> {
        let doc = doc_above(self.source, pair.as_span().start());
        let name = ident(&child(&pair, Rule::enum_name)?);
        let repr = ident(&child(&pair, Rule::enum_repr)?);
        let mut values = Vec::new();
        for part in pair.into_inner() {
            match part.as_rule() {
                Rule::enum_value => values.push(EnumValueDecl {
                    doc: doc_above(self.source, part.as_span().start()),
                    name: ident(&child(&part, Rule::value_name)?),
                    value: number(&child(&part, Rule::value_number)?),
                }),
                Rule::indented_line => self.note_indentation(&part),
                _ => {}
            }
        }
        Ok(EnumDecl {
            doc,
            name,
            repr,
            values,
        })
    }

    fn note_indentation(&mut self, line: &Pair<'_, Rule>) {
        if let Some(indent) = find_child(line, Rule::indentation) {
            self.block_indents.push(Indentation {
                text: indent.as_str().to_owned(),
                span: span_of(&indent),
            });
        }
    }
}

fn import(pair: &Pair<'_, Rule>) -> Built<ImportDecl> {
    let path = child(pair, Rule::import_path)?;
    let quoted = path.as_str();
    Ok(ImportDecl {
        path: quoted[1..quoted.len() - 1].to_owned(),
        span: span_of(&path),
    })
}

/// The error for a trailing part written after one that must follow it.
fn misplaced(item: &Pair<'_, Rule>, what: &str, order: &str) -> Built<()> {
    match find_child(item, Rule::misplaced_part) {
        Some(part) => Err(misplaced_error(&part, what, order)),
        None => Ok(()),
    }
}

fn misplaced_error(part: &Pair<'_, Rule>, what: &str, order: &str) -> Diagnostic {
    let text = part.as_str().trim();
    Diagnostic::error(
        format!("`{text}` is out of place in {what}"),
        span_of(part),
        "must come earlier",
    )
    .with_hint(format!("the parts of {what} go in this order: {order}"))
}

/// The `@N` of a method or of `reserved @N` (the digits).
fn ordinal(item: &Pair<'_, Rule>) -> Built<Number> {
    let ordinal = child(item, Rule::ordinal)?;
    Ok(number(&child(&ordinal, Rule::ordinal_number)?))
}

/// A constant's value: which literal it is, as written.
fn const_literal(pair: Pair<'_, Rule>) -> Built<ConstLiteral> {
    let span = span_of(&pair);
    let inner = pair
        .into_inner()
        .next()
        .ok_or_else(|| internal_error(span.clone(), "empty constant value"))?;
    let (text, span) = (inner.as_str(), span_of(&inner));
    Ok(match inner.as_rule() {
        Rule::const_integer => ConstLiteral::Integer {
            text: text.to_owned(),
            span,
        },
        Rule::const_bool => ConstLiteral::Bool {
            value: text == "true",
            span,
        },
        Rule::const_text => ConstLiteral::Text {
            text: text[1..text.len() - 1].to_owned(),
            span,
        },
        _ => return Err(internal_error(span, "unexpected constant value")),
    })
}

fn method_results(pair: Pair<'_, Rule>) -> Built<Vec<ParamDecl>> {
    if let Some(list) = find_child(&pair, Rule::parameters) {
        return parameters(list);
    }
    let ty = type_expr(child(&pair, Rule::type_expr)?)?;
    let stream = find_child(&pair, Rule::kw_stream).map(|k| span_of(&k));
    Ok(vec![ParamDecl {
        name: None,
        ty,
        stream,
    }])
}

fn parameters(pair: Pair<'_, Rule>) -> Built<Vec<ParamDecl>> {
    pair.into_inner()
        .filter(|p| p.as_rule() == Rule::parameter)
        .map(|p| {
            Ok(ParamDecl {
                name: find_child(&p, Rule::parameter_name).map(|n| ident(&n)),
                ty: type_expr(child(&p, Rule::type_expr)?)?,
                stream: find_child(&p, Rule::kw_stream).map(|k| span_of(&k)),
            })
        })
        .collect()
}

/// The `json(...)` of a field or method, if written.
fn json_options(item: &Pair<'_, Rule>) -> Built<Option<JsonOptions>> {
    let Some(pair) = find_child(item, Rule::json_options) else {
        return Ok(None);
    };
    let span = span_of(&pair);
    let options = pair
        .into_inner()
        .filter(|p| p.as_rule() == Rule::json_option)
        .map(|option| {
            let value = match find_child(&option, Rule::option_value) {
                Some(value) => Some(option_value(value)?),
                None => None,
            };
            Ok(JsonOption {
                name: ident(&child(&option, Rule::option_name)?),
                value,
            })
        })
        .collect::<Built<_>>()?;
    Ok(Some(JsonOptions { options, span }))
}

fn option_value(pair: Pair<'_, Rule>) -> Built<OptionValue> {
    let span = span_of(&pair);
    let inner = pair
        .into_inner()
        .next()
        .ok_or_else(|| internal_error(span.clone(), "empty option value"))?;
    Ok(match inner.as_rule() {
        Rule::option_text => {
            let quoted = inner.as_str();
            OptionValue::Text {
                text: quoted[1..quoted.len() - 1].to_owned(),
                span: span_of(&inner),
            }
        }
        Rule::option_word => OptionValue::Word(ident(&inner)),
        Rule::option_names => OptionValue::Names {
            names: inner
                .clone()
                .into_inner()
                .filter(|p| p.as_rule() == Rule::option_word)
                .map(|p| ident(&p))
                .collect(),
            span: span_of(&inner),
        },
        _ => return Err(internal_error(span, "unexpected option value")),
    })
}

fn type_expr(pair: Pair<'_, Rule>) -> Built<TypeExpr> {
    let span = span_of(&pair);
    let inner = pair
        .into_inner()
        .next()
        .ok_or_else(|| internal_error(span.clone(), "empty type"))?;
    let kind = match inner.as_rule() {
        Rule::type_name => TypeKind::Named(ident(&inner)),
        Rule::bytes_fixed_type => TypeKind::BytesFixed(number(&child(&inner, Rule::byte_count)?)),
        Rule::list_type => TypeKind::List(Box::new(type_expr(child(&inner, Rule::type_expr)?)?)),
        Rule::ptr_type => TypeKind::Ptr(Box::new(type_expr(child(&inner, Rule::type_expr)?)?)),
        _ => return Err(internal_error(span, "unexpected type form")),
    };
    Ok(TypeExpr { kind, span })
}

fn find_child<'i>(pair: &Pair<'i, Rule>, rule: Rule) -> Option<Pair<'i, Rule>> {
    pair.clone().into_inner().find(|p| p.as_rule() == rule)
}

fn child<'i>(pair: &Pair<'i, Rule>, rule: Rule) -> Built<Pair<'i, Rule>> {
    find_child(pair, rule)
        .ok_or_else(|| internal_error(span_of(pair), &format!("missing {rule:?}")))
}

fn span_of(pair: &Pair<'_, Rule>) -> Span {
    let span = pair.as_span();
    span.start()..span.end()
}

fn ident(pair: &Pair<'_, Rule>) -> Ident {
    Ident {
        text: pair.as_str().to_owned(),
        span: span_of(pair),
    }
}

fn number(pair: &Pair<'_, Rule>) -> Number {
    Number {
        digits: pair.as_str().to_owned(),
        span: span_of(pair),
    }
}

/// The doc comment of the item starting at byte `item_start`: the `#` lines directly above
/// it (no blank line between), in order, each without `#` and one following space.
///
/// Only an item that begins its line has a doc comment; a trailing `# ...` on a code line
/// is a plain comment, for the item on that line and for the next one.
pub fn doc_above(source: &str, item_start: usize) -> Vec<String> {
    let Some(before) = source.get(..item_start) else {
        return Vec::new();
    };
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    if !before[line_start..].trim().is_empty() || line_start == 0 {
        return Vec::new();
    }
    let mut doc: Vec<String> = before[..line_start - 1]
        .split('\n')
        .rev()
        .map(str::trim)
        .take_while(|line| line.starts_with('#'))
        .map(|line| {
            let text = &line[1..];
            text.strip_prefix(' ').unwrap_or(text).to_owned()
        })
        .collect();
    doc.reverse();
    doc
}

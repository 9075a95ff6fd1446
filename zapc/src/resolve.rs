//! The names a file declares, and what a written type means once aliases are followed.

use std::collections::HashMap;

use crate::ast::{
    AliasDecl, EnumDecl, InterfaceDecl, Number, SchemaFile, StructDecl, TypeExpr, TypeKind,
};
use crate::ir::{Scalar, Type};

/// A declared name. Structs, aliases, interfaces and enums share one namespace.
#[derive(Debug, Clone, Copy)]
pub enum Symbol<'a> {
    Struct(&'a StructDecl),
    Alias(&'a AliasDecl),
    Interface(&'a InterfaceDecl),
    Enum(&'a EnumDecl),
}

/// What a type expression denotes after following aliases (one level of structure: the
/// element of a list is left as written).
#[derive(Debug, Clone, Copy)]
pub enum Resolved<'a> {
    /// A built-in scalar, `text` or `bytes`.
    Builtin(BuiltinType),
    Struct(&'a StructDecl),
    Enum(&'a EnumDecl),
    BytesFixed(&'a Number),
    List(&'a TypeExpr),
    Ptr(&'a TypeExpr),
}

/// The built-in types that are a single keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuiltinType {
    Scalar(Scalar),
    Text,
    Bytes,
}

impl BuiltinType {
    /// The built-in type a keyword names, if any.
    pub fn from_keyword(word: &str) -> Option<BuiltinType> {
        match word {
            "text" => Some(BuiltinType::Text),
            "bytes" => Some(BuiltinType::Bytes),
            _ => Scalar::from_keyword(word).map(BuiltinType::Scalar),
        }
    }

    /// The IR type.
    pub fn to_ir(self) -> Type {
        match self {
            BuiltinType::Scalar(s) => Type::Scalar(s),
            BuiltinType::Text => Type::Text,
            BuiltinType::Bytes => Type::Bytes,
        }
    }
}

/// Declared names of one file. When a name is declared twice the first declaration wins
/// (the checker reports the second).
#[derive(Debug, Default)]
pub struct Symbols<'a> {
    by_name: HashMap<&'a str, Symbol<'a>>,
}

impl<'a> Symbols<'a> {
    /// Index every struct, alias, interface and enum of `file`.
    pub fn collect(file: &'a SchemaFile) -> Self {
        let mut by_name = HashMap::new();
        let declared = file
            .structs()
            .map(|s| (s.name.text.as_str(), Symbol::Struct(s)))
            .chain(
                file.aliases()
                    .map(|a| (a.name.text.as_str(), Symbol::Alias(a))),
            )
            .chain(
                file.interfaces()
                    .map(|i| (i.name.text.as_str(), Symbol::Interface(i))),
            )
            .chain(
                file.enums()
                    .map(|e| (e.name.text.as_str(), Symbol::Enum(e))),
            );
        for (name, symbol) in declared {
            by_name.entry(name).or_insert(symbol);
        }
        Symbols { by_name }
    }

    /// [`Symbols::collect`], plus the declarations of imported files, whose names (and the
    /// names they use) are already qualified by their package (`common.Kind`).
    pub fn collect_with_imports(file: &'a SchemaFile, imported: &[&'a SchemaFile]) -> Self {
        let mut symbols = Symbols::collect(file);
        for other in imported {
            for (name, symbol) in Symbols::collect(other).by_name {
                symbols.by_name.entry(name).or_insert(symbol);
            }
        }
        symbols
    }

    /// The declared names, imported ones (qualified) included.
    pub fn names(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.by_name.keys().copied()
    }

    /// The declaration of `name`, if any.
    pub fn get(&self, name: &str) -> Option<Symbol<'a>> {
        self.by_name.get(name).copied()
    }

    /// Follow aliases until `ty` is something concrete. `None` when a name is unknown,
    /// names an interface, or the aliases form a cycle (each reported by its own rule).
    pub fn resolve(&self, ty: &'a TypeExpr) -> Option<Resolved<'a>> {
        let mut current = ty;
        // Each alias can be crossed at most once on an acyclic path.
        for _ in 0..=self.by_name.len() {
            let name = match &current.kind {
                TypeKind::Named(name) => name,
                TypeKind::BytesFixed(n) => return Some(Resolved::BytesFixed(n)),
                TypeKind::List(elem) => return Some(Resolved::List(elem)),
                TypeKind::Ptr(target) => return Some(Resolved::Ptr(target)),
            };
            if let Some(builtin) = BuiltinType::from_keyword(&name.text) {
                return Some(Resolved::Builtin(builtin));
            }
            match self.get(&name.text)? {
                Symbol::Struct(decl) => return Some(Resolved::Struct(decl)),
                Symbol::Enum(decl) => return Some(Resolved::Enum(decl)),
                Symbol::Alias(alias) => current = &alias.target,
                Symbol::Interface(_) => return None,
            }
        }
        None
    }

    /// The struct a type denotes (through aliases), if it denotes one.
    pub fn resolve_struct(&self, ty: &'a TypeExpr) -> Option<&'a StructDecl> {
        match self.resolve(ty)? {
            Resolved::Struct(decl) => Some(decl),
            _ => None,
        }
    }
}

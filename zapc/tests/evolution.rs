//! Schema evolution in the front end and the generated code: what explicit ordinals,
//! reserved ordinals and slots, constants and `deprecated` become in the IR, and which
//! generated items carry `#[deprecated]` or `#[allow(deprecated)]`.

use std::path::Path;

use zapc::codegen::{render, Options};
use zapc::ir::{ConstValue, Scalar, Schema};
use zapc::load_str;

fn evolution() -> Schema {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas/evolution.zap");
    load_str("evolution.zap", &std::fs::read_to_string(path).unwrap()).unwrap()
}

fn load(text: &str) -> Schema {
    load_str("test.zap", text).unwrap_or_else(|e| panic!("{}", e.render()))
}

#[test]
fn ordinals_are_explicit_or_the_position_among_methods() {
    let schema = load(
        "interface I {\n    a()\n    reserved @5\n    b()\n    c @9 ()\n    d()\n    e @3 ()\n}\n",
    );
    let i = &schema.interfaces[0];
    let ordinals: Vec<(&str, u32)> = i
        .methods
        .iter()
        .map(|m| (m.name.as_str(), m.ordinal))
        .collect();
    // `reserved` lines do not count as positions.
    assert_eq!(ordinals, [("a", 1), ("b", 2), ("c", 9), ("d", 4), ("e", 3)]);
    assert_eq!(i.reserved, [5]);
}

#[test]
fn a_schema_without_explicit_ordinals_is_numbered_as_before() {
    let text = "interface I {\n    a()\n    b()\n    c()\n}\n";
    let explicit = "interface I {\n    a @1 ()\n    b @2 ()\n    c @3 ()\n}\n";
    assert_eq!(load(text).interfaces, load(explicit).interfaces);
    let code = |t| render(&load(t), &Options::default());
    assert_eq!(code(text), code(explicit), "the same generated code");
}

#[test]
fn reserved_slots_are_laid_out_but_not_fields() {
    let schema = evolution();
    let account = schema.struct_named("Account").unwrap();
    let fields: Vec<&str> = account.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(fields, ["Id", "Name", "Flags", "Handle"]);
    let reserved: Vec<(&str, u32, u32)> = account
        .reserved
        .iter()
        .map(|f| (f.name.as_str(), f.offset, f.width))
        .collect();
    assert_eq!(reserved, [("Balance32", 16, 4), ("Legacy", 32, 8)]);
    assert_eq!(account.size, 40);
    let archived = schema.struct_named("Archived").unwrap();
    assert_eq!(
        (archived.fields[1].name.as_str(), archived.fields[1].offset),
        ("When", 16),
        "the reserved `text` slot before it takes bytes 8..16"
    );
    assert_eq!(archived.list_shape, zapc::ir::ListShape::Framed);

    // Turning a field into a reserved slot changes no offset, size or list shape.
    let live = load("struct P {\n    X i32\n    Z i32\n    Y i32\n}\n");
    let kept = load("struct P {\n    X i32\n    reserved Z i32\n    Y i32\n}\n");
    let (live, kept) = (&live.structs[0], &kept.structs[0]);
    assert_eq!((live.size, live.list_shape), (kept.size, kept.list_shape));
    assert_eq!(live.fields[2].offset, kept.fields[1].offset);
}

#[test]
fn constants_are_checked_values() {
    let schema = evolution();
    let consts: Vec<(&str, &ConstValue)> = schema
        .consts
        .iter()
        .map(|c| (c.name.as_str(), &c.value))
        .collect();
    assert_eq!(
        consts[..4],
        [
            ("MAX_ACCOUNTS", &ConstValue::Int(Scalar::U32, 1000)),
            ("SERVICE_NAME", &ConstValue::Text("ledger v3".into())),
            ("STRICT", &ConstValue::Bool(true)),
            (
                "MIN_BALANCE",
                &ConstValue::Int(Scalar::I64, i128::from(i64::MIN))
            ),
        ]
    );
    assert_eq!(
        schema.consts[0].doc,
        ["How many accounts one `list` call returns at most."]
    );
    let alias = load("type count = u16\nconst N: count = 0xffff\n");
    assert_eq!(alias.consts[0].value, ConstValue::Int(Scalar::U16, 65535));
}

#[test]
fn deprecation_reaches_the_ir() {
    let schema = evolution();
    let deprecated_structs: Vec<&str> = schema
        .structs
        .iter()
        .filter(|s| s.deprecated)
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(deprecated_structs, ["LegacyQuery", "Archived"]);
    let fields: Vec<(&str, &str)> = schema
        .structs
        .iter()
        .flat_map(|s| s.fields.iter().map(move |f| (s, f)))
        .filter(|(_, f)| f.deprecated)
        .map(|(s, f)| (s.name.as_str(), f.name.as_str()))
        .collect();
    assert_eq!(fields, [("Account", "Name"), ("Page", "Total")]);
    let methods: Vec<&str> = schema
        .interfaces
        .iter()
        .flat_map(|i| &i.methods)
        .filter(|m| m.deprecated)
        .map(|m| m.name.as_str())
        .collect();
    assert_eq!(methods, ["lookup", "shutdown"]);
}

/// The names of the items (and of the functions and fields inside them) that carry an
/// attribute whose tokens are `attr`, in the generated file.
fn carrying(code: &str, attr: &str) -> Vec<String> {
    let body = code.split_once("\n\n").unwrap().1;
    let file = syn::parse_file(body).unwrap();
    let has = |attrs: &[syn::Attribute]| {
        attrs
            .iter()
            .any(|a| quote::quote!(#a).to_string().replace(' ', "") == attr)
    };
    let mut out = Vec::new();
    let mut visit_fns = |owner: String, items: Entries<'_>| {
        for (name, attrs) in items {
            if has(attrs) {
                out.push(format!("{owner}::{name}"));
            }
        }
    };
    for item in &file.items {
        match item {
            syn::Item::Struct(s) => {
                let name = s.ident.to_string();
                let fields = s
                    .fields
                    .iter()
                    .filter_map(|f| Some((f.ident.as_ref()?.to_string(), &f.attrs[..])));
                let mut entries = vec![(String::new(), &s.attrs[..])];
                entries.extend(fields);
                visit_fns(name, entries);
            }
            syn::Item::Trait(t) => {
                let methods = t.items.iter().filter_map(|i| match i {
                    syn::TraitItem::Fn(f) => Some((f.sig.ident.to_string(), &f.attrs[..])),
                    _ => None,
                });
                let mut entries = vec![(String::new(), &t.attrs[..])];
                entries.extend(methods);
                visit_fns(t.ident.to_string(), entries);
            }
            syn::Item::Impl(i) => impl_items(i, "", &mut visit_fns),
            syn::Item::Const(c) => {
                let entries = vec![(String::new(), &c.attrs[..])];
                visit_fns("const _".to_owned(), entries);
                if let syn::Expr::Block(block) = &*c.expr {
                    for stmt in &block.block.stmts {
                        if let syn::Stmt::Item(syn::Item::Impl(i)) = stmt {
                            impl_items(i, "in const _: ", &mut visit_fns);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Named things with their attributes (an item's own under the empty name).
type Entries<'a> = Vec<(String, &'a [syn::Attribute])>;

fn impl_items(i: &syn::ItemImpl, prefix: &str, visit: &mut dyn FnMut(String, Entries<'_>)) {
    let ty = &i.self_ty;
    let owner = format!(
        "{prefix}{}",
        quote::quote!(#ty).to_string().replace(' ', "")
    );
    let mut entries = vec![(String::new(), &i.attrs[..])];
    entries.extend(i.items.iter().filter_map(|item| match item {
        syn::ImplItem::Fn(f) => Some((f.sig.ident.to_string(), &f.attrs[..])),
        _ => None,
    }));
    visit(owner, entries);
}

#[test]
fn deprecated_items_carry_the_attribute_and_generated_code_allows_them() {
    let code = render(&evolution(), &Options::default());
    let deprecated = carrying(&code, "#[deprecated]");
    assert_eq!(
        deprecated,
        [
            "Account::name",
            "in const _: AccountReader<'a>::name",
            "in const _: AccountBuilder<'b>::set_name",
            "LegacyQuery::",
            "LegacyQueryReader::",
            "LegacyQueryBuilder::",
            "Page::total",
            "in const _: PageReader<'a>::total",
            "in const _: PageBuilder<'b>::set_total",
            "Archived::",
            "ArchivedReader::",
            "ArchivedBuilder::",
            "Ledger::lookup",
            "Ledger::lookup_owned",
            "LedgerClient<T>::lookup",
            "LedgerClient<T>::lookup_owned",
            "Admin::shutdown",
            "AdminClient<T>::shutdown",
        ]
    );
    let allowed = carrying(&code, "#[allow(deprecated)]");
    for item in [
        "Account::",
        "const _::",
        "Page::",
        "LegacyQuery::",
        "Ledger::",
        "LedgerService<H>::",
        "LedgerClient<T>::",
        "Admin::",
    ] {
        assert!(
            allowed.iter().any(|a| a == item),
            "{item} lacks #[allow(deprecated)]: {allowed:#?}"
        );
    }
    // `Query` and `Point` name nothing deprecated: their code is as before.
    assert!(!allowed
        .iter()
        .any(|a| a.starts_with("Query") || a.starts_with("Point")));
}

#[test]
fn constants_are_generated_with_their_rust_types() {
    let code = render(&evolution(), &Options::default());
    for line in [
        "pub const MAX_ACCOUNTS: u32 = 1000;",
        "pub const SERVICE_NAME: &str = \"ledger v3\";",
        "pub const STRICT: bool = true;",
        "pub const MIN_BALANCE: i64 = -9223372036854775808;",
        "pub const MAX_BALANCE: u64 = 18446744073709551615;",
        "pub const MAX_RETRIES: u16 = 3;",
        "pub const OFFSET: i8 = -1;",
    ] {
        assert!(code.contains(line), "missing {line}");
    }
    let text = load("const QUOTE: text = \"it's é 🦀 {}\"\n");
    let code = render(&text, &Options::default());
    assert!(
        code.contains("pub const QUOTE: &str = \"it's é 🦀 {}\";"),
        "{code}"
    );
}

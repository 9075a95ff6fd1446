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
            // The reader and builder types, declared by the runtime's macro with the
            // attributes given to it.
            syn::Item::Macro(m)
                if m.mac.path.segments.last().unwrap().ident == "struct_companions" =>
            {
                let (attrs, reader, builder) = companions_of(&m.mac);
                visit_fns(reader, vec![(String::new(), &attrs[..])]);
                visit_fns(builder, vec![(String::new(), &attrs[..])]);
            }
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

/// The attributes, reader and builder names of a `struct_companions!` invocation:
/// `#[attrs] vis struct Owner as "Name" { reader: R, builder: B, bounds: { .. }, }`.
fn companions_of(mac: &syn::Macro) -> (Vec<syn::Attribute>, String, String) {
    let parse = |input: syn::parse::ParseStream<'_>| {
        let attrs = input.call(syn::Attribute::parse_outer)?;
        input.parse::<syn::Visibility>()?;
        input.parse::<syn::Token![struct]>()?;
        input.parse::<syn::Ident>()?;
        input.parse::<syn::Token![as]>()?;
        input.parse::<syn::LitStr>()?;
        let body;
        syn::braced!(body in input);
        let mut names = Vec::new();
        for key in ["reader", "builder"] {
            let k: syn::Ident = body.parse()?;
            assert_eq!(k, key);
            body.parse::<syn::Token![:]>()?;
            names.push(body.parse::<syn::Ident>()?.to_string());
            body.parse::<syn::Token![,]>()?;
        }
        body.parse::<proc_macro2::TokenStream>()?;
        Ok((attrs, names.remove(0), names.remove(0)))
    };
    syn::parse::Parser::parse2(parse, mac.tokens.clone()).expect("struct_companions! arguments")
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

#[test]
fn the_whitespace_form_takes_the_same_words() {
    let braces = "struct A deprecated {\n    X u32 deprecated\n    reserved Y u64\n    Z u8\n}\n\
                  interface I {\n    reserved @1\n    a @2 () deprecated\n    b @3 ()\n}\n";
    let indented = "struct A deprecated\n    X u32 deprecated\n    reserved Y u64\n    Z u8\n\
                    interface I\n    reserved @1\n    a @2 () deprecated\n    b @3 ()\n";
    let (braces, indented) = (load(braces), load(indented));
    assert_eq!(braces.structs, indented.structs);
    assert_eq!(braces.interfaces, indented.interfaces);
    assert!(indented.structs[0].deprecated && indented.structs[0].fields[0].deprecated);
    assert_eq!(indented.structs[0].reserved[0].offset, 4);
    assert_eq!(indented.interfaces[0].reserved, [1]);
}

/// `zapc layout` lists reserved slots after the fields and reserved ordinals after the
/// methods.
#[cfg(feature = "cli")]
#[test]
fn layout_shows_reserved_slots_and_ordinals() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_zapc"))
        .args(["layout", "schemas/evolution.zap"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let table = String::from_utf8(output.stdout).unwrap();
    let account = "\
struct Account: size 40, list framed
  field               type  offset  width
  Id                  u64        0      8
  Name                text       8      8
  Flags               u8        20      1
  Handle              text      24      8
  reserved Balance32  u32       16      4
  reserved Legacy     u64       32      8
";
    assert!(table.contains(account), "{table}");
    let ledger = "\
interface Ledger
                                                    JSON-RPC
    2  get(q: Query) returns (a: Account)           ledger_get
    1  ping()                                       ledger_ping
    4  lookup(q: LegacyQuery) returns (a: Account)  ledger_lookupLegacy
    7  list(q: Query) returns (p: Page)             ledger_list
    3  reserved
    5  reserved
";
    assert!(table.contains(ledger), "{table}");
}

mod properties {
    use proptest::prelude::*;
    use zapc::compat::{compare, Class};

    use super::load;

    /// An interface of the methods `m<k>` for `k` in `order`, in that order, each with its
    /// ordinal `k + 1` written when `explicit[k]`.
    fn interface(explicit: &[bool], order: &[usize]) -> String {
        let mut text = String::from("struct R {\n    Id u64 @0\n}\ninterface I {\n");
        for &k in order {
            let ordinal = if explicit[k] {
                format!(" @{}", k + 1)
            } else {
                String::new()
            };
            text += &format!("    m{k}{ordinal} (r: R) returns (r: R)\n");
        }
        text + "}\n"
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Writing ordinals that equal the positions, and then reordering the methods,
        /// changes no ordinal: compat reports nothing, and every method keeps its ordinal.
        #[test]
        fn written_ordinals_make_the_order_free(
            n in 1usize..8,
            explicit in prop::collection::vec(any::<bool>(), 8),
            order in Just((0..8).collect::<Vec<usize>>()).prop_shuffle(),
        ) {
            let old = load(&interface(&[false; 8], &(0..n).collect::<Vec<_>>()));
            let partly = load(&interface(&explicit, &(0..n).collect::<Vec<_>>()));
            prop_assert!(compare(&old, &partly).is_empty());
            let order: Vec<usize> = order.into_iter().filter(|&k| k < n).collect();
            let shuffled = load(&interface(&[true; 8], &order));
            prop_assert!(compare(&old, &shuffled).is_empty(), "{:?}", compare(&old, &shuffled));
            for m in &shuffled.interfaces[0].methods {
                let k: u32 = m.name[1..].parse().unwrap();
                prop_assert_eq!(m.ordinal, k + 1);
            }
        }

        /// Removing one method and reserving its ordinal keeps every other ordinal, and is
        /// reported as exactly one wire-breaking change; reusing the reservation later is
        /// wire-breaking again.
        #[test]
        fn a_reserved_removal_moves_nothing(n in 2usize..8, pick in any::<prop::sample::Index>()) {
            let gone = pick.index(n);
            let old = load(&interface(&[true; 8], &(0..n).collect::<Vec<_>>()));
            let mut text = interface(&[true; 8], &(0..n).filter(|&k| k != gone).collect::<Vec<_>>());
            text = text.replace("interface I {\n", &format!("interface I {{\n    reserved @{}\n", gone + 1));
            let new = load(&text);
            let changes = compare(&old, &new);
            prop_assert_eq!(changes.len(), 1, "{:?}", changes);
            prop_assert_eq!(changes[0].class, Class::WireBreaking);
            for m in &new.interfaces[0].methods {
                let kept = old.interfaces[0].methods.iter().find(|o| o.name == m.name).unwrap();
                prop_assert_eq!(kept.ordinal, m.ordinal);
            }
            let reused = load(&text.replace(
                &format!("    reserved @{}\n", gone + 1),
                &format!("    again @{} (r: R)\n", gone + 1),
            ));
            let changes = compare(&new, &reused);
            prop_assert!(changes.iter().any(|c| c.class == Class::WireBreaking), "{:?}", changes);
        }
    }
}

#[test]
fn the_ordinals_every_server_answers_are_refused() {
    for ordinal in ["4294967040", "4294967041", "4294967295"] {
        let text = format!("interface I {{\n    a @{ordinal} ()\n}}\n");
        let errors = load_str("test.zap", &text).expect_err(ordinal).render();
        assert!(
            errors.contains("is reserved for the methods every server answers"),
            "{ordinal}: {errors}"
        );
    }
    let below = load("interface I {\n    a @4294967039 ()\n}\n");
    assert_eq!(below.interfaces[0].methods[0].ordinal, 0xFFFF_FEFF);
}

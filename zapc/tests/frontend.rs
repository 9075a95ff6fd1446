//! Layout and lowering: what `load_str` / `load_file` produce for valid schemas.

use std::path::Path;

use zapc::ir::{ListShape, Scalar, Schema, Struct, Type};
use zapc::{load_file, load_str, LoadError};

fn schema_file(name: &str) -> Schema {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../schemas")
        .join(name);
    match load_file(&path) {
        Ok(schema) => schema,
        Err(error) => panic!("{name} must load:\n{error}"),
    }
}

fn load(text: &str) -> Schema {
    match load_str("test.zap", text) {
        Ok(schema) => schema,
        Err(errors) => panic!("must load:\n{}", errors.render()),
    }
}

fn get<'s>(schema: &'s Schema, name: &str) -> &'s Struct {
    schema
        .struct_named(name)
        .unwrap_or_else(|| panic!("struct {name} missing"))
}

/// (name, offset, width) of every field, in declaration order.
fn slots(s: &Struct) -> Vec<(&str, u32, u32)> {
    s.fields
        .iter()
        .map(|f| (f.name.as_str(), f.offset, f.width))
        .collect()
}

#[test]
fn every_schema_in_the_corpus_loads() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "zap") {
            let schema = load_file(&path).unwrap_or_else(|e| panic!("{}:\n{e}", path.display()));
            assert!(
                schema.package.is_some(),
                "{} has no package",
                path.display()
            );
            count += 1;
        }
    }
    assert!(
        count >= 10,
        "expected the whole corpus, found {count} files"
    );
}

#[test]
fn eth_layout_matches_the_spec() {
    let eth = schema_file("eth.zap");
    assert_eq!(eth.package.as_deref(), Some("eth"));
    let request = get(&eth, "BalanceRequest");
    assert_eq!(request.size, 36);
    assert_eq!(
        slots(request),
        [("Id", 0, 8), ("Block", 8, 8), ("Account", 16, 20)]
    );
    assert_eq!(request.fields[2].ty, Type::BytesFixed(20), "alias resolved");
    assert_eq!(request.list_shape, ListShape::Strided { width: 36 });
    let response = get(&eth, "BalanceResponse");
    assert_eq!(response.size, 56);
    assert_eq!(response.fields[3].ty, Type::BytesFixed(32));
    let methods = &eth.interfaces[0].methods;
    assert_eq!(methods.len(), 6);
    assert_eq!(methods[0].ordinal, 1);
    assert_eq!(methods[5].streaming(), zapc::ir::Streaming::Server);
    assert_eq!(methods[0].json_rpc_name("Eth"), "eth_getBalance");
    assert_eq!(
        methods[0].json.positional.as_deref(),
        Some(&["Account".to_owned(), "Block".to_owned()][..])
    );
    assert_eq!(methods[0].json.result_field.as_deref(), Some("Balance"));
    assert!(request.fields[1].json.quantity && request.fields[1].json.block_tags);
    let rpc_names: Vec<String> = methods.iter().map(|m| m.json_rpc_name("Eth")).collect();
    assert_eq!(
        rpc_names,
        [
            "eth_getBalance",
            "eth_chainId",
            "eth_blockNumber",
            "net_version",
            "web3_clientVersion",
            "eth_newHeads"
        ]
    );
    let param = methods[0].param.as_ref().unwrap();
    assert_eq!(
        (param.name.as_str(), param.ty.as_str()),
        ("req", "BalanceRequest")
    );
    let result = methods[0].result.as_ref().unwrap();
    assert_eq!(
        (result.name.as_str(), result.ty.as_str()),
        ("resp", "BalanceResponse")
    );
}

/// The schema string of shared/vectors/nested.json, verbatim.
const NESTED_VECTOR_SCHEMA: &str = "struct Leaf { Tag u32 @0  Note text @4 }   # size 12\nstruct Kitchen { Flag bool @0  A8 u8 @1  A16 u16 @2  A32 u32 @4  A64 u64 @8  S8 i8 @16  S16 i16 @18  S32 i32 @20  S64 i64 @24  F32 f32 @32  F64 f64 @40  Name text @48  Blob bytes @56  Id bytes_fixed[16] @64  Items list<Leaf> @80  Inner Leaf @88  Nums list<u32> @96 }   # size 104";

#[test]
fn kitchen_matches_the_nested_vector() {
    let kitchen = schema_file("kitchen.zap");
    let leaf = get(&kitchen, "Leaf");
    assert_eq!(leaf.size, 12);
    assert_eq!(slots(leaf), [("Tag", 0, 4), ("Note", 4, 8)]);
    assert_eq!(leaf.list_shape, ListShape::Framed);
    let big = get(&kitchen, "Kitchen");
    assert_eq!(big.size, 104);
    let offsets: Vec<u32> = big.fields.iter().map(|f| f.offset).collect();
    assert_eq!(
        offsets,
        [0, 1, 2, 4, 8, 16, 18, 20, 24, 32, 40, 48, 56, 64, 80, 88, 96]
    );
    let items = &big.fields[14];
    let Type::List(list) = &items.ty else {
        panic!("Items is a list")
    };
    assert_eq!(list.elem, Type::Struct("Leaf".into()));
    assert_eq!(list.shape, ListShape::Framed);
    assert_eq!(big.fields[15].ty, Type::Struct("Leaf".into()));
    assert_eq!(big.fields[15].width, 4);

    let vector = load(NESTED_VECTOR_SCHEMA);
    assert_eq!(vector.structs, kitchen.structs, "same layout as the vector");
}

#[test]
fn flat_vector_schemas_load() {
    let golden = schema_file("golden.zap");
    let g = get(&golden, "Golden");
    assert_eq!(slots(g), [("Magic", 0, 4), ("Name", 8, 8), ("Blob", 16, 8)]);
    assert_eq!(g.size, 24);
    let tails = schema_file("tails.zap");
    assert_eq!(get(&tails, "BalanceRequest").size, 32);
    assert_eq!(get(&tails, "BalanceResponse").size, 32);
    assert_eq!(get(&tails, "BalanceRequest").fields[2].ty, Type::Text);
}

#[test]
fn omitted_offsets_are_the_running_sum_without_alignment() {
    let offsets = schema_file("offsets.zap");
    let packed = get(&offsets, "Packed");
    assert_eq!(slots(packed), [("A", 0, 1), ("B", 1, 8), ("C", 9, 2)]);
    assert_eq!(packed.size, 11);
}

#[test]
fn explicit_offsets_keep_gaps_and_move_the_cursor() {
    let offsets = schema_file("offsets.zap");
    let gapped = get(&offsets, "Gapped");
    assert_eq!(
        slots(gapped),
        [
            ("Head", 0, 4),
            ("Tail", 16, 4),
            ("Next", 20, 1),
            ("Back", 6, 2)
        ]
    );
    assert_eq!(
        gapped.size, 21,
        "size is the largest slot end, not the last"
    );
}

#[test]
fn empty_struct_has_size_zero() {
    let schema = load("struct Nothing {}\nstruct AlsoNothing\n");
    assert_eq!(get(&schema, "Nothing").size, 0);
    assert_eq!(get(&schema, "AlsoNothing").size, 0);
    assert!(schema.package.is_none());
}

fn list_of<'s>(s: &'s Struct, field: &str) -> &'s zapc::ir::List {
    let field = s.fields.iter().find(|f| f.name == field).unwrap();
    match &field.ty {
        Type::List(list) => list,
        other => panic!("{} is {other:?}, not a list", field.name),
    }
}

#[test]
fn list_shapes_follow_the_element_type() {
    let schema = schema_file("lists.zap");
    let lists = get(&schema, "Lists");
    let shape = |name| list_of(lists, name).shape;
    assert_eq!(shape("Numbers"), ListShape::Strided { width: 8 });
    assert_eq!(shape("Flags"), ListShape::Strided { width: 1 });
    assert_eq!(shape("Hashes"), ListShape::Strided { width: 32 });
    assert_eq!(shape("Points"), ListShape::Strided { width: 8 });
    assert_eq!(shape("Names"), ListShape::Framed);
    assert_eq!(shape("Words"), ListShape::Framed);
    assert_eq!(shape("Blobs"), ListShape::Framed);
    assert_eq!(shape("Refs"), ListShape::Pointer);
    assert_eq!(list_of(lists, "Refs").elem, Type::Struct("Named".into()));
    assert_eq!(list_of(lists, "Numbers").elem, Type::Scalar(Scalar::U64));
    assert_eq!(
        get(&schema, "Point").list_shape,
        ListShape::Strided { width: 8 }
    );
    assert_eq!(get(&schema, "Named").list_shape, ListShape::Framed);
    assert!(lists.fields.iter().all(|f| f.width == 8));
}

#[test]
fn aliases_resolve_through_chains_lists_and_structs() {
    let schema = schema_file("aliases.zap");
    let transfer = get(&schema, "Transfer");
    let ty = |name: &str| &transfer.fields.iter().find(|f| f.name == name).unwrap().ty;
    assert_eq!(*ty("From"), Type::BytesFixed(20));
    assert_eq!(*ty("Parent"), Type::BytesFixed(32));
    assert_eq!(*ty("Sender"), Type::Struct("Account".into()));
    assert_eq!(
        list_of(transfer, "Amounts").shape,
        ListShape::Strided { width: 8 }
    );
    assert_eq!(list_of(transfer, "Hashes").elem, Type::BytesFixed(32));
}

#[test]
fn method_ordinals_params_and_results() {
    let schema = schema_file("service.zap");
    let methods = &schema.interfaces[0].methods;
    let summary: Vec<(u32, &str, Option<&str>, Option<&str>)> = methods
        .iter()
        .map(|m| {
            (
                m.ordinal,
                m.name.as_str(),
                m.param.as_ref().map(|p| p.ty.as_str()),
                m.result.as_ref().map(|r| r.ty.as_str()),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (1, "get", Some("Query"), Some("Answer")),
            (2, "put", Some("Query"), Some("Answer")),
            (3, "latest", None, Some("Answer")),
            (4, "forget", Some("Query"), None),
            (5, "ping", None, None),
        ]
    );
    assert_eq!(methods[0].param.as_ref().unwrap().name, "q");
    assert_eq!(
        methods[1].param.as_ref().unwrap().name,
        "",
        "type-only parameter"
    );
}

#[test]
fn doc_comments_are_carried() {
    let schema = schema_file("docs.zap");
    let account = get(&schema, "Account");
    assert_eq!(
        account.doc,
        ["A user account.", "Second line of the account doc."]
    );
    assert_eq!(account.fields[0].doc, ["The account's numeric id."]);
    assert!(
        account.fields[1].doc.is_empty(),
        "trailing comments are not docs"
    );
    assert_eq!(account.fields[2].doc, ["No space after the hash."]);
    let accounts = &schema.interfaces[0];
    assert_eq!(accounts.doc, ["Account lookups."]);
    assert_eq!(accounts.methods[0].doc, ["Fetch one account."]);
}

#[test]
fn a_blank_line_ends_a_doc_comment() {
    let schema = load("# not doc\n\n# doc\nstruct A {\n  # field doc\n\n  X u8\n}\n");
    let a = get(&schema, "A");
    assert_eq!(a.doc, ["doc"]);
    assert!(a.fields[0].doc.is_empty());
}

#[test]
fn brace_and_whitespace_forms_give_the_same_ir() {
    let brace = load(
        "package p\n# Doc.\nstruct S {\n    # Field doc.\n    A u32 @4\n    B text\n}\ninterface I {\n    m(s: S) returns (t: S)\n}\n",
    );
    let indented = load(
        "package p\n# Doc.\nstruct S\n    # Field doc.\n    A u32 @4\n\n    B text\ninterface I\n  m(s: S) returns (t: S)\n",
    );
    assert_eq!(brace, indented);
}

#[test]
fn indent_schema_mixes_both_forms() {
    let schema = schema_file("indent.zap");
    let base = get(&schema, "BaseTx");
    assert_eq!(
        slots(base),
        [
            ("NetworkID", 0, 4),
            ("BlockchainID", 4, 32),
            ("Memo", 36, 8)
        ]
    );
    assert_eq!(base.fields[2].doc, ["The memo is free-form."]);
    assert_eq!(get(&schema, "Output").size, 40);
    assert_eq!(get(&schema, "Tx").fields.len(), 2);
    assert_eq!(schema.interfaces[0].methods.len(), 2);
}

#[test]
fn crlf_line_endings_are_accepted() {
    let unix = load("# Doc.\nstruct A\n  X u8\nstruct B { Y u16 }\n");
    let windows = load("# Doc.\r\nstruct A\r\n  X u8\r\nstruct B { Y u16 }\r\n");
    assert_eq!(unix, windows);
}

#[test]
fn missing_file_is_an_io_error() {
    let error = load_file(Path::new("/nonexistent/schema.zap")).unwrap_err();
    assert!(matches!(error, LoadError::Io { .. }), "{error:?}");
    assert!(error.to_string().contains("/nonexistent/schema.zap"));
}

#[test]
fn diagnostics_report_count_and_render_deterministically() {
    let errors = load_str("bad.zap", "struct A { X u63  Y nope }\n").unwrap_err();
    assert_eq!(errors.len(), 2);
    let rendered = errors.render();
    assert_eq!(rendered, errors.to_string());
    assert!(rendered.contains("bad.zap:1:14"), "{rendered}");
    assert!(!rendered.contains('\u{1b}'), "no colour codes");
    assert!(rendered.ends_with("bad.zap: 2 errors\n"));
}

#[test]
fn spec_examples_load_verbatim() {
    let brace = load(
        "package eth                      # one package per file; '#' starts a comment to end of line

type address = bytes_fixed[20]   # alias
type hash32  = bytes_fixed[32]

# Doc comments: the '#' lines directly above a declaration or field
# become documentation on the generated item.
struct BalanceRequest {
    Id      u64     @0
    Block   u64     @8
    Account address @16
}

struct BalanceResponse {
    Id        u64    @0
    Balance   u64    @8
    Nonce     u64    @16
    BlockHash hash32 @24
}

interface Eth {
    getBalance(req: BalanceRequest) returns (resp: BalanceResponse)   # ordinal 1
    ping()                                                            # ordinal 2
}
",
    );
    let ping = &brace.interfaces[0].methods[1];
    assert_eq!(
        (ping.ordinal, ping.param.is_none(), ping.result.is_none()),
        (2, true, true)
    );
    assert_eq!(get(&brace, "BalanceRequest").doc.len(), 2);
    // The spec's example is the first part of schemas/eth.zap, whose JSON options and
    // extra methods do not change the layout.
    let eth = schema_file("eth.zap");
    let layout = |s: &zapc::ir::Struct| -> Vec<(String, Type, u32, u32)> {
        s.fields
            .iter()
            .map(|f| (f.name.clone(), f.ty.clone(), f.offset, f.width))
            .collect()
    };
    assert_eq!(brace.structs.len(), 2);
    for (spec, file) in brace.structs.iter().zip(&eth.structs) {
        assert_eq!((&spec.name, layout(spec)), (&file.name, layout(file)));
    }

    let indented = load(
        "package xvm\ntype id32 = bytes_fixed[32]\nstruct BaseTx\n    NetworkID    u32\n    BlockchainID id32\n    Memo         bytes\n",
    );
    assert_eq!(get(&indented, "BaseTx").size, 44);
}

/// Text loaded on its own reads no file (it may be untrusted); with a directory, its
/// imports are read from there and land in `Schema::imports`, qualified.
#[test]
fn text_alone_reads_no_imports() {
    let text = "package p\nimport \"common.zap\"\n\nstruct A {\n    L common.Location @0\n}\n";
    let errors = load_str("text.zap", text).unwrap_err().render();
    assert!(
        errors.contains("cannot import \"common.zap\" here: this schema was given as text"),
        "{errors}"
    );
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas");
    let schema = zapc::load_str_in("text.zap", text, &dir).unwrap();
    let imported: Vec<_> = schema
        .imports
        .iter()
        .map(|i| i.package.as_deref())
        .collect();
    assert_eq!(imported, [Some("common")]);
    let location = schema.struct_named("common.Location").unwrap();
    assert_eq!((location.size, schema.structs[0].fields[0].width), (8, 4));
    assert!(schema.struct_named("Location").is_none());
}

#[test]
fn enums_are_inline_at_their_width() {
    let schema = schema_file("enums.zap");
    let color = schema.enum_named("Color").unwrap();
    assert_eq!(color.repr, Scalar::U8);
    let values: Vec<(&str, u32)> = color
        .values
        .iter()
        .map(|v| (v.name.as_str(), v.value))
        .collect();
    assert_eq!(values, [("Red", 0), ("Green", 1), ("Blue", 7)]);
    assert_eq!(color.name_of(7), Some("Blue"));
    assert_eq!(color.value_named("Green"), Some(1));
    assert_eq!(schema.enum_named("Level").unwrap().repr, Scalar::U16);
    assert_eq!(schema.enum_named("Flag").unwrap().repr, Scalar::U32);

    // `Shade` is an alias of `Color`: resolved to the enum.
    let pixel = get(&schema, "Pixel");
    assert_eq!(
        slots(pixel),
        [("X", 0, 2), ("Y", 2, 2), ("Color", 4, 1), ("Shade", 5, 1)]
    );
    let color_type = Type::Enum {
        name: "Color".to_owned(),
        repr: Scalar::U8,
    };
    assert_eq!(pixel.fields[3].ty, color_type);
    assert_eq!(pixel.list_shape, ListShape::Strided { width: 6 });

    let event = get(&schema, "Event");
    let list = |name: &str| match &event.fields.iter().find(|f| f.name == name).unwrap().ty {
        Type::List(list) => (list.elem.clone(), list.shape),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        list("Colors"),
        (color_type, ListShape::Strided { width: 1 })
    );
    assert_eq!(list("Flags").1, ListShape::Strided { width: 4 });
    assert_eq!(list("Pixels").1, ListShape::Strided { width: 6 });
}

#[test]
fn enum_syntax_forms_are_equivalent() {
    let brace = load("enum E : u16 { A = 1  B = 2 }\n");
    let lines = load("enum E : u16 {\n    A = 1\n\n    # doc of B\n    B = 2\n}\n");
    let indented = load("enum E : u16\n    A = 1\n    B = 2\nstruct S { X E }\n");
    let strip = |s: &Schema| {
        let mut e = s.enums[0].clone();
        e.values.iter_mut().for_each(|v| v.doc.clear());
        e
    };
    assert_eq!(strip(&brace), strip(&lines));
    assert_eq!(strip(&brace), strip(&indented));
    assert_eq!(lines.enums[0].values[1].doc, ["doc of B"]);
    assert_eq!(indented.structs[0].size, 2);
}

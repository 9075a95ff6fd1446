//! `zapc compat`: the corpus of old/new pairs under `tests/compat/` (one per rule, the
//! expected class in the directory name), exit statuses, directories, `--against` in a real
//! git repository, and every schema of `schemas/` against itself.
#![cfg(feature = "cli")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use zapc::compat::{self, Class};

const ZAPC: &str = env!("CARGO_BIN_EXE_zapc");
const WORKSPACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

fn zapc_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(ZAPC)
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the zapc binary runs")
}

fn zapc(args: &[&str]) -> Output {
    zapc_in(Path::new(WORKSPACE), args)
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The numbers of the summary line: (wire-breaking, JSON-breaking, safe).
fn summary(out: &str) -> (usize, usize, usize) {
    let line = out
        .lines()
        .find(|l| l.starts_with("compat: "))
        .unwrap_or_else(|| panic!("no summary line in {out}"));
    let numbers: Vec<usize> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    (numbers[0], numbers[1], numbers[2])
}

/// A fresh, empty directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("zapc-compat-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn every_pair_of_the_corpus_has_its_expected_class_and_report() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compat");
    let mut names: Vec<String> = std::fs::read_dir(&corpus)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 30, "only {} pairs", names.len());
    for name in names {
        let old = format!("zapc/tests/compat/{name}/old.zap");
        let new = format!("zapc/tests/compat/{name}/new.zap");
        let output = zapc(&["compat", &old, &new]);
        let out = stdout(&output);
        assert!(stderr(&output).is_empty(), "{name}: {}", stderr(&output));
        let (wire, json, _) = summary(&out);
        let expected_status = if name.starts_with("wire_") {
            assert!(wire > 0, "{name}: {out}");
            1
        } else if name.starts_with("json_") {
            assert!(wire == 0 && json > 0, "{name}: {out}");
            1
        } else {
            assert!(name.starts_with("safe_"), "{name}: class prefix");
            assert!(wire == 0 && json == 0, "{name}: {out}");
            0
        };
        assert_eq!(output.status.code(), Some(expected_status), "{name}: {out}");
        insta::assert_snapshot!(format!("corpus__{name}"), out);
    }
}

#[test]
fn every_schema_is_compatible_with_itself() {
    let dir = Path::new(WORKSPACE).join("schemas");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("zap") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let version = compat::Version::load_in("schema.zap", &text, &dir).unwrap();
        let changes = compat::compare(&version.schema, &version.schema);
        assert!(changes.is_empty(), "{}: {changes:?}", path.display());
        let shown = format!("schemas/{}", path.file_name().unwrap().to_string_lossy());
        let output = zapc(&["compat", &shown, &shown]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{shown}: {}",
            stderr(&output)
        );
        assert_eq!(
            stdout(&output),
            "compat: 0 wire-breaking, 0 JSON-breaking, 0 safe\n"
        );
        count += 1;
    }
    assert!(count >= 10, "only {count} schemas");
    let output = zapc(&["compat", "schemas", "schemas/"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(summary(&stdout(&output)), (0, 0, 0));
}

#[test]
fn the_library_locates_removals_in_the_old_file_and_the_rest_in_the_new_one() {
    let old =
        compat::Version::load("old.zap", "struct A {\n    X u64 @0\n    Y u32 @8\n}\n").unwrap();
    let new = compat::Version::load("new.zap", "struct A {\n    X u32 @0\n}\n").unwrap();
    let changes = compat::compare(&old.schema, &new.schema);
    let classes: Vec<(Class, compat::Side)> = changes.iter().map(|c| (c.class, c.side)).collect();
    assert_eq!(
        classes,
        [
            (Class::WireBreaking, compat::Side::New),
            (Class::WireBreaking, compat::Side::Old)
        ]
    );
    assert_eq!(new.span_of(&changes[0].item), 15..16);
    assert_eq!(old.span_of(&changes[1].item), 28..29);
}

#[test]
fn allow_accepts_one_class_and_keeps_reporting_it() {
    let json_pair = [
        "zapc/tests/compat/json_field_renamed/old.zap",
        "zapc/tests/compat/json_field_renamed/new.zap",
    ];
    let wire_pair = [
        "zapc/tests/compat/wire_field_moved/old.zap",
        "zapc/tests/compat/wire_field_moved/new.zap",
    ];
    let run = |pair: &[&str; 2], allow: &[&str]| {
        let mut args = vec!["compat"];
        args.extend(allow);
        args.extend(pair);
        zapc(&args)
    };
    let output = run(&json_pair, &["--allow", "json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("warning[json-breaking]"));
    assert_eq!(run(&wire_pair, &["--allow", "json"]).status.code(), Some(1));
    let output = run(&wire_pair, &["--allow", "wire"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(stdout(&output).contains("warning[wire-breaking]"));
    assert_eq!(run(&json_pair, &["--allow", "wire"]).status.code(), Some(1));
    let both = run(&json_pair, &["--allow", "wire", "--allow", "json"]);
    assert_eq!(both.status.code(), Some(0));
}

#[test]
fn directories_are_matched_by_file_name() {
    let dir = scratch("dirs");
    write(&dir.join("old/a.zap"), "struct A {\n    X u64 @0\n}\n");
    write(&dir.join("old/gone.zap"), "struct G {\n    X u64 @0\n}\n");
    write(&dir.join("new/a.zap"), "struct A {\n    X u64 @0\n}\n");
    write(&dir.join("new/added.zap"), "struct N {\n    X u64 @0\n}\n");
    write(&dir.join("new/notes.txt"), "not a schema");
    let output = zapc_in(&dir, &["compat", "old", "new"]);
    let out = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{out}{}", stderr(&output));
    assert!(out.contains("struct `G` removed"), "{out}");
    assert!(out.contains("--> old/gone.zap:1:8"), "{out}");
    assert!(out.contains("struct `N` added"), "{out}");
    assert!(out.contains("--> new/added.zap:1:8"), "{out}");
    assert_eq!(summary(&out), (0, 0, 2));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn usage_errors_exit_with_2_and_say_why() {
    let corpus = "zapc/tests/compat/safe_identical/old.zap";
    let cases: [(&[&str], &str); 6] = [
        (&["compat", corpus], "give OLD and NEW"),
        (
            &["compat", corpus, "no/such.zap"],
            "no/such.zap does not exist",
        ),
        (
            &["compat", corpus, "schemas"],
            "both be files or both be directories",
        ),
        (
            &["compat", "zapc/tests/invalid/overlap.zap", corpus],
            "overlaps field `Length`",
        ),
        (
            &["compat", "--against", "no-such-revision-xyz", "schemas"],
            "unknown git revision `no-such-revision-xyz`",
        ),
        (
            &["compat", "--allow", "everything", corpus, corpus],
            "invalid value",
        ),
    ];
    for (args, message) in cases {
        let output = zapc(args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains(message),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(!stderr(&output).contains("panicked"));
    }
    let absolute = format!("{WORKSPACE}/schemas");
    let output = zapc(&["compat", "--against", "HEAD", &absolute]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("give paths relative to the current directory"));
}

#[test]
fn help_has_an_example() {
    let output = zapc(&["compat", "--help"]);
    assert_eq!(output.status.code(), Some(0));
    let help = stdout(&output);
    assert!(help.contains("Examples:"), "{help}");
    assert!(
        help.contains("zapc compat --against origin/main schemas/"),
        "{help}"
    );
}

fn git(repo: &Path, args: &[&str]) {
    let output = Command::new("git")
        .args(args)
        .current_dir(repo)
        .output()
        .expect("git runs");
    assert!(output.status.success(), "git {args:?}: {}", stderr(&output));
}

#[test]
fn against_reads_the_old_versions_from_git() {
    let repo = scratch("git");
    git(&repo, &["init", "-q"]);
    git(&repo, &["config", "user.name", "zapc test"]);
    git(
        &repo,
        &["config", "user.email", "zapc-test@example.invalid"],
    );
    git(&repo, &["config", "commit.gpgsign", "false"]);
    let item = "struct Item {\n    Id    u64 @0\n    Count u32 @8\n}\n";
    write(&repo.join("schemas/item.zap"), item);
    write(
        &repo.join("schemas/gone.zap"),
        "struct G {\n    X u64 @0\n}\n",
    );
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "first schema"]);

    // Unchanged: nothing to report.
    let output = zapc_in(&repo, &["compat", "--against", "HEAD", "schemas"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(summary(&stdout(&output)), (0, 0, 0));

    write(
        &repo.join("schemas/item.zap"),
        "struct Item {\n    Id    u64 @0\n    Count u32 @12\n}\n",
    );
    std::fs::remove_file(repo.join("schemas/gone.zap")).unwrap();
    write(
        &repo.join("schemas/new.zap"),
        "struct N {\n    X u64 @0\n}\n",
    );
    let output = zapc_in(&repo, &["compat", "--against", "HEAD", "schemas/"]);
    let out = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{out}{}", stderr(&output));
    assert!(out.contains("field `Count` moved from @8 to @12"), "{out}");
    assert!(out.contains("--> schemas/item.zap:3:5"), "{out}");
    assert!(out.contains("--> HEAD:schemas/gone.zap:1:8"), "{out}");
    assert!(out.contains("--> schemas/new.zap:1:8"), "{out}");
    assert_eq!(summary(&out), (1, 0, 2));

    // One file, from a subdirectory, and the default path (the current directory).
    let output = zapc_in(
        &repo.join("schemas"),
        &["compat", "--against", "HEAD", "item.zap"],
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(stdout(&output).contains("--> item.zap:3:5"));
    let output = zapc_in(&repo.join("schemas"), &["compat", "--against", "HEAD"]);
    assert_eq!(summary(&stdout(&output)), (1, 0, 2), "{}", stderr(&output));

    // A directory removed from the working tree: everything in it is removed.
    std::fs::remove_dir_all(repo.join("schemas")).unwrap();
    let output = zapc_in(&repo, &["compat", "--against", "HEAD", "schemas"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let out = stdout(&output);
    assert!(out.contains("struct `Item` removed"), "{out}");
    assert_eq!(summary(&out), (0, 0, 2));
    git(&repo, &["checkout", "-q", "--", "schemas"]);

    // A schema that does not parse at the revision is a usage error.
    write(&repo.join("schemas/item.zap"), "struct Item {\n");
    git(&repo, &["commit", "-q", "-a", "-m", "broken"]);
    let output = zapc_in(&repo, &["compat", "--against", "HEAD", "schemas/item.zap"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("HEAD:schemas/item.zap"),
        "{}",
        stderr(&output)
    );
    std::fs::remove_dir_all(&repo).unwrap();
}

/// Run `zapc encode` or `zapc decode` with `input` on stdin.
fn codec(command: &str, schema: &str, ty: &str, input: &str) -> String {
    use std::io::Write;
    let mut child = Command::new(ZAPC)
        .args([command, "--schema", schema, "--type", ty, "--hex"])
        .current_dir(WORKSPACE)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the zapc binary runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "zapc {command} --schema {schema} --type {ty} < {input}: {}",
        stderr(&output)
    );
    stdout(&output)
}

/// Build a message of `ty` from `json` with one schema and read it with another.
fn through(json: &str, writer: &str, reader: &str, ty: &str) -> serde_json::Value {
    let hex = codec("encode", writer, ty, json);
    serde_json::from_str(&codec("decode", reader, ty, &hex)).unwrap()
}

/// A JSON object giving every inline, text and bytes field of `s` a distinct non-zero value
/// (pointers and lists are left absent).
fn sample(s: &zapc::ir::Struct) -> String {
    use serde_json::{json, Value};
    use zapc::ir::{Scalar, Type};
    let mut object = serde_json::Map::new();
    for (i, f) in s.fields.iter().enumerate() {
        let i = i as i64 + 1;
        let value = match &f.ty {
            Type::Scalar(Scalar::Bool) => json!(true),
            // A number any representation holds; its name, if declared, when read.
            Type::Enum { .. } => json!(1),
            Type::Scalar(scalar) if f.json.quantity => {
                json!(format!("{:#x}", 1000 * i + i64::from(scalar.width())))
            }
            Type::Scalar(Scalar::F32 | Scalar::F64) => json!(i as f64 + 0.5),
            Type::Scalar(Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64) => json!(-i),
            Type::Scalar(Scalar::U8) => json!(100 + i),
            Type::Scalar(Scalar::U16) => json!(1000 + i),
            Type::Scalar(_) => json!(70000 + i),
            Type::Text => json!(format!("text of field {i}")),
            Type::Bytes => json!("0x0102ab"),
            Type::BytesFixed(n) => json!(format!("0x{}", "ab".repeat(*n as usize))),
            Type::Struct(_) | Type::List(_) => continue,
        };
        object.insert(f.json_key(), value);
    }
    Value::Object(object).to_string()
}

/// The field of `other` that `f` corresponds to: same name, or same offset (a rename).
fn counterpart<'a>(
    f: &zapc::ir::Field,
    other: &'a zapc::ir::Struct,
) -> Option<&'a zapc::ir::Field> {
    other
        .fields
        .iter()
        .find(|o| o.name == f.name)
        .or_else(|| other.fields.iter().find(|o| o.offset == f.offset))
}

/// Messages built from `writer`'s version of a struct, read through `reader`'s version:
/// every field both versions have reads back as the writer wrote it, every field only the
/// reader has reads as zero. Returns the first field that does not.
fn mismatch(
    (writer_path, writer): (&str, &zapc::ir::Struct),
    (reader_path, reader): (&str, &zapc::ir::Struct),
) -> Option<String> {
    let json = sample(writer);
    let written = through(&json, writer_path, writer_path, &writer.name);
    let read = through(&json, writer_path, reader_path, &reader.name);
    let zero = through("{}", reader_path, reader_path, &reader.name);
    reader.fields.iter().find_map(|f| {
        let expected = match counterpart(f, writer) {
            Some(w) => &written[w.json_key()],
            // `zapc decode` shows a `bytes_fixed` past the end of the message as "0x"
            // (`bytes_fixed_slice`), where generated readers give N zero bytes: both absent.
            None if read[f.json_key()] == "0x" => &read[f.json_key()],
            None => &zero[f.json_key()],
        };
        (read[f.json_key()] != *expected).then(|| {
            format!(
                "{}.{}: read {} instead of {expected} (message {json})",
                reader.name,
                f.name,
                read[f.json_key()]
            )
        })
    })
}

#[test]
fn safe_changes_read_back_both_ways_through_the_real_codec() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compat");
    let mut checked = 0;
    for entry in std::fs::read_dir(&corpus).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !name.starts_with("safe_") {
            continue;
        }
        let old_path = format!("zapc/tests/compat/{name}/old.zap");
        let new_path = format!("zapc/tests/compat/{name}/new.zap");
        let load = |p: &str| zapc::load_file(&Path::new(WORKSPACE).join(p)).unwrap();
        let (old, new) = (load(&old_path), load(&new_path));
        for old_s in &old.structs {
            let Some(new_s) = new.struct_named(&old_s.name) else {
                continue;
            };
            let old_side = (old_path.as_str(), old_s);
            let new_side = (new_path.as_str(), new_s);
            assert_eq!(mismatch(old_side, new_side), None, "{name}: old -> new");
            assert_eq!(mismatch(new_side, old_side), None, "{name}: new -> old");
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} structs checked");
}

#[test]
fn appending_where_something_follows_really_misreads() {
    let pair = |name: &str| {
        (
            format!("zapc/tests/compat/{name}/old.zap"),
            format!("zapc/tests/compat/{name}/new.zap"),
        )
    };
    // Out-of-line data after the fixed section: the new field reads the text's bytes.
    let (old, new) = pair("wire_field_appended_after_out_of_line_data");
    let read = through(
        r#"{"id":7,"count":9,"name":"hello world!"}"#,
        &old,
        &new,
        "Item",
    );
    assert_ne!(read["extra"], serde_json::json!(0), "{read}");
    // A strided element that grew: the second point is read from the wrong place.
    let (old, new) = pair("wire_strided_list_element_grown");
    let read = through(
        r#"{"points":[{"x":1,"y":2},{"x":3,"y":4}]}"#,
        &old,
        &new,
        "Polygon",
    );
    assert_ne!(read["points"][1]["x"], serde_json::json!(3), "{read}");
}

/// A generated flat struct: (type, unused bytes before the field) per field.
type Layout = Vec<(&'static str, u32)>;

const INLINE_TYPES: [&str; 11] = [
    "bool",
    "u8",
    "u16",
    "u32",
    "u64",
    "i16",
    "i32",
    "i64",
    "f64",
    "bytes_fixed[3]",
    // The enum every generated schema declares (`enum Level : u16`).
    "Level",
];

fn width(ty: &str) -> u32 {
    match ty {
        "bool" | "u8" => 1,
        "u16" | "i16" | "Level" => 2,
        "u32" | "i32" => 4,
        "bytes_fixed[3]" => 3,
        _ => 8,
    }
}

/// How a generated version differs from the plain layout.
#[derive(Default)]
struct Edit {
    /// Extra field lines.
    extra: Vec<String>,
    /// This field renamed to `R<i>`, its JSON key kept.
    renamed: Option<usize>,
    /// This field declared at this offset instead.
    moved: Option<(usize, u32)>,
    /// A second method.
    second_method: bool,
    /// A value added to enum `Level`.
    enum_value_added: bool,
}

/// The schema text of a generated message: enum `Level`, struct `Msg` (fields `F0`.. at
/// explicit offsets), used only as a method parameter, and its `Svc` interface.
fn schema_text(layout: &Layout, edit: &Edit) -> String {
    let mut text = String::from("enum Level : u16 {\n    Low = 0\n    High = 1\n");
    if edit.enum_value_added {
        text += "    Urgent = 2\n";
    }
    text += "}\n\nstruct Msg {\n";
    let mut offset = 0;
    for (i, (ty, gap)) in layout.iter().enumerate() {
        offset += gap;
        let at = match edit.moved {
            Some((k, to)) if k == i => to,
            _ => offset,
        };
        if edit.renamed == Some(i) {
            text += &format!("    R{i} {ty} @{at} json(name = \"f{i}\")\n");
        } else {
            text += &format!("    F{i} {ty} @{at}\n");
        }
        offset += width(ty);
    }
    for line in &edit.extra {
        text += &format!("    {line}\n");
    }
    text += "}\n\nstruct Ack {\n    Ok bool @0\n}\n\ninterface Svc {\n";
    text += "    send(req: Msg) returns (resp: Ack)\n";
    if edit.second_method {
        text += "    sendAgain(req: Msg) returns (resp: Ack)\n";
    }
    text + "}\n"
}

fn layout_size(layout: &Layout) -> u32 {
    layout.iter().map(|(ty, gap)| gap + width(ty)).sum()
}

mod generated {
    use super::*;
    use proptest::prelude::*;

    fn layouts() -> impl Strategy<Value = Layout> {
        prop::collection::vec((prop::sample::select(&INLINE_TYPES[..]), 0u32..4), 1..6)
    }

    /// Write both versions, check the classification, and read messages both ways.
    fn check_safe(layout: &Layout, old_text: &str, new_text: &str) {
        let dir = scratch(&format!("prop-{:x}", hash(new_text)));
        let (old_path, new_path) = (dir.join("old.zap"), dir.join("new.zap"));
        write(&old_path, old_text);
        write(&new_path, new_text);
        let load = |p: &Path| zapc::load_file(p).unwrap();
        let (old, new) = (load(&old_path), load(&new_path));
        let changes = compat::compare(&old, &new);
        assert!(!changes.is_empty(), "{layout:?}\n{new_text}");
        assert!(
            changes.iter().all(|c| c.class == Class::Safe),
            "{changes:?}\n{old_text}\n{new_text}"
        );
        let (old_s, new_s) = (&old.structs[0], &new.structs[0]);
        let (op, np) = (old_path.to_str().unwrap(), new_path.to_str().unwrap());
        assert_eq!(mismatch((op, old_s), (np, new_s)), None, "{new_text}");
        assert_eq!(mismatch((np, new_s), (op, old_s)), None, "{new_text}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn hash(text: &str) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        text.hash(&mut h);
        h.finish()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// A random safe change (append, fill a gap, rename with the JSON key kept, add a
        /// method, add an enum value) is classified safe, and messages cross between the
        /// versions intact.
        #[test]
        fn a_random_safe_change_is_safe_and_reads_back(
            layout in layouts(),
            change in 0usize..5,
            pick in any::<prop::sample::Index>(),
            ty in prop::sample::select(&INLINE_TYPES[..]),
            gap in 0u32..4,
        ) {
            let old_text = schema_text(&layout, &Edit::default());
            let size = layout_size(&layout);
            let gaps: Vec<u32> = layout
                .iter()
                .scan(0, |offset, (ty, gap)| {
                    let start = *offset;
                    *offset += gap + width(ty);
                    Some((start, *gap))
                })
                .filter(|(_, gap)| *gap > 0)
                .map(|(start, _)| start)
                .collect();
            let edit = match change {
                1 if !gaps.is_empty() => Edit {
                    extra: vec![format!("Added u8 @{}", gaps[pick.index(gaps.len())])],
                    ..Edit::default()
                },
                2 => Edit {
                    renamed: Some(pick.index(layout.len())),
                    ..Edit::default()
                },
                3 => Edit {
                    second_method: true,
                    ..Edit::default()
                },
                4 => Edit {
                    enum_value_added: true,
                    ..Edit::default()
                },
                _ => Edit {
                    extra: vec![format!("Added {ty} @{}", size + gap)],
                    ..Edit::default()
                },
            };
            let new_text = schema_text(&layout, &edit);
            check_safe(&layout, &old_text, &new_text);
        }

        /// Moving a field past the end or retyping it at the same width is wire-breaking.
        #[test]
        fn a_random_breaking_change_is_wire_breaking(
            layout in layouts(),
            pick in any::<prop::sample::Index>(),
            retype in any::<bool>(),
        ) {
            let k = pick.index(layout.len());
            let mut changed = layout.clone();
            let mut edit = Edit::default();
            if retype {
                // Same width, another type; `bytes_fixed[3]` becomes a `u16` and a gap.
                changed[k].0 = match layout[k].0 {
                    "u16" => "i16",
                    "i16" => "u16",
                    "u32" => "i32",
                    "i32" => "u32",
                    "u64" => "f64",
                    "f64" => "i64",
                    "i64" => "u64",
                    "bool" => "u8",
                    "u8" => "bool",
                    // An enum and an integer of the same width are the same bytes (only
                    // JSON-breaking): a signed one of the same width is another type.
                    "Level" => "i16",
                    _ => "u16",
                };
                let shrunk = width(layout[k].0) - width(changed[k].0);
                if let Some(next) = changed.get_mut(k + 1) {
                    next.1 += shrunk;
                }
            } else {
                edit.moved = Some((k, layout_size(&layout) + 1));
            }
            let new_text = schema_text(&changed, &edit);
            let old = zapc::load_str("old.zap", &schema_text(&layout, &Edit::default())).unwrap();
            let new = zapc::load_str("new.zap", &new_text).unwrap_or_else(|e| panic!("{e}\n{new_text}"));
            let changes = compat::compare(&old, &new);
            prop_assert!(
                changes.iter().any(|c| c.class == Class::WireBreaking),
                "{changes:?}\n{new_text}"
            );
        }
    }
}

//! One schema for every ZAP compiler: `zapc export` writes each schema in the dialect
//! the Go and TypeScript `zapgen` read, and the code they generate from it reads and
//! writes the bytes zapc's does.
//!
//! - Every file in `schemas/` exports, and the exported file, loaded back by zapc, has
//!   the same layout (offsets, widths, sizes, list shapes, method ordinals).
//! - TypeScript (`@zap-proto/zap` 1.6.0, installed from npm into `target/` on first use):
//!   its zapgen compiles every export, `tsc --strict` accepts the generated code, and the
//!   code generated from `eth.zap` and `kitchen.zap` reads every field of messages
//!   `zapc encode` wrote and builds them again (`tests/portable/harness.ts`).
//! - Go (the canonical compiler and runtime, `../shared/peers/zap-go/build.sh
//!   target/zapgo`; ignored by default): the same with `go build` and `go vet`, and
//!   `tests/portable/harness.go`.

#[path = "../../zap-runtime/tests/support/npm.rs"]
mod npm;

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use zapc::ir::{self, ListShape, Type};

const ZAPC: &str = env!("CARGO_BIN_EXE_zapc");
const WORKSPACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
const GO_NEEDS: &str = "needs the Go peer: ../shared/peers/zap-go/build.sh target/zapgo";

fn zapc(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(ZAPC)
        .args(args)
        .current_dir(WORKSPACE)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run zapc");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn ok(output: Output, what: &str) -> String {
    assert!(
        output.status.success(),
        "{what} failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn schemas() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(Path::new(WORKSPACE).join("schemas"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "zap"))
        .collect();
    files.sort();
    assert!(files.len() >= 17, "{files:?}");
    files
}

/// `zapc export -o DIR schemas/`: the folder of exported files.
fn export_all() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    ok(
        zapc(
            &["export", "-o", dir.path().to_str().unwrap(), "schemas/"],
            b"",
        ),
        "zapc export schemas/",
    );
    dir
}

/// A type as the common dialect has it: enums are their integer, a pointer list is a
/// list of the struct, struct names lose their package.
fn portable(ty: &Type) -> String {
    match ty {
        Type::Enum { repr, .. } => repr.keyword().to_owned(),
        Type::Struct(name) => name.rsplit('.').next().unwrap().to_owned(),
        Type::List(list) => format!("list<{}>", portable(&list.elem)),
        other => other.schema_syntax(),
    }
}

/// Every slot of a struct by offset: (width, portable type).
fn slots(s: &ir::Struct) -> BTreeMap<u32, (u32, String)> {
    s.fields
        .iter()
        .chain(&s.reserved)
        .map(|f| (f.offset, (f.width, portable(&f.ty))))
        .collect()
}

#[test]
fn every_schema_exports_with_the_same_layout() {
    let out = export_all();
    for original in schemas() {
        let before = zapc::load_file(&original).unwrap();
        let exported = out.path().join(original.file_name().unwrap());
        let after = zapc::load_file(&exported)
            .unwrap_or_else(|e| panic!("{} does not load back: {e}", exported.display()));
        assert!(after.imports.is_empty() && after.enums.is_empty() && after.consts.is_empty());
        let name = original.display();
        for s in before.all_structs() {
            if !before.structs.contains(s) && !reached(&before, &s.name) {
                continue;
            }
            let short = s.name.rsplit('.').next().unwrap();
            let copy = after
                .structs
                .iter()
                .find(|c| c.name == short || c.name == format!("{short}Struct"))
                .unwrap_or_else(|| panic!("{name}: {} is not exported", s.name));
            assert_eq!(copy.size, s.size, "{name}: size of {}", s.name);
            assert_eq!(slots(copy), slots(s), "{name}: slots of {}", s.name);
            if !matches!(s.list_shape, ListShape::Pointer) {
                assert_eq!(copy.list_shape, s.list_shape, "{name}: {}", s.name);
            }
        }
        for interface in &before.interfaces {
            let copy = after
                .interfaces
                .iter()
                .find(|i| i.name == interface.name)
                .unwrap();
            for method in &interface.methods {
                let same = copy.methods.iter().find(|m| m.name == method.name);
                match method.streaming() {
                    // What the dialect cannot say is a comment, and the calls after it
                    // keep their numbers through placeholders.
                    ir::Streaming::Unary => {
                        let same =
                            same.unwrap_or_else(|| panic!("{name}: {} not exported", method.name));
                        assert_eq!(same.ordinal, method.ordinal, "{name}: {}", method.name);
                    }
                    _ => assert!(same.is_none(), "{name}: stream {}", method.name),
                }
            }
            // zapgen numbers methods 1, 2, 3 as written: so does zapc without `@N`.
            for (position, method) in copy.methods.iter().enumerate() {
                assert_eq!(method.ordinal as usize, position + 1, "{name}");
            }
        }
    }
}

/// Whether an imported struct is reached from the file's own structs and methods.
fn reached(schema: &ir::Schema, qualified: &str) -> bool {
    let mut todo: Vec<String> = schema.structs.iter().map(|s| s.name.clone()).collect();
    for i in &schema.interfaces {
        for m in &i.methods {
            todo.extend(
                [&m.param, &m.stream_param, &m.result]
                    .into_iter()
                    .flatten()
                    .map(|p| p.ty.clone()),
            );
        }
    }
    let mut seen = Vec::new();
    while let Some(name) = todo.pop() {
        if seen.contains(&name) {
            continue;
        }
        let Some(s) = schema.struct_named(&name) else {
            continue;
        };
        for f in s.fields.iter().chain(&s.reserved) {
            match &f.ty {
                Type::Struct(n) => todo.push(n.clone()),
                Type::List(list) => {
                    if let Type::Struct(n) = &list.elem {
                        todo.push(n.clone());
                    }
                }
                _ => {}
            }
        }
        seen.push(name);
    }
    seen.iter().any(|n| n == qualified)
}

#[test]
fn exported_files_read_as_documented() {
    for schema in ["eth", "evolution", "imports", "kitchen"] {
        let text = ok(
            zapc(&["export", &format!("schemas/{schema}.zap")], b""),
            "zapc export",
        );
        insta::assert_snapshot!(format!("export_{schema}"), text);
    }
}

#[test]
fn check_portable_warns_with_the_fix() {
    for schema in ["evolution", "kitchen", "streams"] {
        let output = zapc(
            &["check", "--portable", &format!("schemas/{schema}.zap")],
            b"",
        );
        assert_eq!(output.status.code(), Some(0), "{schema}");
        let warnings = String::from_utf8(output.stderr).unwrap();
        insta::assert_snapshot!(format!("check_portable_{schema}"), warnings);
    }
    // A team that wants one schema for every language makes them fail.
    let output = zapc(
        &["check", "--portable", "--deny-warnings", "schemas/eth.zap"],
        b"",
    );
    assert_eq!(output.status.code(), Some(1));
    // A schema in the common dialect has nothing to say.
    let output = zapc(
        &[
            "check",
            "--portable",
            "--deny-warnings",
            "schemas/golden.zap",
        ],
        b"",
    );
    assert_eq!(output.status.code(), Some(0));
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn exported_files_warn_only_about_what_other_builders_write_differently() {
    let out = export_all();
    for file in std::fs::read_dir(out.path()).unwrap() {
        let file = file.unwrap().path();
        let Some(warnings) = zapc::portable::portable_warnings(&file).unwrap() else {
            continue;
        };
        for warning in warnings.iter() {
            assert!(
                warning.message.starts_with("a strided list")
                    || warning.message.starts_with("a nested"),
                "{}: {warnings}",
                file.display()
            );
        }
    }
}

#[test]
fn export_says_what_it_wrote_differently() {
    let output = zapc(&["export", "schemas/evolution.zap"], b"");
    let report = String::from_utf8(output.stderr).unwrap();
    assert!(output.status.success(), "{report}");
    assert!(
        report
            .starts_with("exported schemas/evolution.zap to standard output (package evolution)\n"),
        "{report}"
    );
    for line in [
        "  const MAX_ACCOUNTS written as a comment\n",
        "  Ledger: placeholder method for ordinal 3 (reserved)\n",
        "  Admin: placeholder method for ordinal 1 (reserved)\n",
    ] {
        assert!(report.contains(line), "{report}");
    }
    // More than one schema needs a folder.
    let output = zapc(&["export", "schemas/eth.zap", "schemas/kitchen.zap"], b"");
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "error: 2 schemas make 2 files: give -o DIR to write them\n"
    );
}

#[test]
fn export_check_says_whether_a_committed_export_is_current() {
    let out = export_all();
    let dir = out.path().to_str().unwrap();
    let check = || zapc(&["export", "--check", "-o", dir, "schemas/"], b"");
    assert_eq!(check().status.code(), Some(0));
    // A hand edit, and a file that is missing: both named, nothing written.
    let eth = out.path().join("eth.zap");
    std::fs::write(&eth, "package eth\n").unwrap();
    std::fs::remove_file(out.path().join("kitchen.zap")).unwrap();
    let output = check();
    assert_eq!(output.status.code(), Some(1));
    let message = String::from_utf8(output.stderr).unwrap();
    assert!(
        message.starts_with("error: not what `zapc export` writes")
            && message.contains("eth.zap")
            && message.contains("kitchen.zap"),
        "{message}"
    );
    assert_eq!(std::fs::read_to_string(&eth).unwrap(), "package eth\n");
    assert!(!out.path().join("kitchen.zap").exists());
}

#[test]
fn two_structs_of_one_name_from_two_packages_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("other.zap"),
        "package other\nstruct Point { X u32 @0 }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("main.zap"),
        "package main\nimport \"other.zap\"\nstruct Point { Y u64 @0 }\nstruct Pair { A Point @0  B other.Point @4 }\n",
    )
    .unwrap();
    let main = dir.path().join("main.zap");
    let output = zapc(&["export", main.to_str().unwrap()], b"");
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let message = String::from_utf8(output.stderr).unwrap();
    assert!(
        message.contains(
            "main.zap: struct `other.Point` would be exported as `Point`, the name of `Point`"
        ) && message.contains("rename one of them"),
        "{message}"
    );
}

/// One message of each struct of `eth.zap` and `kitchen.zap`: the JSON `zapc encode`
/// takes, and the lines the harnesses print for it.
struct Case {
    schema: &'static str,
    name: &'static str,
    json: &'static str,
    lines: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        schema: "eth",
        name: "BalanceRequest",
        json: r#"{"id":7,"block":"0x10d4f","account":"0xdeadbeef00112233445566778899aabbccddeeff"}"#,
        lines: &[
            "Id=7",
            "Block=68943",
            "Account=0xdeadbeef00112233445566778899aabbccddeeff",
        ],
    },
    Case {
        schema: "eth",
        name: "BalanceResponse",
        json: r#"{"id":18446744073709551615,"balance":"0xde0b6b3a7640000","nonce":"0x2a","blockHash":"0x0102030405060708091011121314151617181920212223242526272829303132"}"#,
        lines: &[
            "Id=18446744073709551615",
            "Balance=1000000000000000000",
            "Nonce=42",
            "BlockHash=0x0102030405060708091011121314151617181920212223242526272829303132",
        ],
    },
    Case {
        schema: "eth",
        name: "ChainIdResponse",
        json: r#"{"chainId":"0x1"}"#,
        lines: &["ChainId=1"],
    },
    Case {
        schema: "eth",
        name: "BlockNumberResponse",
        json: r#"{"number":"0x1234567"}"#,
        lines: &["Number=19088743"],
    },
    Case {
        schema: "eth",
        name: "VersionResponse",
        json: r#"{"version":"zapc/0.1 é"}"#,
        lines: &["Version=0x7a6170632f302e3120c3a9"],
    },
    Case {
        schema: "eth",
        name: "BlockHeader",
        json: r#"{"number":"0x10","timestamp":"0x6553f100","hash":"0x1111111111111111111111111111111111111111111111111111111111111111","parentHash":"0x2222222222222222222222222222222222222222222222222222222222222222"}"#,
        lines: &[
            "Number=16",
            "Timestamp=1700000000",
            "Hash=0x1111111111111111111111111111111111111111111111111111111111111111",
            "ParentHash=0x2222222222222222222222222222222222222222222222222222222222222222",
        ],
    },
    Case {
        schema: "eth",
        name: "HeadsRequest",
        json: r#"{"count":3}"#,
        lines: &["Count=3"],
    },
    Case {
        schema: "kitchen",
        name: "Leaf",
        json: r#"{"tag":10,"note":"alpha"}"#,
        lines: &["Tag=10", "Note=0x616c706861"],
    },
    Case {
        schema: "kitchen",
        name: "Kitchen",
        json: r#"{"flag":true,"a8":200,"a16":65000,"a32":4000000000,"a64":9223372036854775813,
            "s8":-5,"s16":-300,"s32":-70000,"s64":-1099511627776,"f32":1.5,"f64":-2.25,
            "name":"kitchen é","blob":"0x00010203","id":"0x6465666768696a6b6c6d6e6f70717273",
            "items":[{"tag":10,"note":"alpha"},{"tag":11,"note":""}],
            "inner":{"tag":77,"note":"inner"},"nums":[1,2,3]}"#,
        lines: &[
            "Flag=true",
            "A8=200",
            "A16=65000",
            "A32=4000000000",
            "A64=9223372036854775813",
            "S8=-5",
            "S16=-300",
            "S32=-70000",
            "S64=-1099511627776",
            "F32=0x3fc00000",
            "F64=0xc002000000000000",
            "Name=0x6b69746368656e20c3a9",
            "Blob=0x00010203",
            "Id=0x6465666768696a6b6c6d6e6f70717273",
            "Items=[{Tag=10;Note=0x616c706861},{Tag=11;Note=0x}]",
            "Inner={Tag=77;Note=0x696e6e6572}",
            "Nums=[1,2,3]",
        ],
    },
];

/// Fields the generated Go and TypeScript builders cannot write as zapc (and the spec)
/// lays them out, though their readers read them: a strided list (`Nums`, which their
/// builders write framed, each element behind a length) and a nested struct with
/// out-of-line data (`Inner`, which their builders copy in as a flat fixed section, so
/// its text is lost). docs/interop.md says so; `zapc check --portable` warns.
const BUILDERS_DIFFER: [&str; 2] = ["inner", "nums"];

/// Run every case through a harness (`run(struct, hex)` gives its output): it must print
/// every field as written, and build the same bytes again (for `Kitchen`, the same
/// value of every field but those in [`BUILDERS_DIFFER`]).
fn round_trips(what: &str, run: impl Fn(&str, &str) -> String) {
    for case in CASES {
        let schema = format!("schemas/{}.zap", case.schema);
        let message = ok(
            zapc(
                &["encode", "--schema", &schema, "--type", case.name, "--hex"],
                case.json.as_bytes(),
            ),
            "zapc encode",
        );
        let message = message.trim();
        let printed = run(case.name, message);
        let mut lines: Vec<&str> = printed.lines().collect();
        let rebuilt = lines
            .pop()
            .and_then(|l| l.strip_prefix("rebuilt="))
            .unwrap_or_else(|| panic!("{what} {}: no rebuilt line: {printed}", case.name));
        assert_eq!(
            lines, case.lines,
            "{what} read {} field by field",
            case.name
        );
        if case.name != "Kitchen" {
            assert_eq!(
                rebuilt, message,
                "{what} rebuilt {} byte for byte",
                case.name
            );
            continue;
        }
        let decode = |hex: &str| -> serde_json::Value {
            let bytes: Vec<u8> = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect();
            let json = ok(
                zapc(
                    &["decode", "--schema", &schema, "--type", case.name],
                    &bytes,
                ),
                "zapc decode",
            );
            serde_json::from_str(&json).unwrap()
        };
        let (want, got) = (decode(message), decode(rebuilt));
        for (key, value) in want.as_object().unwrap() {
            if !BUILDERS_DIFFER.contains(&key.as_str()) {
                assert_eq!(&got[key], value, "{what} rebuilt Kitchen.{key}");
            }
        }
    }
}

// --- TypeScript ------------------------------------------------------------------------

const TS_PACKAGES: [(&str, &str); 2] = [("@zap-proto/zap", "1.6.0"), ("typescript", "5.9.3")];

fn typescript() -> &'static npm::NodeModules {
    static NODE: OnceLock<npm::NodeModules> = OnceLock::new();
    NODE.get_or_init(|| {
        npm::install(
            "zapgen-ts",
            &TS_PACKAGES,
            "The portable-schema tests (TypeScript zapgen and tsc)",
        )
    })
}

fn node(args: &[&std::ffi::OsStr]) -> String {
    ok(
        Command::new(npm::NODE).args(args).output().unwrap(),
        &format!("node {args:?}"),
    )
}

/// TypeScript zapgen on every export, into `work/gen/<stem>/`.
fn ts_generate(exported: &Path, work: &Path) {
    let zapgen = typescript()
        .package_dir("@zap-proto/zap")
        .join("dist/bin/zapgen.mjs");
    for file in std::fs::read_dir(exported).unwrap() {
        let file = file.unwrap().path();
        let stem = file.file_stem().unwrap().to_owned();
        let out = work.join("gen").join(&stem);
        node(&[
            zapgen.as_os_str(),
            "-out".as_ref(),
            out.as_os_str(),
            file.as_os_str(),
        ]);
    }
}

fn tsc(work: &Path, config: &str) {
    std::fs::write(work.join("tsconfig.json"), config).unwrap();
    let tsc = typescript().package_dir("typescript").join("bin/tsc");
    node(&[tsc.as_os_str(), "-p".as_ref(), work.as_os_str()]);
}

/// A folder inside the npm prefix, so that the generated code's `@zap-proto/zap`
/// resolves to the pinned package.
fn ts_work() -> tempfile::TempDir {
    let work = tempfile::tempdir_in(&typescript().prefix).unwrap();
    std::fs::write(work.path().join("package.json"), r#"{"type":"module"}"#).unwrap();
    work
}

#[test]
fn typescript_zapgen_compiles_every_export_under_strict_tsc() {
    let exported = export_all();
    let work = ts_work();
    ts_generate(exported.path(), work.path());
    tsc(
        work.path(),
        r#"{"compilerOptions": {"strict": true, "module": "nodenext",
            "moduleResolution": "nodenext", "target": "es2022", "noEmit": true,
            "types": []}, "include": ["gen/**/*.ts"]}"#,
    );
}

#[test]
fn typescript_generated_code_reads_and_writes_what_zapc_does() {
    let exported = export_all();
    let work = ts_work();
    ts_generate(exported.path(), work.path());
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/portable/harness.ts"),
        work.path().join("harness.ts"),
    )
    .unwrap();
    tsc(
        work.path(),
        r#"{"compilerOptions": {"strict": true, "module": "nodenext",
            "moduleResolution": "nodenext", "target": "es2022", "outDir": "out",
            "types": []}, "files": ["harness.ts"]}"#,
    );
    let harness = work.path().join("out/harness.js");
    round_trips("TypeScript", |name, hex| {
        node(&[harness.as_os_str(), name.as_ref(), hex.as_ref()])
    });
}

// --- Go --------------------------------------------------------------------------------

fn zapgo() -> PathBuf {
    let dir = std::env::var_os("ZAPGO_DIR")
        .map_or_else(|| Path::new(WORKSPACE).join("target/zapgo"), PathBuf::from);
    assert!(
        dir.join("zapgen").exists() && dir.join("venv/bin/go").exists(),
        "{}/zapgen or venv/bin/go not found; {GO_NEEDS}",
        dir.display()
    );
    dir
}

/// `go ARGS` in `module` with the Go peer's toolchain, offline, from vendored sources.
fn go(module: &Path, args: &[&str]) -> String {
    let zapgo = zapgo();
    ok(
        Command::new(zapgo.join("venv/bin/go"))
            .args(args)
            .current_dir(module)
            .env("GOCACHE", zapgo.join("gocache"))
            .env("GOPATH", zapgo.join("gopath"))
            .env("GOMODCACHE", zapgo.join("gopath/pkg/mod"))
            .env("GOFLAGS", "-mod=vendor")
            .env("GOPROXY", "off")
            .env("GOTOOLCHAIN", "local")
            .env("GOTELEMETRY", "off")
            .output()
            .unwrap(),
        &format!("go {args:?}"),
    )
}

/// A copy of the Go peer's module (which requires the vendored runtime) with the Go
/// zapgen's code of every export in `gen/<stem>/`.
fn go_module(exported: &Path) -> tempfile::TempDir {
    let module = tempfile::tempdir().unwrap();
    let peer = Path::new(WORKSPACE).join("../shared/peers/zap-go");
    let copied = Command::new("cp")
        .arg("-r")
        .arg(peer.join("go.mod"))
        .arg(peer.join("vendor"))
        .arg(module.path())
        .status()
        .unwrap();
    assert!(copied.success(), "copy {}", peer.display());
    let zapgen = zapgo().join("zapgen");
    for file in std::fs::read_dir(exported).unwrap() {
        let file = file.unwrap().path();
        let out = module.path().join("gen").join(file.file_stem().unwrap());
        ok(
            Command::new(&zapgen)
                .arg("-single")
                .arg("-out")
                .arg(&out)
                .arg(&file)
                .output()
                .unwrap(),
            &format!("zapgen {}", file.display()),
        );
    }
    module
}

#[test]
#[ignore = "needs the Go peer: ../shared/peers/zap-go/build.sh target/zapgo"]
fn go_zapgen_compiles_every_export_and_vet_passes() {
    let exported = export_all();
    let module = go_module(exported.path());
    go(module.path(), &["vet", "./gen/..."]);
}

#[test]
#[ignore = "needs the Go peer: ../shared/peers/zap-go/build.sh target/zapgo"]
fn go_generated_code_reads_and_writes_what_zapc_does() {
    let exported = export_all();
    let module = go_module(exported.path());
    let main = module.path().join("cmd/harness");
    std::fs::create_dir_all(&main).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/portable/harness.go"),
        main.join("main.go"),
    )
    .unwrap();
    go(module.path(), &["build", "-o", "harness", "./cmd/harness"]);
    let harness = module.path().join("harness");
    round_trips("Go", |name, hex| {
        ok(
            Command::new(&harness).args([name, hex]).output().unwrap(),
            "the Go harness",
        )
    });
}

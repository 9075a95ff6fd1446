//! That every test file of a crate is built. A crate whose integration tests are one
//! binary says `autotests = false`, so Cargo builds only what its Cargo.toml lists: a
//! file added to `tests/` that `tests/integration.rs` does not declare as a module and
//! no `[[test]]` names would never compile or run, and nothing would say so. This check
//! says so.

use std::path::Path;

/// Panics naming every `tests/*.rs` file of the crate at `manifest_dir` that is neither
/// a `mod` of `tests/integration.rs` nor the `path` of a `[[test]]` of its Cargo.toml,
/// or that is both (it would be built twice).
pub fn assert_every_test_file_is_built(manifest_dir: &str) {
    let dir = Path::new(manifest_dir);
    let read = |path: &Path| {
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let root = read(&dir.join("tests/integration.rs"));
    let manifest = read(&dir.join("Cargo.toml"));
    let mut unbuilt = Vec::new();
    let mut twice = Vec::new();
    let entries = std::fs::read_dir(dir.join("tests")).expect("tests/ is readable");
    for entry in entries {
        let path = entry.expect("a tests/ entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("a UTF-8 name");
        if stem == "integration" {
            continue;
        }
        let module = root
            .lines()
            .any(|line| line.trim() == format!("mod {stem};"));
        let target = manifest
            .lines()
            .any(|line| line.trim() == format!("path = \"tests/{stem}.rs\""));
        match (module, target) {
            (false, false) => unbuilt.push(stem.to_owned()),
            (true, true) => twice.push(stem.to_owned()),
            _ => {}
        }
    }
    assert!(
        unbuilt.is_empty(),
        "{}: tests/{{{}}}.rs would never be built: add `mod NAME;` to tests/integration.rs \
         (or, for a test that needs a process of its own, a [[test]] to Cargo.toml)",
        dir.display(),
        unbuilt.join(",")
    );
    assert!(
        twice.is_empty(),
        "{}: tests/{{{}}}.rs are both a module of tests/integration.rs and a [[test]] of \
         their own",
        dir.display(),
        twice.join(",")
    );
}

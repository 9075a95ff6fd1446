//! The committed Cap'n Proto code (`schemas/bench_capnp.rs`) is what capnpc generates from
//! `schemas/bench.capnp` today. It is committed so that building the benches needs no
//! `capnp` program; this test needs one, so it is ignored by default. With
//! `ZAP_BLESS=1` it rewrites the committed file instead of comparing
//! (`benches/schemas/capnp.sh` does that).

use std::path::Path;

#[test]
#[ignore = "needs capnp (Debian: capnproto): cargo test -p zap-benches --test capnp_generated -- --ignored"]
fn committed_capnp_code_is_current() {
    let schemas = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas");
    let committed_path = schemas.join("bench_capnp.rs");
    let out = tempfile::tempdir().unwrap();
    capnpc::CompilerCommand::new()
        .src_prefix(&schemas)
        .file(schemas.join("bench.capnp"))
        // Included as `crate::generated::bench_capnp` (src/lib.rs).
        .default_parent_module(vec!["generated".into()])
        .output_path(out.path())
        .run()
        .unwrap_or_else(|e| {
            panic!("capnpc on bench.capnp: {e} (is the `capnp` program installed?)")
        });
    let fresh = std::fs::read_to_string(out.path().join("bench_capnp.rs")).unwrap();

    if std::env::var_os("ZAP_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&committed_path, &fresh).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&committed_path).unwrap_or_default();
    assert!(
        committed == fresh,
        "{} is not what capnpc generates from bench.capnp today: run `bash benches/schemas/capnp.sh` and commit the result",
        committed_path.display()
    );
}

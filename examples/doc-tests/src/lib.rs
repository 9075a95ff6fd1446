//! Every Rust code block of README.md and docs/*.md, compiled (and, unless marked `no_run`,
//! run) as a doctest: `cargo test -p doc-tests --doc`.
//!
//! Each document is one module below; the test `every_document_is_included` fails when a
//! markdown file exists in docs/ (or README.md) that is not, so a new document cannot
//! escape compilation.

/// One `#[cfg(doctest)]` module per document, and the list of the included paths.
macro_rules! documents {
    ($($module:ident => $path:literal),* $(,)?) => {
        $(
            #[cfg(doctest)]
            #[doc = include_str!(concat!("../../../", $path))]
            mod $module {}
        )*

        /// The documents included above, relative to the workspace root.
        pub const INCLUDED: &[&str] = &[$($path),*];
    };
}

documents! {
    readme => "README.md",
    architecture => "docs/architecture.md",
    capabilities => "docs/capabilities.md",
    compat => "docs/compat.md",
    deploying => "docs/deploying.md",
    enums => "docs/enums.md",
    evolution => "docs/evolution.md",
    fmt => "docs/fmt.md",
    imports => "docs/imports.md",
    interop => "docs/interop.md",
    limits => "docs/limits.md",
    openrpc => "docs/openrpc.md",
    schema => "docs/schema.md",
    security => "docs/security.md",
    tls => "docs/tls.md",
    transports => "docs/transports.md",
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    #[test]
    fn every_document_is_included() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut on_disk = vec!["README.md".to_string()];
        for entry in std::fs::read_dir(root.join("docs")).expect("docs/ is readable") {
            let name = entry.expect("a docs/ entry").file_name();
            let name = name.to_string_lossy();
            if name.ends_with(".md") {
                on_disk.push(format!("docs/{name}"));
            }
        }
        let missing: Vec<_> = on_disk
            .iter()
            .filter(|path| !super::INCLUDED.contains(&path.as_str()))
            .collect();
        assert!(
            missing.is_empty(),
            "add these documents to `documents!` in examples/doc-tests/src/lib.rs, so \
             their Rust blocks are compiled: {missing:?}"
        );
        for path in super::INCLUDED {
            assert!(
                root.join(path).is_file(),
                "{path} is listed but does not exist"
            );
        }
    }
}

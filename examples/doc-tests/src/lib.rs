//! Every Rust code block of README.md and docs/*.md, compiled (and, unless marked `no_run`,
//! run) as a doctest: `cargo test -p doc-tests --doc`.
//!
//! Each document is one module below; the test `every_document_is_included` fails when a
//! markdown file exists in docs/ (or README.md) that is not, so a new document cannot
//! escape compilation.
//!
//! A block that shows a file of the repository instead (the guide shows the files of
//! `examples/todo`) says so in its fence, `` ```rs file:examples/todo/src/lib.rs ``
//! (`rs`, which renderers highlight as Rust and rustdoc leaves alone): rustdoc does not
//! compile it (the file itself is compiled), and
//! `file_blocks_are_the_files` checks that its text is in that file, verbatim (the
//! whole file or one piece of it), so the document cannot drift from the code.
//! `fences_are_compiled_or_files` refuses a Rust fence that would be neither compiled
//! nor checked, and `ignore` (which `cargo test -- --ignored` would try to run).

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
    guide => "docs/guide.md",
    imports => "docs/imports.md",
    interop => "docs/interop.md",
    limits => "docs/limits.md",
    openrpc => "docs/openrpc.md",
    schema => "docs/schema.md",
    security => "docs/security.md",
    tls => "docs/tls.md",
    transports => "docs/transports.md",
    zaphttp => "docs/zaphttp.md",
}

/// A fenced code block of a markdown document.
#[derive(Debug)]
pub struct Fence {
    /// 1-based line of the opening fence.
    pub line: usize,
    /// The info string after the backticks (`rust,no_run`, `rs file:PATH`).
    pub info: String,
    /// The lines between the fences, each with its newline.
    pub body: String,
}

/// The fenced blocks of `markdown` (backtick fences at the start of a line).
pub fn fences(markdown: &str) -> Vec<Fence> {
    let mut out = Vec::new();
    let mut open: Option<Fence> = None;
    for (index, line) in markdown.lines().enumerate() {
        let trimmed = line.trim_start();
        match open.as_mut() {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    open = Some(Fence {
                        line: index + 1,
                        info: info.trim().to_owned(),
                        body: String::new(),
                    });
                }
            }
            Some(fence) => {
                if trimmed.starts_with("```") {
                    out.extend(open.take());
                } else {
                    fence.body.push_str(line);
                    fence.body.push('\n');
                }
            }
        }
    }
    out
}

/// The `file:PATH` word of a fence's info string.
pub fn file_of(info: &str) -> Option<&str> {
    info.split_whitespace()
        .find_map(|word| word.strip_prefix("file:"))
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    fn documents() -> impl Iterator<Item = (&'static str, String)> {
        super::INCLUDED.iter().map(|path| {
            let text = std::fs::read_to_string(root().join(path)).expect("readable");
            (*path, text)
        })
    }

    #[test]
    fn file_blocks_are_the_files() {
        let mut checked = 0;
        for (path, text) in documents() {
            for fence in super::fences(&text) {
                let Some(file) = super::file_of(&fence.info) else {
                    continue;
                };
                let shown = std::fs::read_to_string(root().join(file))
                    .unwrap_or_else(|e| panic!("{path}:{}: cannot read {file}: {e}", fence.line));
                assert!(
                    !fence.body.trim().is_empty() && shown.contains(&fence.body),
                    "{path}:{}: this block is not the text of {file} (copy the file's \
                     current text into it)",
                    fence.line
                );
                checked += 1;
            }
        }
        assert!(checked > 0, "no file: block found: is the guide included?");
    }

    /// `ignore` anywhere a doctest can be: `cargo test -- --ignored` (which CI runs)
    /// would compile it and fail. The crates' own READMEs and sources count too.
    #[test]
    fn no_doctest_is_ignore() {
        fn walk(dir: &Path, found: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).expect("readable") {
                let path = entry.expect("an entry").path();
                if path.is_dir() {
                    walk(&path, found);
                } else if path.extension().is_some_and(|e| e == "rs" || e == "md") {
                    let text = std::fs::read_to_string(&path).expect("UTF-8");
                    for (n, line) in text.lines().enumerate() {
                        let fence = line.trim_start_matches(['/', '!', ' ']);
                        if fence.starts_with("```")
                            && fence[3..].split([',', ' ']).any(|w| w == "ignore")
                        {
                            found.push(format!("{}:{}", path.display(), n + 1));
                        }
                    }
                }
            }
        }
        let mut found = Vec::new();
        for dir in ["zapc/src", "zap-runtime/src", "zap-derive/src", "docs"] {
            walk(&root().join(dir), &mut found);
        }
        for readme in [
            "README.md",
            "zapc/README.md",
            "zap-runtime/README.md",
            "zap-derive/README.md",
        ] {
            let text = std::fs::read_to_string(root().join(readme)).expect("readable");
            for fence in super::fences(&text) {
                if fence.info.split([',', ' ']).any(|w| w == "ignore") {
                    found.push(format!("{readme}:{}", fence.line));
                }
            }
        }
        assert!(
            found.is_empty(),
            "blocks marked ignore (use text, no_run, or a doctest that compiles): {found:?}"
        );
    }

    #[test]
    fn fences_are_compiled_or_files() {
        // The attributes rustdoc compiles a block with; anything else makes rustdoc skip
        // it silently.
        const DOCTEST: [&str; 5] = [
            "rust",
            "no_run",
            "should_panic",
            "compile_fail",
            "edition2021",
        ];
        for (path, text) in documents() {
            for fence in super::fences(&text) {
                if super::file_of(&fence.info).is_some() {
                    continue;
                }
                let words: Vec<&str> = fence
                    .info
                    .split([',', ' '])
                    .filter(|w| !w.is_empty())
                    .collect();
                let rustish = words.first().is_some_and(|w| *w == "rust" || *w == "rs")
                    || words
                        .iter()
                        .any(|w| DOCTEST[1..].contains(w) || *w == "ignore");
                if !rustish {
                    continue;
                }
                assert!(
                    words.iter().all(|w| DOCTEST.contains(w)),
                    "{path}:{}: a Rust block with `{}` is not compiled: use `rust` or \
                     `rust,no_run` (a doctest) or `rs file:PATH` (a file of the repository)",
                    fence.line,
                    fence.info
                );
            }
        }
    }

    #[test]
    fn every_document_is_included() {
        let root = root();
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

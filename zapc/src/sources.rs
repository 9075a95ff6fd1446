//! A schema's files as a server embeds them for reflection: the schema itself, then
//! every file it imports (directly or not), each with its path relative to the schema's
//! folder, and the SHA-256 that names the set.

use std::path::{Component, Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::frontend::LoadError;

/// One file of a schema: its path (the schema's own file name, an import's path
/// relative to the schema's folder, `/`-separated) and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    pub path: String,
    pub text: String,
}

/// The files of the schema at `path`: the schema first, then the files it imports in
/// the order they are first named (each once). The schema is expected to load (see
/// [`crate::load_file`]); a file that cannot be read is an error, an import that does
/// not parse is kept as it is.
pub fn source_files(path: &Path) -> Result<Vec<SourceFile>, LoadError> {
    let read = |path: &Path| {
        std::fs::read_to_string(path).map_err(|source| LoadError::Io {
            path: path.to_owned(),
            source,
        })
    };
    let dir = path.parent().unwrap_or(Path::new(""));
    let name = path
        .file_name()
        .map_or_else(|| "schema.zap".into(), |n| n.to_string_lossy().into_owned());
    let mut files = vec![SourceFile {
        path: name,
        text: read(path)?,
    }];
    let mut next = 0;
    while next < files.len() {
        let importer = PathBuf::from(&files[next].path);
        let imports: Vec<String> = match crate::parse::parse(&files[next].text) {
            Ok(file) => file.imports().map(|i| i.path.clone()).collect(),
            Err(_) => Vec::new(),
        };
        next += 1;
        for import in imports {
            let relative = normalize(&importer.parent().unwrap_or(Path::new("")).join(import));
            let shown = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            if files.iter().any(|f| f.path == shown) {
                continue;
            }
            let text = read(&dir.join(&relative))?;
            files.push(SourceFile { path: shown, text });
        }
    }
    Ok(files)
}

/// `a/./b/../c` as `a/c`; a `..` that climbs out is kept.
fn normalize(path: &Path) -> PathBuf {
    let mut out: Vec<Component<'_>> = Vec::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out.iter().collect()
}

/// The SHA-256 of a schema's files, as reflection carries it: for each file in order,
/// its path's length (u32, little-endian), the path, its text's length (u32,
/// little-endian), the text.
pub fn schema_hash(files: &[SourceFile]) -> [u8; 32] {
    let mut hash = Sha256::new();
    for file in files {
        for part in [file.path.as_bytes(), file.text.as_bytes()] {
            hash.update((part.len() as u32).to_le_bytes());
            hash.update(part);
        }
    }
    hash.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_schema_and_its_imports_in_order_each_once() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas/imports.zap");
        let files = source_files(&root).unwrap();
        assert_eq!(files[0].path, "imports.zap");
        assert!(files.len() > 1, "{files:?}");
        let mut paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        paths.sort_unstable();
        paths.dedup();
        assert_eq!(paths.len(), files.len());
        for file in &files[1..] {
            let on_disk = root.parent().unwrap().join(&file.path);
            assert_eq!(std::fs::read_to_string(on_disk).unwrap(), file.text);
        }
    }

    #[test]
    fn the_hash_covers_paths_and_texts_and_their_boundaries() {
        let file = |path: &str, text: &str| SourceFile {
            path: path.into(),
            text: text.into(),
        };
        let one = schema_hash(&[file("a.zap", "x")]);
        assert_eq!(one, schema_hash(&[file("a.zap", "x")]));
        assert_ne!(one, schema_hash(&[file("a.zap", "y")]));
        assert_ne!(one, schema_hash(&[file("b.zap", "x")]));
        assert_ne!(
            schema_hash(&[file("a", "bc")]),
            schema_hash(&[file("ab", "c")])
        );
    }

    #[test]
    fn paths_are_normalized() {
        assert_eq!(normalize(Path::new("a/./b/../c.zap")), Path::new("a/c.zap"));
        assert_eq!(normalize(Path::new("../c.zap")), Path::new("../c.zap"));
    }
}

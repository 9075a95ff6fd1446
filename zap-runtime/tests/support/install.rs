//! Shared by the peer installers (`python.rs`, `python_crypto.rs`, `node_js.rs`): where
//! the workspace's build output is, and an install that is complete or absent, never half
//! there.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;

/// Run `install` into a private folder beside `dest` and rename it into place when
/// `installed` says it is complete, so a reader never sees a half-installed package and
/// concurrent installers do not interfere (a process that loses the race uses the
/// winner's copy). `what` names the command in the failure message; `hint` says what
/// the tests need. Panics, never skips, when the install fails.
pub fn install_atomically(
    dest: &Path,
    installed: fn(&Path) -> bool,
    what: &str,
    hint: &str,
    install: impl FnOnce(&Path) -> Output,
) {
    if installed(dest) {
        return;
    }
    let parent = dest.parent().expect("the install folder has a parent");
    std::fs::create_dir_all(parent)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", parent.display()));
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let name = dest
        .file_name()
        .map_or_else(Default::default, |n| n.to_string_lossy());
    let tmp = parent.join(format!(".{name}.tmp-{}-{nanos}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", tmp.display()));
    let out = install(&tmp);
    if !out.status.success() || !installed(&tmp) {
        let _ = std::fs::remove_dir_all(&tmp);
        panic!(
            "`{what}` into {} failed ({}).\n{hint}, or a pre-installed copy in {}.\n\
             stdout:\n{}\nstderr:\n{}",
            tmp.display(),
            out.status,
            dest.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    if let Err(e) = std::fs::rename(&tmp, dest) {
        let _ = std::fs::remove_dir_all(&tmp);
        // Another process may have finished first: its install is as good as ours.
        if !installed(dest) {
            panic!(
                "cannot move the installed package into {}: {e}",
                dest.display()
            );
        }
    }
}

/// Where cargo puts build output for the calling crate's workspace: `$CARGO_TARGET_DIR`
/// (relative to the workspace root when relative), else `<workspace root>/target`.
pub fn target_dir() -> PathBuf {
    let root = workspace_root();
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) if !dir.is_empty() => root.join(dir),
        _ => root.join("target"),
    }
}

/// The nearest ancestor of the calling crate's manifest dir holding a `Cargo.lock`.
pub fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
        .unwrap_or(manifest)
        .to_path_buf()
}

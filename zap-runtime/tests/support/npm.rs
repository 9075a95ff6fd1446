//! Pinned npm packages for tests, installed on first use.
//!
//! [`install`] checks that `node` and `npm` run, installs the packages once into
//! `<target dir>/node/<folder>/node_modules` (with `npm install --prefix`; skipped when
//! that folder already holds them), checks each installed package's name and version,
//! and returns a [`NodeModules`] that runs ES-module scripts from that folder, so bare
//! imports resolve to the pinned packages.
//!
//! The target dir is `$CARGO_TARGET_DIR`, else `target/` in the workspace root (see
//! `install.rs`). Concurrent test processes are safe: each installs into its own
//! temporary folder and renames it into place; a process that loses the race uses the
//! winner's folder.
//!
//! A missing `node`, `npm` or package is a test **failure** (a panic saying what is
//! missing and how to fix it), never a silent skip.
//!
//! Depends on nothing but `std`:
//! `#[path = "../../zap-runtime/tests/support/npm.rs"] mod npm;`

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[path = "install.rs"]
mod install;

use install::install_atomically;
#[allow(unused_imports)] // each test binary uses a different part
pub use install::{target_dir, workspace_root};

/// The runtime looked up on `PATH`.
pub const NODE: &str = "node";
/// The package manager looked up on `PATH`.
pub const NPM: &str = "npm";

/// Written into the install folder last: the install is complete.
const MARKER: &str = ".installed";

/// A folder whose `node_modules` holds pinned packages.
#[derive(Debug, Clone)]
pub struct NodeModules {
    /// The install prefix: holds `node_modules/`.
    pub prefix: PathBuf,
}

/// Install `packages` (name, exact version) into `<target dir>/node/<folder>` unless
/// they are there already. `needed_by` says which tests need them, for failure messages.
pub fn install(folder: &str, packages: &[(&str, &str)], needed_by: &str) -> NodeModules {
    check_tool(NODE, needed_by);
    let prefix = target_dir().join("node").join(folder);
    let specs: Vec<String> = packages
        .iter()
        .map(|(name, version)| format!("{name}@{version}"))
        .collect();
    let modules = NodeModules { prefix };
    let prefix = &modules.prefix;
    if !installed(prefix) && packages.iter().all(|(n, v)| modules.has(n, v)) {
        // Installed before this marker existed: adopt it.
        let _ = std::fs::write(prefix.join(MARKER), specs.join("\n"));
    }
    if !installed(prefix) {
        check_tool(NPM, needed_by);
        install_atomically(
            prefix,
            installed,
            &format!("{NPM} install {}", specs.join(" ")),
            &format!("{needed_by} need npm and access to the npm registry"),
            |tmp| {
                let out = Command::new(NPM)
                    .args([
                        "install",
                        "--no-save",
                        "--no-package-lock",
                        "--no-audit",
                        "--no-fund",
                        "--ignore-scripts",
                        "--prefix",
                    ])
                    .arg(tmp)
                    .args(&specs)
                    .stdin(Stdio::null())
                    .output()
                    .unwrap_or_else(|e| panic!("cannot run `{NPM}`: {e}"));
                if out.status.success() {
                    let _ = std::fs::write(tmp.join(MARKER), specs.join("\n"));
                }
                out
            },
        );
    }
    for (name, version) in packages {
        assert!(
            modules.has(name, version),
            "{} does not hold {name} {version}; delete it so the next run reinstalls",
            prefix.display()
        );
    }
    modules
}

fn installed(prefix: &Path) -> bool {
    prefix.join(MARKER).is_file()
}

impl NodeModules {
    /// Where package `name` is installed.
    pub fn package_dir(&self, name: &str) -> PathBuf {
        self.prefix.join("node_modules").join(name)
    }

    /// `node` running the ES module in `script` with `args`, its working directory the
    /// install prefix (so bare imports resolve there). The script's text is passed with
    /// `--eval`: module resolution for evaluated code starts at the working directory,
    /// not at the script's own folder in the repository.
    pub fn command(&self, script: &Path, args: &[&str]) -> Command {
        let code = std::fs::read_to_string(script)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", script.display()));
        let mut cmd = Command::new(NODE);
        cmd.current_dir(&self.prefix)
            .arg("--input-type=module")
            .arg("--eval")
            .arg(code)
            .arg("--")
            .args(args);
        cmd
    }

    /// True when package `name` is installed at `version`.
    fn has(&self, name: &str, version: &str) -> bool {
        let manifest = self.package_dir(name).join("package.json");
        let Ok(text) = std::fs::read_to_string(manifest) else {
            return false;
        };
        let compact: String = text.split_whitespace().collect();
        compact.contains(&format!("\"version\":\"{version}\""))
            && compact.contains(&format!("\"name\":\"{name}\""))
    }
}

/// Panic unless `tool --version` runs.
fn check_tool(tool: &str, needed_by: &str) {
    let hint = format!(
        "{needed_by} need Node.js and npm on PATH (they install pinned packages from npm); \
         install nodejs and npm"
    );
    match Command::new(tool).arg("--version").output() {
        Ok(out) if out.status.success() => {}
        Ok(out) => panic!(
            "`{tool} --version` failed ({}): {}\n{hint}.",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => panic!("cannot run `{tool}`: {e}\n{hint}."),
    }
}

//! The TypeScript runtime, `@zap-proto/zap` 1.6.0 from npm, for interop tests.
//!
//! [`zap_js()`] checks that `node` and `npm` run, installs the package once into
//! `<target dir>/node/zap-proto-zap-1.6.0/node_modules` (with `npm install --prefix`;
//! skipped when that folder already holds the package), checks that the installed
//! package is version 1.6.0, and returns a [`NodeJs`] that runs ES-module scripts from
//! that folder, so `import { ZapClient } from "@zap-proto/zap/node"` resolves to it
//! through the package's own `exports` map.
//!
//! The target dir is found as in `python.rs` (`$CARGO_TARGET_DIR`, else `target/` in
//! the workspace root). Concurrent test processes are safe: each installs into its own
//! temporary folder and renames it into place; a process that loses the race uses the
//! winner's folder.
//!
//! A missing `node`, `npm` or package is a test **failure** (a panic saying what is
//! missing and how to fix it), never a silent skip.
//!
//! Depends on nothing but `std`:
//! `#[path = "../../zap-runtime/tests/support/node_js.rs"] mod node_js;`

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

#[path = "install.rs"]
mod install;

use install::install_atomically;
#[allow(unused_imports)] // each test binary uses a different part
pub use install::{target_dir, workspace_root};

/// The pinned package.
pub const PACKAGE: &str = "@zap-proto/zap";
/// Its pinned version.
pub const VERSION: &str = "1.6.0";
/// The runtime looked up on `PATH`.
pub const NODE: &str = "node";
/// The package manager looked up on `PATH`.
pub const NPM: &str = "npm";

/// A `node` whose scripts import the pinned package.
#[derive(Debug, Clone)]
pub struct NodeJs {
    /// The install prefix: holds `node_modules/@zap-proto/zap`.
    pub prefix: PathBuf,
}

/// The pinned package, installed on first use (once per process; see the module docs).
pub fn zap_js() -> &'static NodeJs {
    static JS: OnceLock<NodeJs> = OnceLock::new();
    JS.get_or_init(|| {
        check_tool(NODE);
        let prefix = target_dir()
            .join("node")
            .join(format!("zap-proto-zap-{VERSION}"));
        install(&prefix);
        let js = NodeJs { prefix };
        js.check_version();
        js
    })
}

impl NodeJs {
    /// `node` running the ES module in `script` with `args`, its working directory the
    /// install prefix (so bare imports of the package resolve there). The script's text
    /// is passed with `--eval`: module resolution for evaluated code starts at the
    /// working directory, not at the script's own folder in the repository.
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

    fn package_dir(&self) -> PathBuf {
        package_dir(&self.prefix)
    }

    /// Check that the installed package is the pinned version.
    fn check_version(&self) {
        let manifest = self.package_dir().join("package.json");
        let text = std::fs::read_to_string(&manifest)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", manifest.display()));
        let pinned = format!("\"version\": \"{VERSION}\"");
        assert!(
            text.contains(&pinned) && text.contains(&format!("\"name\": \"{PACKAGE}\"")),
            "{} is not {PACKAGE} {VERSION}; delete {} so the next run reinstalls",
            manifest.display(),
            self.prefix.display()
        );
    }
}

fn package_dir(prefix: &Path) -> PathBuf {
    prefix.join("node_modules").join("@zap-proto").join("zap")
}

fn installed(prefix: &Path) -> bool {
    package_dir(prefix).join("dist").join("node.js").is_file()
}

/// Panic unless `tool --version` runs.
fn check_tool(tool: &str) {
    match Command::new(tool).arg("--version").output() {
        Ok(out) if out.status.success() => {}
        Ok(out) => panic!(
            "`{tool} --version` failed ({}): {}\nThe TypeScript interop tests need Node.js and \
             npm on PATH (they install {PACKAGE}@{VERSION} from npm).",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => panic!(
            "cannot run `{tool}`: {e}\nThe TypeScript interop tests need Node.js and npm on \
             PATH (they install {PACKAGE}@{VERSION} from npm); install nodejs and npm."
        ),
    }
}

/// Install the package under `prefix` unless it is already there.
fn install(prefix: &Path) {
    if installed(prefix) {
        return;
    }
    check_tool(NPM);
    install_atomically(
        prefix,
        installed,
        &format!("{NPM} install {PACKAGE}@{VERSION}"),
        "The TypeScript interop tests need npm and access to the npm registry",
        |tmp| {
            Command::new(NPM)
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
                .arg(format!("{PACKAGE}@{VERSION}"))
                .stdin(Stdio::null())
                .output()
                .unwrap_or_else(|e| panic!("cannot run `{NPM}`: {e}"))
        },
    );
}

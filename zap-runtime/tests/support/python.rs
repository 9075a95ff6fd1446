//! The reference Python runtime, `zap-proto` 1.4.1 from PyPI, for interop tests.
//!
//! [`zap_proto()`] finds `python3` on `PATH`, installs the package once into
//! `<target dir>/python/zap-proto-1.4.1` (with `pip install --target`; skipped when that
//! folder already holds `zap/wire.py`), checks that what Python imports from there is
//! version 1.4.1, and returns a [`Python`] that runs scripts with `PYTHONPATH` set to it.
//!
//! The target dir is `$CARGO_TARGET_DIR` when set (a relative one is taken relative to
//! the workspace root), else `target/` in the workspace root: the nearest ancestor of
//! the calling crate's `CARGO_MANIFEST_DIR` holding a `Cargo.lock`. Concurrent test
//! processes are safe: each installs into its own temporary folder and renames it into
//! place; a process that loses the race uses the winner's folder.
//!
//! A missing `python3`, `pip` or package is a test **failure** (a panic saying what is
//! missing and how to fix it), never a silent skip.
//!
//! Depends on nothing but `std`, so any crate's tests can include it:
//! `#[path = "../../zap-runtime/tests/support/python.rs"] mod python;`

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

#[path = "install.rs"]
mod install;

#[allow(unused_imports)] // each test binary uses a different part
pub use install::{install_atomically, target_dir, workspace_root};

/// The pinned reference package.
pub const PACKAGE: &str = "zap-proto";
/// Its pinned version.
pub const VERSION: &str = "1.4.1";
/// The interpreter looked up on `PATH`.
pub const PYTHON: &str = "python3";

/// A `python3` that imports the pinned `zap` package.
#[derive(Debug, Clone)]
pub struct Python {
    /// Folder holding the installed package (`zap/`, `zap_proto-1.4.1.dist-info/`).
    pub site: PathBuf,
}

/// The pinned package, installed on first use (once per process; see the module docs).
pub fn zap_proto() -> &'static Python {
    static PY: OnceLock<Python> = OnceLock::new();
    PY.get_or_init(|| {
        check_python();
        let site = target_dir()
            .join("python")
            .join(format!("{PACKAGE}-{VERSION}"));
        install(&site);
        let py = Python { site };
        py.check_version();
        py
    })
}

impl Python {
    /// A `python3` command with `PYTHONPATH` pointing at the package (and the user's
    /// site-packages ignored, so nothing else named `zap` shadows it).
    pub fn command(&self) -> Command {
        let mut cmd = Command::new(PYTHON);
        cmd.env("PYTHONPATH", &self.site)
            .env("PYTHONNOUSERSITE", "1")
            .env("PYTHONIOENCODING", "utf-8");
        cmd
    }

    /// Run `script` with `stdin` as its standard input; its standard output. Panics with
    /// its standard error if it cannot start or exits unsuccessfully.
    pub fn run(&self, script: &Path, stdin: &[u8]) -> Vec<u8> {
        let mut cmd = self.command();
        cmd.arg(script);
        let out = run_with_input(&mut cmd, stdin);
        if !out.status.success() {
            panic!(
                "python script {} failed ({}):\n{}",
                script.display(),
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
        }
        out.stdout
    }

    /// Run Python code given inline (`python3 -c code`); its standard output as text.
    pub fn eval(&self, code: &str) -> String {
        let out = run_with_input(self.command().arg("-c").arg(code), b"");
        if !out.status.success() {
            panic!(
                "python3 -c failed ({}):\n{code}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
        }
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Check that `import zap` resolves to our folder and reports the pinned version,
    /// both in its metadata (the dist-info) and in `zap.__version__`.
    fn check_version(&self) {
        let dist_info = self
            .site
            .join(format!("{}-{VERSION}.dist-info", PACKAGE.replace('-', "_")));
        assert!(
            dist_info.is_dir(),
            "{} is missing: the folder {} does not hold {PACKAGE} {VERSION}; delete it so \
             the next run reinstalls",
            dist_info.display(),
            self.site.display()
        );
        let got = self.eval(
            "import importlib.metadata as m, os, zap\n\
             print(m.version('zap-proto'), getattr(zap, '__version__', '?'), \
             os.path.dirname(os.path.dirname(os.path.abspath(zap.__file__))), sep='\\n')",
        );
        let lines: Vec<&str> = got.lines().collect();
        let site = self
            .site
            .canonicalize()
            .unwrap_or_else(|_| self.site.clone());
        let imported_from = Path::new(lines.get(2).copied().unwrap_or(""));
        let imported_from = imported_from
            .canonicalize()
            .unwrap_or_else(|_| imported_from.to_path_buf());
        assert!(
            lines.len() == 3 && lines[0] == VERSION && lines[1] == VERSION && imported_from == site,
            "expected {PACKAGE} {VERSION} imported from {}, python reports (metadata version, \
             zap.__version__, folder): {got:?}",
            site.display()
        );
    }
}

/// Panic unless `python3` runs.
fn check_python() {
    match Command::new(PYTHON).arg("--version").output() {
        Ok(out) if out.status.success() => {}
        Ok(out) => panic!(
            "`{PYTHON} --version` failed ({}): {}\nThe interop tests need Python 3 with pip on \
             PATH (they install {PACKAGE}=={VERSION} from PyPI).",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => panic!(
            "cannot run `{PYTHON}`: {e}\nThe interop tests need Python 3 with pip on PATH \
             (they install {PACKAGE}=={VERSION} from PyPI); install python3 and python3-pip."
        ),
    }
}

/// Install the package into `site` unless it is already there.
fn install(site: &Path) {
    install_atomically(
        site,
        |dir| dir.join("zap").join("wire.py").is_file(),
        &format!("{PYTHON} -m pip install {PACKAGE}=={VERSION}"),
        "The interop tests need pip (python3 -m pip) and access to PyPI",
        |tmp| pip_install(tmp, &format!("{PACKAGE}=={VERSION}")),
    );
}

/// `python3 -m pip install --target dir requirement`, quietly, ignoring user site-packages.
pub fn pip_install(dir: &Path, requirement: &str) -> Output {
    Command::new(PYTHON)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-input",
            "--target",
        ])
        .arg(dir)
        .arg(requirement)
        .env("PYTHONNOUSERSITE", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{PYTHON} -m pip`: {e}"))
}

fn run_with_input(cmd: &mut Command, stdin: &[u8]) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run `{PYTHON}`: {e}"));
    let mut pipe = child.stdin.take().expect("stdin is piped");
    // Write from another thread: the child may fill its stdout pipe before reading
    // all of its input.
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || pipe.write_all(&input));
    let out = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("waiting for `{PYTHON}`: {e}"));
    // A script that exits without reading everything breaks the pipe; its exit status
    // and stderr say why, so the write error itself is not interesting.
    let _ = writer.join();
    out
}

//! The Python peer with its signature schemes: `zap-proto[crypto]` 1.4.1 from PyPI
//! (adds `cryptography` for Ed25519/secp256k1 and `pqcrypto` for ML-DSA-65), for the
//! capability interop tests.
//!
//! [`zap_proto_crypto()`] installs the package with its `crypto` extra once into
//! `<target dir>/python/zap-proto-crypto-1.4.1` (its own folder, so it never disturbs
//! the pure-stdlib install of [`python.rs`](python.rs)), checks what Python imports from
//! there, and returns a [`Python`] that runs scripts against it. The install reuses the
//! approach of `python.rs`: a private temporary folder per process, renamed into place.
//!
//! A missing `python3`, `pip`, package or backend is a test **failure** (a panic saying
//! what is missing), never a skip.
//!
//! Include it with `#[path = "support/python_crypto.rs"] mod python_crypto;`.

#![allow(dead_code)]

#[path = "python.rs"]
mod python;

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

pub use python::{target_dir, Python, PACKAGE, PYTHON, VERSION};

/// The pip requirement installed.
pub const REQUIREMENT: &str = "zap-proto[crypto]==1.4.1";

/// `zap-proto[crypto]` 1.4.1, installed on first use (once per process).
pub fn zap_proto_crypto() -> &'static Python {
    static PY: OnceLock<Python> = OnceLock::new();
    PY.get_or_init(|| {
        let site = target_dir()
            .join("python")
            .join(format!("{PACKAGE}-crypto-{VERSION}"));
        install(&site);
        let py = Python { site };
        check(&py);
        py
    })
}

/// Files whose presence means the install is complete.
fn installed(site: &Path) -> bool {
    site.join("zap").join("cap").join("_sign.py").is_file()
        && site.join("pqcrypto").is_dir()
        && site.join("cryptography").is_dir()
}

fn install(site: &Path) {
    if installed(site) {
        return;
    }
    match Command::new(PYTHON).arg("--version").output() {
        Ok(out) if out.status.success() => {}
        other => panic!(
            "cannot run `{PYTHON} --version` ({other:?}). The capability interop tests need \
             Python 3 with pip on PATH (they install {REQUIREMENT} from PyPI)."
        ),
    }
    python::install_atomically(
        site,
        installed,
        &format!("{PYTHON} -m pip install {REQUIREMENT}"),
        "The capability interop tests need pip and access to PyPI",
        |tmp| python::pip_install(tmp, REQUIREMENT),
    );
}

/// Check that the pinned package and both crypto backends import from `py.site`.
fn check(py: &Python) {
    let got = py.eval(
        "import importlib.metadata as m, os, zap, zap.cap\n\
         from pqcrypto.sign import ml_dsa_65\n\
         import cryptography\n\
         print(m.version('zap-proto'), \
         os.path.dirname(os.path.dirname(os.path.abspath(zap.__file__))), sep='\\n')",
    );
    let lines: Vec<&str> = got.lines().collect();
    let site = py.site.canonicalize().unwrap_or_else(|_| py.site.clone());
    let from = Path::new(lines.get(1).copied().unwrap_or(""));
    let from = from.canonicalize().unwrap_or_else(|_| from.to_path_buf());
    assert!(
        lines.len() == 2 && lines[0] == VERSION && from == site,
        "expected {PACKAGE} {VERSION} imported from {}, python reports: {got:?}; delete that \
         folder so the next run reinstalls",
        site.display()
    );
}

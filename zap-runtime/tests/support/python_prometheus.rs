//! The Python Prometheus client library, `prometheus-client` from PyPI, for its parser
//! of the Prometheus text format: tests feed it what `GET /metrics` serves.
//!
//! [`prometheus_client()`] installs the pinned version once into
//! `<target dir>/python/prometheus-client-<version>` with the pip helpers of
//! [`python.rs`](python.rs) and returns a [`Python`] that imports it. A missing
//! `python3`, `pip` or package is a test **failure**, never a skip.
//!
//! Include it with `#[path = ".../zap-runtime/tests/support/python_prometheus.rs"]`.

#![allow(dead_code)]

#[path = "python.rs"]
mod python;

use std::path::Path;
use std::sync::OnceLock;

pub use python::{Python, PYTHON};

/// The pinned version.
pub const VERSION: &str = "0.21.1";

/// `prometheus-client`, installed on first use (once per process).
pub fn prometheus_client() -> &'static Python {
    static PY: OnceLock<Python> = OnceLock::new();
    PY.get_or_init(|| {
        let site = python::target_dir()
            .join("python")
            .join(format!("prometheus-client-{VERSION}"));
        let requirement = format!("prometheus-client=={VERSION}");
        python::install_atomically(
            &site,
            installed,
            &format!("{PYTHON} -m pip install {requirement}"),
            "The metrics tests need Python 3 with pip and access to PyPI",
            |tmp| python::pip_install(tmp, &requirement),
        );
        let py = Python { site };
        let got = py.eval("import prometheus_client.parser, importlib.metadata as m; print(m.version('prometheus-client'))");
        assert_eq!(got, VERSION, "the pinned prometheus-client imports");
        py
    })
}

fn installed(site: &Path) -> bool {
    site.join("prometheus_client").join("parser.py").is_file()
}

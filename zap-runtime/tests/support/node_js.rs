//! The TypeScript runtime, `@zap-proto/zap` 1.6.0 from npm, for interop tests.
//!
//! [`zap_js()`] installs the package once into `<target dir>/node/zap-proto-zap-1.6.0`
//! with the pinned-package installer of `npm.rs` (which checks that `node` and `npm` run
//! and that the installed package is version 1.6.0), and returns a [`NodeJs`] that runs
//! ES-module scripts from that folder, so `import { ZapClient } from
//! "@zap-proto/zap/node"` resolves to it through the package's own `exports` map.
//!
//! A missing `node`, `npm` or package is a test **failure** (a panic saying what is
//! missing and how to fix it), never a silent skip.
//!
//! Depends on nothing but `std`:
//! `#[path = "../../zap-runtime/tests/support/node_js.rs"] mod node_js;`

#![allow(dead_code)]

use std::sync::OnceLock;

#[path = "npm.rs"]
mod npm;

/// A `node` whose scripts import the pinned package.
pub use npm::NodeModules as NodeJs;
#[allow(unused_imports)] // each test binary uses a different part
pub use npm::{target_dir, workspace_root, NODE, NPM};

/// The pinned package.
pub const PACKAGE: &str = "@zap-proto/zap";
/// Its pinned version.
pub const VERSION: &str = "1.6.0";

/// The pinned package, installed on first use (once per process; see the module docs).
pub fn zap_js() -> &'static NodeJs {
    static JS: OnceLock<NodeJs> = OnceLock::new();
    JS.get_or_init(|| {
        npm::install(
            &format!("zap-proto-zap-{VERSION}"),
            &[(PACKAGE, VERSION)],
            "The TypeScript interop tests",
        )
    })
}

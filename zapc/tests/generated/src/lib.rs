//! The code zapc generates for each schema in `schemas/`, one module per file. That this
//! crate compiles (warning- and clippy-clean, as CI checks) is the first test; the tests
//! in `tests/` exercise the generated readers, builders, JSON mapping and services.
//!
//! `missing_docs` is denied: every generated item carries documentation (the schema's doc
//! comments, or a line saying what a field is and where), so a crate with the same lint
//! can include generated code.

#![deny(missing_docs)]

/// Generated from `schemas/aliases.zap`.
pub mod aliases {
    zap_runtime::include_schema!("aliases");
}
/// Generated from `schemas/common.zap` (imported by `schemas/imports.zap`).
pub mod common {
    zap_runtime::include_schema!("common");
}
/// Generated from `schemas/docs.zap`.
pub mod docs {
    zap_runtime::include_schema!("docs");
}
/// Generated from `schemas/enums.zap`.
pub mod enums {
    zap_runtime::include_schema!("enums");
}
/// Generated from `schemas/enums_indent.zap`.
pub mod enums_indent {
    zap_runtime::include_schema!("enums_indent");
}
/// Generated from `schemas/evolution.zap`.
pub mod evolution {
    zap_runtime::include_schema!("evolution");
}
/// Generated from `schemas/eth.zap`.
pub mod eth {
    zap_runtime::include_schema!("eth");
}
/// Generated from `schemas/golden.zap`.
pub mod golden {
    zap_runtime::include_schema!("golden");
}
/// Generated from `schemas/imports.zap`: its types of `common.zap` are
/// `super::common::...`, the sibling module above.
pub mod imports {
    zap_runtime::include_schema!("imports");
}
/// Generated from `schemas/indent.zap`.
pub mod indent {
    zap_runtime::include_schema!("indent");
}
/// Generated from `schemas/kitchen.zap`.
pub mod kitchen {
    zap_runtime::include_schema!("kitchen");
}
/// Generated from `schemas/lists.zap`.
pub mod lists {
    zap_runtime::include_schema!("lists");
}
/// Generated from `schemas/offsets.zap`.
pub mod offsets {
    zap_runtime::include_schema!("offsets");
}
/// Generated from `schemas/recursive.zap`.
pub mod recursive {
    zap_runtime::include_schema!("recursive");
}
/// Generated from `schemas/service.zap`.
pub mod service {
    zap_runtime::include_schema!("service");
}
/// Generated from `schemas/streams.zap`.
pub mod streams {
    zap_runtime::include_schema!("streams");
}
/// Generated from `schemas/tails.zap`.
pub mod tails {
    zap_runtime::include_schema!("tails");
}

//! The code zapc generates for each schema in `schemas/`, one module per file. That this
//! crate compiles (warning- and clippy-clean, as CI checks) is the first test; the tests
//! in `tests/` exercise the generated readers, builders, JSON mapping and services.

pub mod aliases {
    zap_runtime::include_schema!("aliases");
}
pub mod docs {
    zap_runtime::include_schema!("docs");
}
pub mod eth {
    zap_runtime::include_schema!("eth");
}
pub mod golden {
    zap_runtime::include_schema!("golden");
}
pub mod indent {
    zap_runtime::include_schema!("indent");
}
pub mod kitchen {
    zap_runtime::include_schema!("kitchen");
}
pub mod lists {
    zap_runtime::include_schema!("lists");
}
pub mod offsets {
    zap_runtime::include_schema!("offsets");
}
pub mod recursive {
    zap_runtime::include_schema!("recursive");
}
pub mod service {
    zap_runtime::include_schema!("service");
}
pub mod tails {
    zap_runtime::include_schema!("tails");
}

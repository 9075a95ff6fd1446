//! The code zapc generates (in `build.rs`) for the schemas the targets exercise.

/// `schemas/kitchen.zap`: `Leaf` and `Kitchen`.
pub mod kitchen {
    zap_runtime::include_schema!("kitchen");
}

/// `schemas/lists.zap`: every list shape.
pub mod lists {
    zap_runtime::include_schema!("lists");
}

/// `schemas/service.zap`: the `Store` interface (`StoreService`, `StoreClient`).
pub mod service {
    zap_runtime::include_schema!("service");
}

/// `fuzz/schemas/recursive.zap`: `Node` (a pointer to itself) and `Tree` (a list of
/// itself).
pub mod recursive {
    zap_runtime::include_schema!("recursive");
}

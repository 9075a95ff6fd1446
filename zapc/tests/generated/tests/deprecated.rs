//! The `#[deprecated]` of generated code reaches its users: a compile test (trybuild)
//! whose expected compiler output, `tests/ui/deprecated_uses_warn.stderr`, lists one
//! deprecation per use (regenerate with `TRYBUILD=overwrite` and review it).

#[test]
fn naming_deprecated_items_warns() {
    trybuild::TestCases::new().compile_fail("tests/ui/deprecated_uses_warn.rs");
}

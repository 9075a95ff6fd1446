//! Compile tests of `#[derive(Zap)]` (trybuild): inputs that must compile, and inputs that
//! must fail with a clear error at the offending token (the `.stderr` files are the
//! expected compiler output; regenerate with `TRYBUILD=overwrite` and review them).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/fail/*.rs");
}

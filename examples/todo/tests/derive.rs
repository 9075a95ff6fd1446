//! The derive example (`examples/derive.rs`) runs: its assertions hold.

#[path = "../examples/derive.rs"]
mod derive;

#[test]
fn the_derive_example_runs() {
    derive::main().unwrap();
}

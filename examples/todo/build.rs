//! Compile the schema into `OUT_DIR/todo.rs`, which `src/lib.rs` includes.
//! A mistake in the schema fails the build with zapc's message: file, line, column, a
//! caret under the mistake and, where it can, a hint.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    zapc::Config::new().compile(&["schemas/todo.zap"])?;
    Ok(())
}

//! `zapc openrpc FILE [-o OUT]`: the OpenRPC document of a schema.

use std::path::PathBuf;
use std::process::ExitCode;

use zapc::{load_file, openrpc};

/// Write the OpenRPC 1.2.6 document of a schema: what its JSON-RPC server answers to
/// `rpc.discover`.
///
/// One method per interface method under its JSON-RPC name, with its params (one per
/// request field; by position or by name as the method's `json(...)` options say), its
/// result (the response struct, or the one field `json(result = F)` unwraps) and a JSON
/// Schema of every struct under components.schemas, following the JSON mapping (64-bit
/// integers also as strings, `json(quantity)` fields as 0x quantities, bytes as 0x-hex).
/// Doc comments become descriptions.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  zapc openrpc schemas/eth.zap                  # to stdout\n  zapc openrpc schemas/eth.zap -o openrpc.json\n\nA running server answers the same document to {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"rpc.discover\"}."
)]
pub struct Args {
    /// The .zap file to describe.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Write the document to this file instead of standard output.
    #[arg(short, long, value_name = "OUT")]
    out: Option<PathBuf>,
}

/// Load the file and write its document, or print its errors (exit 1).
pub fn run(args: &Args) -> ExitCode {
    let schema = match load_file(&args.file) {
        Ok(schema) => schema,
        Err(error) => {
            eprintln!("{}", error.to_string().trim_end());
            return ExitCode::FAILURE;
        }
    };
    let document = openrpc::document(&schema);
    match &args.out {
        None => print!("{document}"),
        Some(path) => {
            if let Err(e) = std::fs::write(path, document) {
                eprintln!("error: cannot write {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}

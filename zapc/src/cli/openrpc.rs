//! `zapc openrpc PATHS... [-o OUT]`: the OpenRPC document of each schema.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use zapc::{load_file, module_name, openrpc};

use super::inputs::{schema_files, Depth};

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
    after_help = "Examples:\n  zapc openrpc schemas/eth.zap                  # to stdout\n  zapc openrpc schemas/eth.zap -o openrpc.json\n  zapc openrpc schemas/ -o openrpc/             # one <module>.json per .zap file in schemas/\n\nA running server answers the same document to {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"rpc.discover\"}."
)]
pub struct Args {
    /// Schema files, or folders whose `*.zap` files are all described. Each schema is
    /// one document: more than one needs `-o DIR`.
    #[arg(required = true, value_name = "PATHS")]
    paths: Vec<PathBuf>,
    /// Write the document to this file instead of standard output; with more than one
    /// schema, the folder (created if missing) to write `<module>.json` for each into.
    #[arg(short, long, value_name = "OUT")]
    out: Option<PathBuf>,
}

/// Load each file and write its document, or print its errors (exit 1).
pub fn run(args: &Args) -> ExitCode {
    super::exit_with(try_run(args))
}

fn try_run(args: &Args) -> Result<(), String> {
    let files = schema_files(&args.paths, Depth::Top).map_err(|m| format!("error: {m}"))?;
    let document = |path: &Path| {
        load_file(path)
            .map(|schema| openrpc::document(&schema))
            .map_err(|error| error.to_string())
    };
    let write = |path: &Path, text: String| {
        std::fs::write(path, text)
            .map_err(|e| format!("error: cannot write {}: {e}", path.display()))
    };
    match (files.as_slice(), &args.out) {
        ([file], None) => {
            print!("{}", document(file)?);
            Ok(())
        }
        ([file], Some(out)) => write(out, document(file)?),
        (_, None) => Err(format!(
            "error: {} schemas make {} OpenRPC documents: give -o DIR to write one file each",
            files.len(),
            files.len()
        )),
        (_, Some(dir)) => {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("error: cannot create {}: {e}", dir.display()))?;
            // Every document first, so an invalid schema leaves no half-written set.
            let documents = files
                .iter()
                .map(|file| Ok((module_name(file), document(file)?)))
                .collect::<Result<Vec<_>, String>>()?;
            for (module, text) in documents {
                write(&dir.join(format!("{module}.json")), text)?;
            }
            Ok(())
        }
    }
}

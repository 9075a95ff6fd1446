//! `zapc export [-o DIR] PATHS...`: schemas in the dialect every ZAP compiler reads.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use zapc::export::{export_file, Exported};

use super::inputs::{schema_files, Depth};

/// Write schemas in the dialect the Go and TypeScript `zapgen` read, with the same wire
/// layout.
///
/// Each schema becomes one `.zap` file with a `package` line, every field at the offset
/// zapc placed it, enums as their integer type, and the structs it imports copied in;
/// what only zapc reads (constants, enum values, JSON and capability options, stream
/// methods) stays as comments. Method ordinals stay those zapc assigns: a gap before a
/// later call becomes a placeholder method. What was written differently is listed on
/// standard error. `zapc check --portable` warns about each such construct in the source.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  zapc export schemas/eth.zap              # to stdout\n  zapc export -o shared/ schemas/          # shared/<file>.zap for each .zap file in schemas/\n\nThen, for Go:          zapgen -out gen/eth shared/eth.zap\n     for TypeScript:  npx zapgen -out gen shared/eth.zap   (@zap-proto/zap)"
)]
pub struct Args {
    /// Schema files, or folders whose `*.zap` files are all exported.
    #[arg(required = true, value_name = "PATHS")]
    paths: Vec<PathBuf>,
    /// The folder (created if missing) to write `<file>.zap` for each schema into. Without
    /// it, the one schema given is written to standard output.
    #[arg(short, long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// Export every file, or print why one cannot be (exit 1, nothing written).
pub fn run(args: &Args) -> ExitCode {
    super::exit_with(try_run(args))
}

fn try_run(args: &Args) -> Result<(), String> {
    let files = schema_files(&args.paths, Depth::Top).map_err(|m| format!("error: {m}"))?;
    let export = |path: &Path| {
        export_file(path).map_err(|error| match error {
            zapc::export::ExportError::Load(load) => load.to_string(),
            refused => format!("error: cannot export {refused}"),
        })
    };
    // Every file first, so a schema that cannot be exported leaves no half-written set.
    let exported = files
        .iter()
        .map(|file| Ok((file, export(file)?)))
        .collect::<Result<Vec<_>, String>>()?;
    match (&args.out, exported.as_slice()) {
        (None, [(file, one)]) => {
            print!("{}", one.text);
            report(file, "standard output", one);
            Ok(())
        }
        (None, _) => Err(format!(
            "error: {} schemas make {} files: give -o DIR to write them",
            files.len(),
            files.len()
        )),
        (Some(dir), _) => {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("error: cannot create {}: {e}", dir.display()))?;
            for (file, one) in &exported {
                let name = file.file_name().unwrap_or(file.as_os_str());
                let target = dir.join(name);
                std::fs::write(&target, &one.text)
                    .map_err(|e| format!("error: cannot write {}: {e}", target.display()))?;
                report(file, &target.display().to_string(), one);
            }
            Ok(())
        }
    }
}

fn report(file: &Path, target: &str, exported: &Exported) {
    eprintln!(
        "exported {} to {target} (package {})",
        file.display(),
        exported.package
    );
    for note in &exported.notes {
        eprintln!("  {note}");
    }
}

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
    after_help = "Examples:\n  zapc export schemas/eth.zap              # to stdout\n  zapc export -o shared/ schemas/          # shared/<file>.zap for each .zap file in schemas/\n  zapc export --check -o shared/ schemas/  # exit 1 if shared/ is not current\n\nThen, for Go:          zapgen -out gen/eth shared/eth.zap\n     for TypeScript:  npx zapgen -out gen shared/eth.zap   (@zap-proto/zap)"
)]
pub struct Args {
    /// Schema files, or folders whose `*.zap` files are all exported.
    #[arg(required = true, value_name = "PATHS")]
    paths: Vec<PathBuf>,
    /// The folder (created if missing) to write `<file>.zap` for each schema into. Without
    /// it, the one schema given is written to standard output.
    #[arg(short, long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Write nothing: exit 1, naming each file, when what is in DIR differs from what
    /// export would write there (for CI, beside a committed export).
    #[arg(long, requires = "out")]
    check: bool,
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
        (Some(dir), _) if args.check => {
            let stale: Vec<String> = exported
                .iter()
                .filter_map(|(file, one)| {
                    let target = target_in(dir, file);
                    let current = std::fs::read_to_string(&target).ok();
                    (current.as_deref() != Some(one.text.as_str()))
                        .then(|| target.display().to_string())
                })
                .collect();
            if stale.is_empty() {
                return Ok(());
            }
            Err(format!(
                "error: not what `zapc export` writes (run it again without --check): {}",
                stale.join(", ")
            ))
        }
        (Some(dir), _) => {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("error: cannot create {}: {e}", dir.display()))?;
            for (file, one) in &exported {
                let target = target_in(dir, file);
                std::fs::write(&target, &one.text)
                    .map_err(|e| format!("error: cannot write {}: {e}", target.display()))?;
                report(file, &target.display().to_string(), one);
            }
            Ok(())
        }
    }
}

/// Where the export of `file` goes in `dir`: the same file name.
fn target_in(dir: &Path, file: &Path) -> PathBuf {
    dir.join(file.file_name().unwrap_or(file.as_os_str()))
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

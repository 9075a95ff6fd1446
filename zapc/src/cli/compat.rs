//! `zapc compat OLD NEW`, `zapc compat ADDR NEW` and `zapc compat --against REV
//! [PATH...]`: classify every change between two versions of a schema set.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use zapc::compat::{self, Class, Version};

/// Compare two versions of a schema set and classify every change as wire-breaking,
/// JSON-breaking or safe (the rules: docs/compat.md).
///
/// OLD and NEW are both .zap files or both directories (their .zap files are matched by
/// name; a file only on one side counts as all its declarations removed or added). OLD
/// may be a running server instead (HOST:PORT or unix:PATH, with the connection options
/// of `zapc call`): its schema is asked for by reflection and compared with the NEW
/// file, the check to make before deploying NEW beside it. With --against REV, the old
/// version of each PATH is read from git (`git show REV:PATH`) and the new one from the
/// working tree.
///
/// Exits with 0 when every change is safe (or of an allowed class), 1 when something
/// breaks, 2 for usage errors (a missing path, an unknown revision, an invalid schema).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  zapc compat old/eth.zap schemas/eth.zap\n  zapc compat 127.0.0.1:9999 schemas/eth.zap      # a live server against a file\n  zapc compat old_schemas/ schemas/\n  zapc compat --against origin/main schemas/     # in CI\n  zapc compat --against HEAD --allow json schemas/eth.zap"
)]
pub struct Args {
    /// OLD NEW, or with --against the paths to compare (default: the current directory).
    #[arg(value_name = "PATHS")]
    paths: Vec<PathBuf>,
    /// Read the old versions from this git revision.
    #[arg(long, value_name = "REV")]
    against: Option<String>,
    /// Accept changes of this class (still reported, as warnings).
    #[arg(long, value_name = "CLASS", value_enum)]
    allow: Vec<Allow>,
    /// How to reach a server given as OLD.
    #[command(flatten)]
    connect: super::remote::ConnectArgs,
}

/// A breaking class that `--allow` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Allow {
    /// JSON-breaking changes.
    Json,
    /// Wire-breaking changes.
    Wire,
}

/// One file's two versions, either possibly absent.
struct Pair {
    old: Option<Version>,
    new: Option<Version>,
}

/// Compare, print every change and the summary; choose the exit status.
pub fn run(args: &Args) -> ExitCode {
    let pairs = match &args.against {
        Some(rev) => against(rev, &args.paths),
        None => match args.paths.as_slice() {
            [old, new] if is_address(old) => live(&args.connect, &old.to_string_lossy(), new),
            [old, new] => paths(old, new),
            _ => Err("give OLD and NEW, or --against REV [PATH...]".to_owned()),
        },
    };
    let pairs = match pairs {
        Ok(pairs) => pairs,
        Err(message) => {
            eprintln!("error: {}", message.trim_end());
            return ExitCode::from(2);
        }
    };
    let allowed: Vec<Class> = args
        .allow
        .iter()
        .map(|a| match a {
            Allow::Json => Class::JsonBreaking,
            Allow::Wire => Class::WireBreaking,
        })
        .collect();
    let mut counts = [0usize; 3];
    let mut breaking = false;
    for pair in pairs {
        let (old, new) = match (pair.old, pair.new) {
            (Some(old), Some(new)) => (old, new),
            (Some(old), None) => {
                let new = Version::empty(&format!("{} (removed)", old.name), None);
                let new = with_package(new, &old);
                (old, new)
            }
            (None, Some(new)) => {
                let old = Version::empty(&format!("{} (added)", new.name), None);
                (with_package(old, &new), new)
            }
            (None, None) => continue,
        };
        let changes = compat::compare(&old.schema, &new.schema);
        for change in &changes {
            counts[change.class as usize] += 1;
            breaking |= change.class.is_breaking() && !allowed.contains(&change.class);
        }
        print!("{}", compat::render(&old, &new, &changes, &allowed));
    }
    println!(
        "compat: {} wire-breaking, {} JSON-breaking, {} safe",
        counts[Class::WireBreaking as usize],
        counts[Class::JsonBreaking as usize],
        counts[Class::Safe as usize]
    );
    if breaking {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn with_package(mut empty: Version, other: &Version) -> Version {
    empty.schema.package = other.schema.package.clone();
    empty
}

/// Load an old version read from git; its imports are read from the working tree.
fn load(name: &str, text: &str, dir: &Path) -> Result<Version, String> {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    Version::load_in(name, text, dir).map_err(|diagnostics| diagnostics.render())
}

fn read(path: &Path) -> Result<Version, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    Version::load_in(
        &path.display().to_string(),
        &text,
        dir.unwrap_or(Path::new(".")),
    )
    .map_err(|diagnostics| diagnostics.render())
}

/// The `.zap` files directly inside `dir`, by file name.
fn zap_files(dir: &Path) -> Result<Vec<String>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".zap") && entry.path().is_file() {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

/// Whether OLD names a server rather than a file: no such path, and `unix:PATH` or
/// `HOST:PORT`.
fn is_address(old: &Path) -> bool {
    if old.exists() {
        return false;
    }
    let text = old.to_string_lossy();
    text.starts_with("unix:")
        || text
            .rsplit_once(':')
            .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok())
}

/// A running server's schema (by reflection) against the file NEW.
fn live(connect: &super::remote::ConnectArgs, addr: &str, new: &Path) -> Result<Vec<Pair>, String> {
    use super::remote::{self, Failure};
    let message = |f: Failure| match f {
        Failure::Usage(m) | Failure::Call(m) => m,
    };
    if new.is_dir() {
        return Err(format!(
            "{}: compare a server with the one .zap file of its interface",
            new.display()
        ));
    }
    let new = read(new)?;
    let interface = new.schema.interfaces.first().map(|i| i.name.clone());
    let runtime = remote::runtime().map_err(message)?;
    let description = runtime
        .block_on(async {
            let client = connect.connect(addr, None).await?;
            let description = remote::describe(&client, addr).await;
            client.close().await;
            description
        })
        .map_err(message)?;
    let service = match interface {
        Some(name) if description.services.iter().any(|s| s.name == name) => {
            remote::service(&description, Some(&name), addr)
        }
        _ => remote::service(&description, None, addr),
    }
    .map_err(message)?;
    let files = remote::checked_files(service, addr).map_err(message)?;
    let dir = remote::TempDir::new()
        .map_err(|e| format!("cannot make a folder for {addr}'s schema: {e}"))?;
    remote::write_files(&files, dir.path())?;
    let old = load(
        &format!("{addr}:{}", files[0].path),
        &files[0].text,
        dir.path(),
    )?;
    Ok(vec![Pair {
        old: Some(old),
        new: Some(new),
    }])
}

/// OLD and NEW on disk: two files, or two directories matched by file name.
fn paths(old: &Path, new: &Path) -> Result<Vec<Pair>, String> {
    for path in [old, new] {
        if !path.exists() {
            return Err(format!("{} does not exist", path.display()));
        }
    }
    match (old.is_dir(), new.is_dir()) {
        (false, false) => Ok(vec![Pair {
            old: Some(read(old)?),
            new: Some(read(new)?),
        }]),
        (true, true) => {
            let (old_names, new_names) = (zap_files(old)?, zap_files(new)?);
            let mut names: Vec<&String> = old_names.iter().chain(&new_names).collect();
            names.sort();
            names.dedup();
            names
                .into_iter()
                .map(|name| {
                    let side = |dir: &Path, present: &[String]| {
                        present
                            .contains(name)
                            .then(|| read(&dir.join(name)))
                            .transpose()
                    };
                    Ok(Pair {
                        old: side(old, &old_names)?,
                        new: side(new, &new_names)?,
                    })
                })
                .collect()
        }
        _ => Err(format!(
            "{} and {} must both be files or both be directories",
            old.display(),
            new.display()
        )),
    }
}

/// Run git and return its standard output, or its error message.
fn git(args: &[&str]) -> Result<String, String> {
    let output = Command::new("git")
        .args(args)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if output.status.success() {
        String::from_utf8(output.stdout).map_err(|_| "git printed non-UTF-8 text".to_owned())
    } else {
        Err(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim_end()
        ))
    }
}

/// Every PATH in the working tree against its version at `rev`.
fn against(rev: &str, paths: &[PathBuf]) -> Result<Vec<Pair>, String> {
    if let Some(path) = paths.iter().find(|p| p.is_absolute()) {
        return Err(format!(
            "{}: with --against, give paths relative to the current directory",
            path.display()
        ));
    }
    git(&["rev-parse", "--verify", &format!("{rev}^{{commit}}")])
        .map_err(|e| format!("unknown git revision `{rev}` ({e})"))?;
    let default = [PathBuf::from(".")];
    let paths = if paths.is_empty() {
        &default[..]
    } else {
        paths
    };
    let mut pairs = Vec::new();
    for path in paths {
        let shown = path.display().to_string();
        let at_rev = |p: &str| format!("{rev}:./{}", p.trim_start_matches("./"));
        // A directory in the working tree, or one that exists only at the revision.
        let tree_at_rev =
            || git(&["cat-file", "-t", &at_rev(&shown)]).is_ok_and(|t| t.trim() == "tree");
        if path.is_dir() || (!path.exists() && tree_at_rev()) {
            // Paths printed by ls-tree are relative to the current directory.
            let listed = git(&["ls-tree", "--name-only", rev, "--", &format!("{shown}/")])?;
            let old_files: Vec<String> = listed
                .lines()
                .filter(|l| l.ends_with(".zap"))
                .map(str::to_owned)
                .collect();
            let new_names = if path.exists() {
                zap_files(path)?
            } else {
                Vec::new()
            };
            let mut names: Vec<String> = old_files
                .iter()
                .filter_map(|f| Path::new(f).file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .chain(new_names.iter().cloned())
                .collect();
            names.sort();
            names.dedup();
            for name in names {
                let file = path.join(&name);
                let file_str = file.display().to_string();
                let old = match old_files
                    .iter()
                    .find(|f| Path::new(f).file_name() == Some(name.as_ref()))
                {
                    Some(f) => Some(load(
                        &format!("{rev}:{file_str}"),
                        &git(&["show", &at_rev(f)])?,
                        path,
                    )?),
                    None => None,
                };
                let new = new_names.contains(&name).then(|| read(&file)).transpose()?;
                pairs.push(Pair { old, new });
            }
        } else {
            let old = git(&["show", &at_rev(&shown)]).ok();
            if old.is_none() && !path.exists() {
                return Err(format!(
                    "{shown} exists neither in the working tree nor at {rev}"
                ));
            }
            let old = old
                .map(|text| {
                    load(
                        &format!("{rev}:{shown}"),
                        &text,
                        path.parent().unwrap_or(Path::new(".")),
                    )
                })
                .transpose()?;
            let new = path.exists().then(|| read(path)).transpose()?;
            pairs.push(Pair { old, new });
        }
    }
    Ok(pairs)
}

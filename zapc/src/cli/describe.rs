//! `zapc describe ADDR`: what a running server serves, asked on its own wire
//! (reflection, `zap_runtime::builtin`).

use std::path::PathBuf;
use std::process::ExitCode;

use zap_runtime::builtin::{Description, ServiceDescription};

use super::remote::{self, ConnectArgs, Failure};

/// Ask a running server what it serves: its services, their methods with ordinals and
/// kinds, and the schema (its files and their SHA-256), which every zapc server
/// answers on its own wire (reflection). The Go and TypeScript runtimes do not.
///
/// Exit status: 0 for a description, 1 for a server that gives none (or a failed
/// connection), 2 for a usage error.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples (against `cargo run -p eth-rpc`):\n  \
    zapc describe 127.0.0.1:9999\n  \
    zapc describe --json 127.0.0.1:9999\n  \
    zapc describe --out live-schema 127.0.0.1:9999     # write the schema's files\n  \
    zapc describe --ca ca.pem localhost:9999")]
pub struct Args {
    /// The server: HOST:PORT, or unix:PATH for one on a unix socket.
    #[arg(value_name = "ADDR")]
    addr: String,
    /// Print the description as JSON (the `Description` message of
    /// zap-runtime/schema/builtin.zap in its JSON mapping), schema texts included.
    #[arg(long)]
    json: bool,
    /// Write each service's schema files into this folder (created if missing), after
    /// checking them against their hash.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    #[command(flatten)]
    connect: ConnectArgs,
}

/// Run `zapc describe`.
pub fn run(args: &Args) -> ExitCode {
    match try_run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.report(),
    }
}

fn try_run(args: &Args) -> Result<(), Failure> {
    let runtime = remote::runtime()?;
    let description = runtime.block_on(async {
        let client = args.connect.connect(&args.addr, None).await?;
        let description = remote::describe(&client, &args.addr).await;
        client.close().await;
        description
    })?;
    if let Some(dir) = &args.out {
        for service in &description.services {
            let files = remote::checked_files(service, &args.addr)?;
            remote::write_files(&files, dir).map_err(Failure::Call)?;
            eprintln!(
                "wrote {} file{} of {} into {}",
                files.len(),
                if files.len() == 1 { "" } else { "s" },
                service.name,
                dir.display()
            );
        }
    }
    if args.json {
        let json = serde_json::to_string_pretty(&description)
            .map_err(|e| Failure::Call(format!("cannot write the description as JSON: {e}")))?;
        println!("{json}");
    } else {
        print!("{}", text(&description));
    }
    Ok(())
}

/// The description for a reader.
fn text(description: &Description) -> String {
    let mut out = format!("runtime: {}\n", description.runtime);
    for service in &description.services {
        out.push_str(&service_text(service));
    }
    out
}

fn service_text(service: &ServiceDescription) -> String {
    let mut out = format!("\nservice {}", service.name);
    if !service.package.is_empty() {
        out.push_str(&format!(" (package {})", service.package));
    }
    out.push('\n');
    if service.files.is_empty() {
        out.push_str("  schema: not embedded\n");
    } else {
        let files: Vec<&str> = service.files.iter().map(|f| f.path.as_str()).collect();
        out.push_str(&format!(
            "  schema: {} (sha256 {})\n",
            files.join(", "),
            remote::hex(&service.schema_hash)
        ));
    }
    let width = service
        .methods
        .iter()
        .map(|m| m.name.len())
        .max()
        .unwrap_or(0);
    for m in &service.methods {
        let kind = match m.kind {
            0 => "call",
            1 => "server stream",
            2 => "client stream",
            3 => "bidi stream",
            _ => "unknown kind",
        };
        let request = if m.request.is_empty() {
            "()"
        } else {
            &m.request
        };
        let response = if m.response.is_empty() {
            "()"
        } else {
            &m.response
        };
        out.push_str(&format!(
            "  @{:<4} {:<width$}  {request} -> {response}  [{kind}",
            m.ordinal, m.name
        ));
        if !m.json_name.is_empty() {
            out.push_str(&format!(", JSON-RPC {}", m.json_name));
        }
        if m.permissions != 0 {
            out.push_str(&format!(", requires {:#x}", m.permissions));
        }
        out.push_str("]\n");
    }
    out
}

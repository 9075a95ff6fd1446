//! Command-line parsing and dispatch. To add a subcommand: write `cli/<name>.rs` with an
//! `Args` struct (clap derive) and a `run(Args) -> ExitCode`, then add a variant below.

mod check;
mod layout;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// The ZAP schema compiler.
#[derive(Debug, Parser)]
#[command(name = "zapc", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Check(check::Args),
    Layout(layout::Args),
}

/// Parse the command line and run the chosen subcommand. Usage errors exit with 2 (clap).
pub fn run() -> ExitCode {
    match Cli::parse().command {
        Command::Check(args) => check::run(&args),
        Command::Layout(args) => layout::run(&args),
    }
}

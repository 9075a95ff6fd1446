//! Command-line parsing and dispatch. To add a subcommand: write `cli/<name>.rs` with an
//! `Args` struct (clap derive) and a `run(Args) -> ExitCode`, then add a variant below.

mod call;
mod check;
mod codec;
mod compat;
mod describe;
mod dynamic;
mod export;
mod fmt;
mod generate;
mod health;
mod http;
mod inputs;
mod layout;
mod openrpc;
mod remote;

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
    Generate(generate::Args),
    Check(check::Args),
    Layout(layout::Args),
    Encode(codec::EncodeArgs),
    Decode(codec::DecodeArgs),
    Openrpc(openrpc::Args),
    Compat(compat::Args),
    Export(export::Args),
    Fmt(fmt::Args),
    Call(call::Args),
    Describe(describe::Args),
    Health(health::Args),
    Http(http::Args),
}

/// Parse the command line and run the chosen subcommand. Usage errors exit with 2 (clap).
pub fn run() -> ExitCode {
    match Cli::parse().command {
        Command::Generate(args) => generate::run(&args),
        Command::Check(args) => check::run(&args),
        Command::Encode(args) => codec::encode(&args),
        Command::Decode(args) => codec::decode(&args),
        Command::Layout(args) => layout::run(&args),
        Command::Openrpc(args) => openrpc::run(&args),
        Command::Compat(args) => compat::run(&args),
        Command::Export(args) => export::run(&args),
        Command::Fmt(args) => fmt::run(&args),
        Command::Call(args) => call::run(&args),
        Command::Describe(args) => describe::run(&args),
        Command::Health(args) => health::run(&args),
        Command::Http(args) => http::run(&args),
    }
}

/// The exit of a subcommand that fails with one message: the message on stderr and exit
/// 1, or success.
fn exit_with(result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{}", message.trim_end());
            ExitCode::FAILURE
        }
    }
}

//! `zapc health ADDR`: whether a running server takes work, asked on its own wire
//! (the health methods of `zap_runtime::builtin`), once or watched.

use std::process::ExitCode;

use zap_runtime::builtin::{self, HealthStatus};

use super::remote::{self, describe_error, ConnectArgs, Failure};

/// Ask a running server whether it takes work: SERVING, NOT_SERVING (draining: it
/// stops accepting soon), SERVICE_UNKNOWN or UNKNOWN, for the whole server or one
/// service. With --watch, print every change until the server ends the stream (it
/// closes when the server stops). Usable as a probe: the exit status says whether the
/// last status was SERVING.
///
/// Exit status: 0 for SERVING, 1 for any other status or a failed connection (a
/// server of another runtime that has no health methods answers an error), 2 for a
/// usage error.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples (against `cargo run -p eth-rpc`):\n  \
    zapc health 127.0.0.1:9999\n  \
    zapc health --service Eth 127.0.0.1:9999\n  \
    zapc health --watch 127.0.0.1:9999          # prints SERVING, then NOT_SERVING at SIGTERM")]
pub struct Args {
    /// The server: HOST:PORT, or unix:PATH for one on a unix socket.
    #[arg(value_name = "ADDR")]
    addr: String,
    /// The service (interface name) to ask about; the whole server by default.
    #[arg(long, value_name = "NAME", default_value = "")]
    service: String,
    /// Keep the stream open and print each status as it changes.
    #[arg(long)]
    watch: bool,
    #[command(flatten)]
    connect: ConnectArgs,
}

/// Run `zapc health`.
pub fn run(args: &Args) -> ExitCode {
    match try_run(args) {
        Ok(HealthStatus::Serving) => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(failure) => failure.report(),
    }
}

fn try_run(args: &Args) -> Result<HealthStatus, Failure> {
    let runtime = remote::runtime()?;
    runtime.block_on(async {
        let client = args.connect.connect(&args.addr, None).await?;
        let asked = |e: zap_runtime::ClientError| {
            Failure::Call(format!(
                "{} does not answer the health methods (ordinals 0xFFFFFF02, 0xFFFFFF03): {}",
                args.addr,
                describe_error(&e)
            ))
        };
        let status = if args.watch {
            let mut watch = builtin::watch(&client, &args.service)
                .await
                .map_err(asked)?;
            let mut last = None;
            while let Some(status) = watch.next().await.map_err(asked)? {
                use std::io::Write as _;
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "{status}");
                let _ = out.flush();
                last = Some(status);
            }
            last.ok_or_else(|| {
                Failure::Call(format!(
                    "{} ended the health stream without a status",
                    args.addr
                ))
            })?
        } else {
            let status = builtin::check(&client, &args.service)
                .await
                .map_err(asked)?;
            println!("{status}");
            status
        };
        client.close().await;
        Ok(status)
    })
}

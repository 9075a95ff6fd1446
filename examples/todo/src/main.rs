//! The to-do service: `todo [ZAP_ADDR] [HTTP_ADDR]`, by default ZAP/TCP on
//! 127.0.0.1:9000 and JSON-RPC on http://127.0.0.1:8000/rpc, until Ctrl-C or SIGTERM.

use std::process::ExitCode;
use std::time::Duration;

use tokio::net::TcpListener;
use zap_runtime::shutdown::Shutdown;

const USAGE: &str = "\
usage: todo [ZAP_ADDR] [HTTP_ADDR]

Serves a to-do list (schemas/todo.zap) until Ctrl-C or SIGTERM:
  ZAP_ADDR   ZAP/TCP address      (default 127.0.0.1:9000; port 0 picks a free port)
  HTTP_ADDR  JSON-RPC over HTTP   (default 127.0.0.1:8000; POST /rpc)";

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("todo: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return Ok(());
    }
    if args.len() > 2 {
        return Err(format!("too many arguments\n{USAGE}").into());
    }
    let zap_addr = args.first().map_or("127.0.0.1:9000", String::as_str);
    let http_addr = args.get(1).map_or("127.0.0.1:8000", String::as_str);

    let zap = TcpListener::bind(zap_addr)
        .await
        .map_err(|e| format!("cannot listen on {zap_addr} for ZAP/TCP: {e}"))?;
    let http = TcpListener::bind(http_addr)
        .await
        .map_err(|e| format!("cannot listen on {http_addr} for HTTP: {e}"))?;
    println!(
        "todo serving ZAP/TCP on {} and JSON-RPC on http://{}/rpc",
        zap.local_addr()?,
        http.local_addr()?
    );

    let shutdown = Shutdown::on_signals(Duration::ZERO)?;
    todo::serve(zap, http, shutdown.token()).await?;
    Ok(())
}

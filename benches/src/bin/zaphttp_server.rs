//! The same axum `Router` served over HTTP over ZAP frames (zaphttp) or over HTTP/1.1
//! (hyper, keep-alive), for `benches/zaphttp_rounds.sh` (the router:
//! `zap_benches::http_echo`):
//!
//! ```text
//! zaphttp_server zaphttp --addr 127.0.0.1:19661
//! zaphttp_server http1 --addr 127.0.0.1:19662
//! ```
//!
//! Runs until killed.

use clap::Parser;
use zap_benches::http_echo::{app, serve_http1};

#[derive(Parser)]
struct Args {
    /// `zaphttp` or `http1`.
    #[arg(value_parser = ["zaphttp", "http1"])]
    transport: String,
    #[arg(long, default_value = "127.0.0.1:19661")]
    addr: String,
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args = Args::parse();
    let listener = tokio::net::TcpListener::bind(&args.addr).await?;
    eprintln!(
        "zaphttp_server {} on {}",
        args.transport,
        listener.local_addr()?
    );
    if args.transport == "zaphttp" {
        let shutdown = zap_runtime::server::CancellationToken::new();
        let config = zap_runtime::zaphttp::ServerConfig::default();
        return zap_runtime::zaphttp::serve(listener, app(), config, shutdown).await;
    }
    serve_http1(listener, app()).await
}

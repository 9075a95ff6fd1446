//! Load generator: N connections, each with up to D requests in flight, for a time or
//! a number of requests, against the example server (ZAP/TCP or JSON-RPC/HTTP) or a
//! baseline. Every answer is checked; any error or wrong answer fails the run
//! (exit status 1). Prints requests per second and latency percentiles.
//!
//! ```text
//! loadgen --target zap  --addr 127.0.0.1:9999 -c 64 -d 1  --seconds 5
//! loadgen --target zap-node --addr 127.0.0.1:9999 -c 64 -d 16 --seconds 5
//! loadgen --target zap  --addr 127.0.0.1:9999 -c 64 -d 16 --tls-ca ca.pem --server-name localhost
//! loadgen --target http --addr 127.0.0.1:8545 -c 64 -d 16 --requests 100000
//! loadgen --target grpc --addr 127.0.0.1:50051 -c 64 -d 1 --rate 20000   # --features rpc-peers
//! ```

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use zap_benches::load::{run, Length, LoadConfig, Target};

#[derive(Debug, Parser)]
#[command(about, long_about = None)]
struct Args {
    /// What to drive (and how to check its answers).
    #[arg(long, value_enum)]
    target: Target,
    /// Server address (loopback only).
    #[arg(long)]
    addr: SocketAddr,
    /// Connections.
    #[arg(short = 'c', long, default_value_t = 64)]
    connections: usize,
    /// Requests in flight per connection (1 = no pipelining).
    #[arg(short = 'd', long, default_value_t = 1)]
    depth: usize,
    /// Measure for this many seconds (after the warm-up).
    #[arg(long, default_value_t = 5.0, conflicts_with = "requests")]
    seconds: f64,
    /// Warm-up seconds, not measured.
    #[arg(long, default_value_t = 1.0)]
    warmup: f64,
    /// Send exactly this many requests instead of running for a time.
    #[arg(long)]
    requests: Option<u64>,
    /// Also write the report as JSON to this file.
    #[arg(long)]
    json: Option<std::path::PathBuf>,
    /// Fail if no answer arrives on a connection for this many seconds.
    #[arg(long, default_value_t = 10.0)]
    stall_timeout: f64,
    /// Connect over TLS (ZAP targets), trusting the CA certificates in this PEM file.
    #[arg(long, value_name = "PEM")]
    tls_ca: Option<std::path::PathBuf>,
    /// The server name to check the certificate against (with --tls-ca).
    #[arg(long, default_value = "localhost", requires = "tls_ca")]
    server_name: String,
    /// Send this many calls per second in all, latencies counted from when each call was
    /// due (the client-library targets: zap-client, grpc, tarpc, capnp).
    #[arg(long, value_name = "CALLS_PER_S")]
    rate: Option<f64>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if !args.addr.ip().is_loopback() {
        eprintln!("loadgen: {} is not a loopback address; refusing", args.addr);
        return ExitCode::from(2);
    }
    if args.rate.is_some() && !args.target.through_a_client() {
        eprintln!("loadgen: --rate applies to the client-library targets only");
        std::process::exit(2);
    }
    if args.connections == 0 || args.depth == 0 {
        eprintln!("loadgen: --connections and --depth must be at least 1");
        return ExitCode::from(2);
    }
    let config = LoadConfig {
        target: args.target,
        addr: args.addr,
        connections: args.connections,
        depth: args.depth,
        length: match args.requests {
            Some(n) => Length::Requests(n),
            None => Length::Time {
                warmup: Duration::from_secs_f64(args.warmup),
                measure: Duration::from_secs_f64(args.seconds),
            },
        },
        stall_timeout: Duration::from_secs_f64(args.stall_timeout),
        rate: args.rate,
        tls: match &args.tls_ca {
            None => None,
            Some(ca) => match zap_runtime::tls::ClientTls::builder(args.server_name.as_str())
                .ca_pem_file(ca)
                .build()
            {
                Ok(tls) => Some(tls),
                Err(e) => {
                    eprintln!("loadgen: --tls-ca: {e}");
                    return ExitCode::FAILURE;
                }
            },
        },
    };
    // One thread: the generator is pinned to one core and should not compete with itself.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("loadgen: cannot start tokio: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(&config)) {
        Ok(report) => {
            println!("{report}");
            if let Some(path) = &args.json {
                let json = serde_json::to_string(&report).unwrap_or_default();
                if let Err(e) = std::fs::write(path, json) {
                    eprintln!("loadgen: cannot write {}: {e}", path.display());
                    return ExitCode::FAILURE;
                }
            }
            if report.requests == 0 {
                eprintln!("loadgen: no request was measured");
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!(
                "loadgen: FAILED ({} against {}): {e}",
                config.target.name(),
                config.addr
            );
            ExitCode::FAILURE
        }
    }
}

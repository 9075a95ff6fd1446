//! Handshakes per second: connect, make one call (`chainId`), close; again and again,
//! from several tasks at once, for a time. Over QUIC or TCP+TLS, offering only the key
//! exchange group asked for (so the group agreed is known: `X25519MLKEM768` or
//! `X25519`). Every answer is checked; any failure fails the run (exit status 1).
//!
//! ```text
//! handshakes --transport quic --addr 127.0.0.1:9996 --tls-ca ca.pem --group pq
//! handshakes --transport tls  --addr 127.0.0.1:9997 --tls-ca ca.pem --group x25519 -c 4
//! ```

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Parser, ValueEnum};
use zap_runtime::client::{Client, ClientConfig};
use zap_runtime::quic::{QuicClient, QuicClientConfig};
use zap_runtime::tls::{ClientTls, KeyExchange};
use zap_runtime::Transport;

/// The method ordinal of `chainId`.
const CHAIN_ID: u32 = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Over {
    /// ZAP over QUIC (ALPN zap/1).
    Quic,
    /// ZAP over TCP with TLS 1.3.
    Tls,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Group {
    /// X25519MLKEM768 only.
    Pq,
    /// X25519 only.
    X25519,
}

#[derive(Clone, Debug, Parser)]
#[command(about, long_about = None)]
struct Args {
    /// The transport to connect over.
    #[arg(long, value_enum)]
    transport: Over,
    /// Server address (loopback only).
    #[arg(long)]
    addr: SocketAddr,
    /// Trust the CA certificates in this PEM file.
    #[arg(long, value_name = "PEM")]
    tls_ca: std::path::PathBuf,
    /// The server name to check the certificate against.
    #[arg(long, default_value = "localhost")]
    server_name: String,
    /// The one key exchange group offered.
    #[arg(long, value_enum)]
    group: Group,
    /// Tasks connecting at once.
    #[arg(short = 'c', long, default_value_t = 8)]
    connections: usize,
    /// Measure for this many seconds (after the warm-up).
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
    /// Warm-up seconds, not measured.
    #[arg(long, default_value_t = 1.0)]
    warmup: f64,
    /// Also write the report as JSON to this file.
    #[arg(long)]
    json: Option<std::path::PathBuf>,
}

#[derive(Debug, serde::Serialize)]
struct Report {
    transport: &'static str,
    group: &'static str,
    handshakes: u64,
    seconds: f64,
    per_s: f64,
    p50_us: f64,
    p99_us: f64,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if !args.addr.ip().is_loopback() {
        eprintln!(
            "handshakes: {} is not a loopback address; refusing",
            args.addr
        );
        return ExitCode::from(2);
    }
    let key_exchange = match args.group {
        Group::Pq => KeyExchange::PostQuantumOnly,
        Group::X25519 => KeyExchange::Classical,
    };
    let tls = match ClientTls::builder(args.server_name.as_str())
        .ca_pem_file(&args.tls_ca)
        .key_exchange(key_exchange)
        .build()
    {
        Ok(tls) => tls,
        Err(e) => {
            eprintln!("handshakes: --tls-ca: {e}");
            return ExitCode::FAILURE;
        }
    };
    // One thread: the client is pinned to one core and should not compete with itself.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("handshakes: cannot start tokio: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(&args, tls)) {
        Ok(report) => {
            println!(
                "{} {}: {} handshakes in {:.1} s: {:.0}/s, p50 {:.0} us, p99 {:.0} us",
                report.transport,
                report.group,
                report.handshakes,
                report.seconds,
                report.per_s,
                report.p50_us,
                report.p99_us
            );
            if let Some(path) = &args.json {
                let json = serde_json::to_string(&report).unwrap_or_default();
                if let Err(e) = std::fs::write(path, json) {
                    eprintln!("handshakes: cannot write {}: {e}", path.display());
                    return ExitCode::FAILURE;
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("handshakes: FAILED against {}: {e}", args.addr);
            ExitCode::FAILURE
        }
    }
}

/// Connect, call `chainId`, close: the time it took.
async fn once(args: &Args, tls: &ClientTls) -> Result<Duration, String> {
    let start = Instant::now();
    let answer = match args.transport {
        Over::Quic => {
            let client = QuicClient::connect(args.addr, tls, QuicClientConfig::default())
                .await
                .map_err(|e| format!("QUIC connect: {e}"))?;
            let answer = client.call(CHAIN_ID, &[]).await;
            // Closed when dropped (CONNECTION_CLOSE goes out from the endpoint's
            // driver); `close` would also wait out QUIC's draining period.
            drop(client);
            answer
        }
        Over::Tls => {
            let config = ClientConfig {
                tls: Some(tls.clone()),
                ..ClientConfig::default()
            };
            let client = Client::connect_with(args.addr, config)
                .await
                .map_err(|e| format!("TLS connect: {e}"))?;
            client.call(CHAIN_ID, &[]).await
        }
    };
    let answer = answer.map_err(|e| format!("chainId: {e}"))?;
    if answer.len() < 8 {
        return Err(format!("chainId answered {} bytes", answer.len()));
    }
    Ok(start.elapsed())
}

async fn run(args: &Args, tls: ClientTls) -> Result<Report, String> {
    let warm_until = Instant::now() + Duration::from_secs_f64(args.warmup);
    let measure = Duration::from_secs_f64(args.seconds);
    let mut tasks = tokio::task::JoinSet::new();
    let args = std::sync::Arc::new(args.clone());
    let tls = std::sync::Arc::new(tls);
    let started = std::sync::Arc::new(std::sync::OnceLock::<Instant>::new());
    for _ in 0..args.connections {
        let (args, tls, started) = (args.clone(), tls.clone(), started.clone());
        tasks.spawn(async move {
            let mut times = Vec::new();
            loop {
                let took = once(&args, &tls).await?;
                let now = Instant::now();
                if now < warm_until {
                    continue;
                }
                let start = *started.get_or_init(|| now);
                if now.duration_since(start) >= measure {
                    return Ok::<_, String>(times);
                }
                times.push(took);
            }
        });
    }
    let mut times = Vec::new();
    while let Some(done) = tasks.join_next().await {
        times.extend(done.map_err(|e| e.to_string())??);
    }
    let seconds = started
        .get()
        .map_or(0.0, |s| s.elapsed().as_secs_f64())
        .max(args.seconds);
    times.sort_unstable();
    let quantile = |q: f64| {
        times
            .get(((times.len() as f64 * q) as usize).min(times.len().saturating_sub(1)))
            .map_or(0.0, |d| d.as_secs_f64() * 1e6)
    };
    Ok(Report {
        transport: match args.transport {
            Over::Quic => "quic",
            Over::Tls => "tls",
        },
        group: match args.group {
            Group::Pq => "X25519MLKEM768",
            Group::X25519 => "X25519",
        },
        handshakes: times.len() as u64,
        seconds,
        per_s: times.len() as f64 / args.seconds,
        p50_us: quantile(0.5),
        p99_us: quantile(0.99),
    })
}

//! Notification fan-out: N WebSocket subscribers to `newHeads` (`eth_subscribe`), and
//! for each new head the time from its first delivery to its last, over all
//! subscribers: what it costs the server to tell everyone. Works against `eth-rpc
//! --block-time` and against any server that answers `eth_subscribe` and sends
//! `eth_subscription` notifications with a `number` (the Node baseline,
//! `benches/node/ws_fanout.mjs`).
//!
//! ```text
//! fanout --addr 127.0.0.1:8545 --subscribers 1000 --heads 20 --json out.json
//! ```
//!
//! Prints (and writes as JSON) the median, p99 and maximum spread in microseconds, and
//! how many deliveries were skipped (a subscriber that falls behind gets the newest head,
//! not every one). The head each subscriber receives first (the
//! head at the time it subscribed) is not counted.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;

#[derive(Debug, Parser)]
#[command(about, long_about = None)]
struct Args {
    /// The server's HTTP (WebSocket) address, loopback only.
    #[arg(long)]
    addr: SocketAddr,
    /// Subscribers, one connection each.
    #[arg(long, default_value_t = 1000)]
    subscribers: usize,
    /// Heads to measure, after the first one every subscriber has seen.
    #[arg(long, default_value_t = 20)]
    heads: usize,
    /// Give up after this many seconds.
    #[arg(long, default_value_t = 120.0)]
    timeout: f64,
    /// Also write the report as JSON to this file.
    #[arg(long)]
    json: Option<std::path::PathBuf>,
}

/// (subscriber, block number, when it arrived).
type Seen = (usize, u64, Instant);

async fn subscriber(
    index: usize,
    addr: SocketAddr,
    ready: tokio::sync::mpsc::Sender<()>,
    seen: tokio::sync::mpsc::UnboundedSender<Seen>,
) -> Result<(), String> {
    let tcp = TcpStream::connect(addr)
        .await
        .map_err(|e| format!("subscriber {index}: connect: {e}"))?;
    let (mut socket, _) = tokio_tungstenite::client_async(format!("ws://{addr}/"), tcp)
        .await
        .map_err(|e| format!("subscriber {index}: upgrade: {e}"))?;
    let request = r#"{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}"#;
    socket
        .send(Message::text(request))
        .await
        .map_err(|e| format!("subscriber {index}: send: {e}"))?;
    let mut subscribed = false;
    while let Some(frame) = socket.next().await {
        let at = Instant::now();
        let Message::Text(text) = frame.map_err(|e| format!("subscriber {index}: {e}"))? else {
            continue;
        };
        let value: serde_json::Value =
            serde_json::from_str(text.as_str()).map_err(|e| format!("{e}: {text}"))?;
        if !subscribed {
            if value.get("result").is_none() {
                return Err(format!("subscriber {index}: not subscribed: {text}"));
            }
            subscribed = true;
            let _ = ready.send(()).await;
            continue;
        }
        let number = value["params"]["result"]["number"]
            .as_str()
            .and_then(|n| u64::from_str_radix(n.trim_start_matches("0x"), 16).ok())
            .or_else(|| value["params"]["result"]["number"].as_u64())
            .ok_or_else(|| format!("a notification without a number: {text}"))?;
        if seen.send((index, number, at)).is_err() {
            return Ok(());
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let args = Args::parse();
    if !args.addr.ip().is_loopback() {
        eprintln!("fanout: {} is not a loopback address; refusing", args.addr);
        return ExitCode::from(2);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    match runtime.block_on(measure(&args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fanout: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn measure(args: &Args) -> Result<(), String> {
    let (ready_tx, mut ready) = tokio::sync::mpsc::channel(args.subscribers);
    let (seen_tx, mut seen) = tokio::sync::mpsc::unbounded_channel();
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..args.subscribers {
        let (ready_tx, seen_tx, addr) = (ready_tx.clone(), seen_tx.clone(), args.addr);
        tasks.spawn(subscriber(i, addr, ready_tx, seen_tx));
    }
    drop((ready_tx, seen_tx));
    let deadline = Instant::now() + Duration::from_secs_f64(args.timeout);
    for _ in 0..args.subscribers {
        tokio::select! {
            got = ready.recv() => if got.is_none() { break },
            Some(Ok(Err(e))) = tasks.join_next() => return Err(e),
            () = tokio::time::sleep_until(deadline.into()) => return Err("subscribing timed out".into()),
        }
    }
    // Heads after every subscriber is in. A subscriber that falls behind skips to the newest head (as
    // `newHeads` does), so a head may reach fewer than all: those are counted as missed.
    // The run ends when every subscriber has seen the last measured head or a later one.
    // What arrived while subscribers were still joining is not counted; neither is the
    // head after the newest of those, which may have been on its way as the last joined.
    let mut newest = 0;
    while let Ok((_, number, _)) = seen.try_recv() {
        newest = newest.max(number);
    }
    let mut first_counted: Option<u64> = (newest > 0).then_some(newest + 2);
    let mut arrivals: HashMap<u64, Vec<Instant>> = HashMap::new();
    let mut latest = vec![0u64; args.subscribers];
    let mut behind = args.subscribers;
    while behind > 0 {
        let (who, number, at) = tokio::select! {
            got = seen.recv() => got.ok_or("every subscriber stopped")?,
            () = tokio::time::sleep_until(deadline.into()) => {
                return Err(format!("{behind} subscribers did not see {} more heads in time", args.heads));
            }
        };
        let first = *first_counted.get_or_insert(number + 2);
        let last = first + args.heads as u64 - 1;
        if (first..=last).contains(&number) {
            arrivals.entry(number).or_default().push(at);
        }
        if latest[who] < last && number >= last {
            behind -= 1;
        }
        latest[who] = latest[who].max(number);
    }
    tasks.abort_all();
    let first = first_counted.unwrap_or_default();
    let mut spreads: Vec<u64> = (first..first + args.heads as u64)
        .filter_map(|n| {
            let times = arrivals.get(&n)?;
            let (lo, hi) = (times.iter().min()?, times.iter().max()?);
            Some((*hi - *lo).as_micros() as u64)
        })
        .collect();
    let delivered: usize = arrivals.values().map(Vec::len).sum();
    let missed = args.heads * args.subscribers - delivered;
    spreads.sort_unstable();
    let pick = |q: f64| spreads[((spreads.len() - 1) as f64 * q).round() as usize];
    let report = serde_json::json!({
        "subscribers": args.subscribers,
        "heads": args.heads,
        "spread_us": {"median": pick(0.5), "p99": pick(0.99), "max": pick(1.0)},
        "missed": missed,
        "spreads_us": spreads,
    });
    println!(
        "{} subscribers, {} heads: first to last delivery median {} us, p99 {} us, max {} us; \
         {missed} of {} deliveries skipped by subscribers that fell behind",
        args.subscribers,
        args.heads,
        pick(0.5),
        pick(0.99),
        pick(1.0),
        args.heads * args.subscribers
    );
    if let Some(path) = &args.json {
        std::fs::write(path, report.to_string()).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

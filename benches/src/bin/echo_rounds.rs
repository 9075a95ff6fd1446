//! Echoing a large `bytes` field (`echo` of `benches/schemas/records.zap`) over
//! `--connections` connections, each one call in flight, against two servers in this
//! process: one writing large answers vectored (`vectored_write_min` 0: the headers from
//! the write buffer, the message from the handler's buffer) and one copying every answer
//! into its write buffer (`vectored_write_min` off). Paired rounds: in each round both
//! servers are driven for `--seconds`, back to back (alternating which goes first); the
//! round's ratio is vectored calls/s over copied calls/s. Also reports the runtime's
//! copied bytes per call (`zap_runtime::copies`, both sides of the connection) and the
//! median of the per-round ratios. Client and servers share this process and its cores.
//!
//! `echo_rounds [--size 1048576] [--connections 16] [--rounds 5] [--seconds 1] [--json PATH]`

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use zap_benches::generated::records::{Payload, RecordsClient, RecordsService};
use zap_benches::records::Handler;
use zap_runtime::client::Client;
use zap_runtime::copies;
use zap_runtime::server::{CancellationToken, Server, ServerConfig};

#[derive(Debug, Parser)]
#[command(about, long_about = None)]
struct Args {
    /// Bytes of the echoed field.
    #[arg(long, default_value_t = 1 << 20)]
    size: usize,
    /// Connections, each with one call in flight.
    #[arg(long, default_value_t = 16)]
    connections: usize,
    /// Paired rounds.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// Seconds each server is driven per round.
    #[arg(long, default_value_t = 1.0)]
    seconds: f64,
    /// Also write the results as JSON to this file.
    #[arg(long)]
    json: Option<std::path::PathBuf>,
}

/// One measured run: calls per second and copied bytes per call.
struct Run {
    calls_per_s: f64,
    copied_per_call: f64,
}

async fn serve(vectored_write_min: usize) -> (std::net::SocketAddr, CancellationToken) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("address");
    let config = ServerConfig {
        vectored_write_min,
        ..ServerConfig::default()
    };
    let stop = CancellationToken::new();
    tokio::spawn(
        Server::new(listener, Arc::new(RecordsService::new(Handler)), config).run(stop.clone()),
    );
    (addr, stop)
}

/// Drive `clients` for `seconds`, every answer checked.
async fn drive(clients: &[RecordsClient<Client>], payload: &Arc<Payload>, seconds: f64) -> Run {
    let calls = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let copied_before = copies::copied_bytes();
    let start = Instant::now();
    let tasks: Vec<_> = clients
        .iter()
        .map(|client| {
            let (client, payload) = (client.clone(), Arc::clone(payload));
            let (calls, stop) = (Arc::clone(&calls), Arc::clone(&stop));
            tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    let answer = client.echo_owned(&payload).await.expect("echo");
                    assert!(answer.get().data() == payload.data, "a wrong echo");
                    calls.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
    stop.store(true, Ordering::Relaxed);
    for t in tasks {
        t.await.expect("a client task");
    }
    let elapsed = start.elapsed().as_secs_f64();
    let calls = calls.load(Ordering::Relaxed);
    Run {
        calls_per_s: calls as f64 / elapsed,
        copied_per_call: (copies::copied_bytes() - copied_before) as f64 / calls.max(1) as f64,
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args = Args::parse();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let payload = Arc::new(Payload {
            data: (0..args.size).map(|i| (i * 7) as u8).collect(),
        });
        let mut sides = Vec::new();
        for min in [0, usize::MAX] {
            let (addr, stop) = serve(min).await;
            let mut clients = Vec::new();
            for _ in 0..args.connections {
                let client = Client::connect(addr).await.expect("connect");
                clients.push(RecordsClient::new(client));
            }
            // Warm-up: buffers grown, connections busy.
            drive(&clients, &payload, args.seconds / 4.0).await;
            sides.push((clients, stop));
        }
        let mut ratios = Vec::new();
        let (mut vectored, mut copied) = (Vec::new(), Vec::new());
        println!("round  vectored calls/s  copied calls/s  ratio  copied bytes/call (vectored, copied)");
        for round in 1..=args.rounds {
            let order: [usize; 2] = if round % 2 == 0 { [1, 0] } else { [0, 1] };
            let mut runs: [Option<Run>; 2] = [None, None];
            for side in order {
                runs[side] = Some(drive(&sides[side].0, &payload, args.seconds).await);
            }
            let [Some(v), Some(c)] = runs else {
                unreachable!("both sides ran")
            };
            let ratio = v.calls_per_s / c.calls_per_s;
            println!(
                "{round:>5}  {:>16.1}  {:>14.1}  {ratio:.3}  {:.0}, {:.0}",
                v.calls_per_s, c.calls_per_s, v.copied_per_call, c.copied_per_call
            );
            ratios.push(ratio);
            vectored.push(v);
            copied.push(c);
        }
        let ratio = median(ratios.clone());
        let v_rate = median(vectored.iter().map(|r| r.calls_per_s).collect());
        let c_rate = median(copied.iter().map(|r| r.calls_per_s).collect());
        let v_copied = median(vectored.iter().map(|r| r.copied_per_call).collect());
        let c_copied = median(copied.iter().map(|r| r.copied_per_call).collect());
        println!(
            "median of {} rounds ({} connections, {} bytes): vectored {v_rate:.1} calls/s, copied {c_rate:.1} calls/s, ratio {ratio:.3}; copied bytes per call {v_copied:.0} vs {c_copied:.0}",
            args.rounds, args.connections, args.size
        );
        if let Some(path) = &args.json {
            let json = serde_json::json!({
                "size": args.size,
                "connections": args.connections,
                "rounds": args.rounds,
                "seconds": args.seconds,
                "vectored_calls_per_s": v_rate,
                "copied_calls_per_s": c_rate,
                "ratio_median": ratio,
                "ratios": ratios,
                "vectored_copied_bytes_per_call": v_copied,
                "copied_copied_bytes_per_call": c_copied,
            });
            std::fs::write(path, serde_json::to_string_pretty(&json).expect("json"))
                .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        }
        for (_, stop) in sides {
            stop.cancel();
        }
    });
}

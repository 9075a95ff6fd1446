//! The load of the soak with faults (`deploy/soak.sh`): every kind of client a fleet
//! has, each checking every answer against the ledger, for a number of minutes, while
//! the script restarts and kills servers under it. Unlike `loadgen`, a failure does
//! not end the run: it is counted by kind, and the client goes on (reconnecting, and
//! sending an idempotent call again) as a production client would.
//!
//! ```text
//! soak --zap 127.0.0.1:9999 --http 127.0.0.1:8545 --quic 127.0.0.1:9301,127.0.0.1:9302 \
//!      --ca ca.pem --minutes 60 --report soak.json
//! ```
//!
//! * ZAP/TCP: `--callers` tasks over one reconnecting, pipelined connection to `--zap`
//!   (HAProxy in the soak), `eth_getBalance` declared idempotent (sent again after a
//!   lost connection, within the call timeout);
//! * JSON-RPC over HTTP/1.1 keep-alive to `--http`, each caller on its own connection,
//!   a request lost with its connection sent again on a new one;
//! * WebSocket subscribers to `newHeads` on `--http` (`--subscribers`), each checking
//!   that the heads it gets are consecutive, and subscribing again when its socket
//!   closes;
//! * ZAP over QUIC to each `--quic` address (TLS trusting `--ca`), a reconnecting
//!   connection each, `eth_getBalance` sent again after a lost connection as over TCP.
//!
//! Every 10 s a line of counts goes to stdout; at the end the totals go to `--report`
//! (JSON). Any wrong answer ends the run with status 1 at once: a soak may lose
//! answers to a SIGKILL, never get a wrong one.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Parser;
use eth_rpc::eth::{BalanceRequest, EthClient, EthService};
use eth_rpc::ledger::Ledger;
use eth_rpc::LedgerEth;
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use zap_runtime::client::{ClientConfig, Connection, ReconnectConfig, Reconnecting, Retry};
use zap_runtime::quic::QuicClientConfig;
use zap_runtime::tls::ClientTls;
use zap_runtime::{ClientError, Transport};

#[derive(Debug, Parser)]
#[command(about = "The checked, fault-tolerant load of deploy/soak.sh")]
struct Args {
    /// ZAP/TCP address (the balancer's).
    #[arg(long)]
    zap: SocketAddr,
    /// HTTP address (the balancer's): JSON-RPC and WebSocket.
    #[arg(long)]
    http: SocketAddr,
    /// QUIC addresses, comma-separated (each server's own; QUIC is not balanced).
    #[arg(long, value_delimiter = ',')]
    quic: Vec<SocketAddr>,
    /// The CA (or self-signed certificate) the QUIC servers' certificates are checked
    /// against.
    #[arg(long, value_name = "PEM")]
    ca: Option<PathBuf>,
    /// How long to run.
    #[arg(long, default_value_t = 60.0)]
    minutes: f64,
    /// Callers per kind of client (ZAP, HTTP, QUIC per address).
    #[arg(long, default_value_t = 8)]
    callers: u64,
    /// WebSocket `newHeads` subscribers.
    #[arg(long, default_value_t = 4)]
    subscribers: u64,
    /// Where to write the totals (JSON).
    #[arg(long)]
    report: PathBuf,
}

/// Answers checked and failures by kind, per client kind.
#[derive(Default)]
struct Counts {
    ok: Mutex<BTreeMap<&'static str, u64>>,
    failed: Mutex<BTreeMap<String, u64>>,
}

impl Counts {
    fn ok(&self, kind: &'static str, n: u64) {
        *self.ok.lock().unwrap().entry(kind).or_default() += n;
    }

    fn failed(&self, kind: &'static str, why: &str) {
        *self
            .failed
            .lock()
            .unwrap()
            .entry(format!("{kind}: {why}"))
            .or_default() += 1;
    }

    fn json(&self) -> Value {
        json!({
            "answered_and_checked": *self.ok.lock().unwrap(),
            "failed": *self.failed.lock().unwrap(),
        })
    }
}

/// A failure's kind, without what varies between two of the same kind.
fn kind(e: &ClientError) -> &'static str {
    match e {
        ClientError::Closed(_) => "connection closed",
        ClientError::Timeout(_) => "timeout",
        ClientError::Io(_) => "i/o error",
        ClientError::Status { .. } => "error status",
        ClientError::App(_) => "application error",
        ClientError::Protocol(_) => "protocol error",
        _ => "other",
    }
}

/// A wrong answer: the soak fails at once.
fn wrong(what: String) -> ! {
    eprintln!("soak: WRONG ANSWER: {what}");
    std::process::exit(1);
}

/// One checked `eth_getBalance` through `client` (caller `caller`'s `n`-th).
async fn checked<T: Transport>(
    client: &EthClient<T>,
    ledger: &Ledger,
    caller: u64,
    n: u64,
) -> Result<(), ClientError> {
    let account = *ledger
        .address(((caller * 7919 + n) % 1000) as usize)
        .expect("a seeded account");
    let id = caller << 32 | n;
    let answer = client
        .get_balance(&BalanceRequest {
            id,
            block: n,
            account,
        })
        .await?;
    let want = ledger.account(&account);
    if answer.id != id || answer.balance != want.balance || answer.nonce != want.nonce {
        wrong(format!("call {id}: {answer:?}"));
    }
    Ok(())
}

/// ZAP/TCP callers on one reconnecting connection until `end`.
async fn zap(addr: SocketAddr, callers: u64, end: Instant, counts: Arc<Counts>) {
    let conn = Reconnecting::new(
        addr.to_string(),
        ReconnectConfig {
            client: ClientConfig {
                call_timeout: Duration::from_secs(10),
                ..ClientConfig::default()
            },
            retry: Retry::idempotent(&[EthService::<LedgerEth>::GET_BALANCE], 5),
            ..ReconnectConfig::default()
        },
    );
    on_connection(conn, "zap", 0, callers, end, counts).await;
}

/// ZAP over QUIC to `addr`: callers on one reconnecting connection until `end`, the
/// idempotent call sent again after a connection failure, as over ZAP/TCP.
async fn quic(addr: SocketAddr, tls: ClientTls, callers: u64, end: Instant, counts: Arc<Counts>) {
    let conn = Reconnecting::quic(
        addr,
        tls,
        QuicClientConfig {
            call_timeout: Duration::from_secs(10),
            ..QuicClientConfig::default()
        },
        ReconnectConfig {
            retry: Retry::idempotent(&[EthService::<LedgerEth>::GET_BALANCE], 5),
            ..ReconnectConfig::default()
        },
    );
    on_connection(conn, "quic", 1 << 20, callers, end, counts).await;
}

/// `callers` tasks calling through `conn` until `end`, counted as `label`; callers are
/// numbered from `first` (their numbers pick the accounts and make the request ids).
/// A failed call is counted and the caller goes on after 20 ms.
async fn on_connection<C: Connection>(
    conn: Reconnecting<C>,
    label: &'static str,
    first: u64,
    callers: u64,
    end: Instant,
    counts: Arc<Counts>,
) {
    conn.connected(Duration::from_secs(30)).await;
    let client = Arc::new(EthClient::new(conn));
    let tasks: Vec<_> = (first..first + callers)
        .map(|caller| {
            let (client, counts) = (client.clone(), counts.clone());
            tokio::spawn(async move {
                let ledger = Ledger::default();
                let mut n = 0;
                while Instant::now() < end {
                    match checked(&client, &ledger, caller, n).await {
                        Ok(()) => counts.ok(label, 1),
                        Err(e) => {
                            counts.failed(label, kind(&e));
                            tokio::time::sleep(Duration::from_millis(20)).await;
                        }
                    }
                    n += 1;
                }
            })
        })
        .collect();
    for task in tasks {
        let _ = task.await;
    }
}

/// One JSON-RPC caller on a keep-alive HTTP/1.1 connection, connecting again (and
/// sending the lost request again: it is idempotent) when the connection fails.
async fn http(addr: SocketAddr, caller: u64, end: Instant, counts: Arc<Counts>) {
    let ledger = Ledger::default();
    let mut conn: Option<BufReader<TcpStream>> = None;
    let mut n = 0u64;
    while Instant::now() < end {
        let account = *ledger
            .address(((caller * 7919 + n) % 1000) as usize)
            .expect("a seeded account");
        let id = caller << 32 | n;
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"eth_getBalance","params":["{}","latest"]}}"#,
            zap_runtime::json::to_hex(&account)
        );
        let stream = match conn.take() {
            Some(stream) => stream,
            None => match TcpStream::connect(addr).await {
                Ok(stream) => BufReader::new(stream),
                Err(e) => {
                    counts.failed("http", &format!("connect: {}", e.kind()));
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let exchanged =
            tokio::time::timeout(Duration::from_secs(10), post(stream, addr, &body)).await;
        match exchanged {
            Ok(Ok((stream, status, answer))) => {
                conn = Some(stream);
                if status != 200 {
                    counts.failed("http", &format!("status {status}"));
                    continue;
                }
                let value: Value = serde_json::from_slice(&answer)
                    .unwrap_or_else(|e| wrong(format!("HTTP answer to {id} is not JSON: {e}")));
                let want = format!("{:#x}", ledger.account(&account).balance);
                if value["id"] != id || value["result"] != want.as_str() {
                    wrong(format!("HTTP call {id}: {value}"));
                }
                counts.ok("http", 1);
                n += 1;
            }
            // The connection failed: the request is sent again on a new one.
            Ok(Err(e)) => counts.failed("http", &format!("connection: {}", e.kind())),
            Err(_) => counts.failed("http", "timeout"),
        }
    }
}

/// POST `body` to `/`: the connection back, the status and the body.
async fn post(
    mut stream: BufReader<TcpStream>,
    addr: SocketAddr,
    body: &str,
) -> std::io::Result<(BufReader<TcpStream>, u16, Vec<u8>)> {
    let request = format!(
        "POST / HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.get_mut().write_all(request.as_bytes()).await?;
    let mut line = String::new();
    let mut status = 0;
    let mut length = 0usize;
    let mut close = false;
    loop {
        line.clear();
        if stream.read_line(&mut line).await? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some(code) = header.strip_prefix("HTTP/1.1 ") {
            status = code.get(..3).and_then(|c| c.parse().ok()).unwrap_or(0);
        } else if let Some((name, value)) = header.split_once(':') {
            match name.to_ascii_lowercase().as_str() {
                "content-length" => length = value.trim().parse().unwrap_or(0),
                "connection" => close = value.trim().eq_ignore_ascii_case("close"),
                _ => {}
            }
        }
    }
    let mut answer = vec![0; length];
    stream.read_exact(&mut answer).await?;
    if close {
        // The server closes after this answer: the next request needs a new one.
        return Err(std::io::ErrorKind::ConnectionAborted.into());
    }
    Ok((stream, status, answer))
}

/// A `newHeads` subscriber: consecutive heads, a new subscription when its socket
/// closes.
async fn subscriber(addr: SocketAddr, end: Instant, counts: Arc<Counts>) {
    while Instant::now() < end {
        let connected = tokio::time::timeout(Duration::from_secs(10), async {
            let stream = TcpStream::connect(addr)
                .await
                .map_err(|e| format!("tcp {}", e.kind()))?;
            tokio_tungstenite::client_async(format!("ws://{addr}/"), stream)
                .await
                .map_err(|e| e.to_string())
        })
        .await;
        let mut socket = match connected {
            Ok(Ok((socket, _))) => socket,
            Ok(Err(e)) => {
                counts.failed("ws", &format!("connect: {}", first_word(&e)));
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            }
            Err(_) => {
                counts.failed("ws", "connect: timeout");
                continue;
            }
        };
        let subscribe =
            r#"{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}"#;
        if socket.send(subscribe.into()).await.is_err() {
            counts.failed("ws", "subscribe: send");
            continue;
        }
        let mut last: Option<u64> = None;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            let next = tokio::time::timeout(left.min(Duration::from_secs(15)), socket.next()).await;
            let frame = match next {
                Err(_) if Instant::now() >= end => return,
                Err(_) => {
                    counts.failed("ws", "no head within 15 s");
                    break;
                }
                Ok(None) | Ok(Some(Err(_))) => {
                    counts.failed("ws", "socket closed");
                    break;
                }
                Ok(Some(Ok(frame))) => frame,
            };
            let tokio_tungstenite::tungstenite::Message::Text(text) = frame else {
                continue;
            };
            let Ok(value) = serde_json::from_str::<Value>(text.as_str()) else {
                wrong(format!(
                    "a WebSocket frame that is not JSON: {}",
                    text.as_str()
                ));
            };
            let Some(number) = value["params"]["result"]["number"].as_str() else {
                continue; // the subscription's id
            };
            let number = u64::from_str_radix(number.trim_start_matches("0x"), 16)
                .unwrap_or_else(|_| wrong(format!("a head number: {number}")));
            if let Some(last) = last {
                if number != last + 1 {
                    wrong(format!("head {number} after {last} on one subscription"));
                }
            }
            last = Some(number);
            counts.ok("ws heads", 1);
        }
        counts.ok("ws resubscribed", 1);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn first_word(text: &str) -> String {
    text.split(':').next().unwrap_or(text).to_owned()
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    let start = Instant::now();
    let end = start + Duration::from_secs_f64(args.minutes * 60.0);
    let counts = Arc::new(Counts::default());
    let mut tasks = tokio::task::JoinSet::new();
    tasks.spawn(zap(args.zap, args.callers, end, counts.clone()));
    for caller in 0..args.callers {
        tasks.spawn(http(args.http, (2 << 20) + caller, end, counts.clone()));
    }
    for _ in 0..args.subscribers {
        tasks.spawn(subscriber(args.http, end, counts.clone()));
    }
    if !args.quic.is_empty() {
        let ca = args.ca.clone().expect("--ca for the QUIC servers");
        let tls = ClientTls::builder("localhost")
            .ca_pem_file(ca)
            .build()
            .expect("TLS settings");
        for addr in &args.quic {
            tasks.spawn(quic(*addr, tls.clone(), args.callers, end, counts.clone()));
        }
    }
    let progress = {
        let counts = counts.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(10));
            tick.tick().await;
            loop {
                tick.tick().await;
                println!("{:>6.0} s {}", start.elapsed().as_secs_f64(), counts.json());
            }
        })
    };
    while tasks.join_next().await.is_some() {}
    progress.abort();
    let report = json!({
        "minutes": args.minutes,
        "totals": counts.json(),
    });
    std::fs::write(&args.report, serde_json::to_string_pretty(&report).unwrap())
        .expect("write the report");
    println!("{}", serde_json::to_string_pretty(&report).unwrap());
}

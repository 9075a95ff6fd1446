//! The real `eth-rpc` binary as a child process: started on the addresses asked for
//! (port 0 by default), its bound addresses read from its own log line, signalled with
//! the real `kill`, its `/health` polled.

#![allow(dead_code)] // each test file uses a different part

use std::net::SocketAddr;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};

/// One running `eth-rpc` process.
pub struct EthRpc {
    child: Child,
    pub pid: u32,
    pub zap: SocketAddr,
    pub http: SocketAddr,
    /// The QUIC address (`--quic-addr`), if it serves QUIC.
    pub quic: Option<SocketAddr>,
    /// The admin listener (`--metrics-addr`), if it has one.
    pub metrics: Option<SocketAddr>,
    /// The zaphttp address (`--zaphttp-addr`), if it serves zaphttp.
    pub zaphttp: Option<SocketAddr>,
    /// Its log (stderr), line by line, from after the "serving" line.
    pub log: tokio::sync::mpsc::UnboundedReceiver<String>,
}

/// The address `key=ADDR` in a log line.
fn addr_in(line: &str, key: &str) -> Option<SocketAddr> {
    line.split_whitespace()
        .find_map(|word| word.strip_prefix(key))
        .and_then(|a| a.parse().ok())
}

impl EthRpc {
    /// `eth-rpc` on 127.0.0.1 port 0 (both ports) with `extra` arguments.
    pub async fn start(extra: &[&str]) -> EthRpc {
        EthRpc::start_on("127.0.0.1:0", "127.0.0.1:0", extra).await
    }

    /// `eth-rpc --zap-addr ZAP --http-addr HTTP` with `extra` arguments; returns once it
    /// serves (its "eth-rpc serving" log line).
    pub async fn start_on(zap: &str, http: &str, extra: &[&str]) -> EthRpc {
        EthRpc::start_logging(zap, http, extra, "info").await
    }

    /// As [`start_on`](EthRpc::start_on) with `RUST_LOG=filter`; the log lines after the
    /// "serving" one can be read from [`log`](EthRpc::log).
    pub async fn start_logging(zap: &str, http: &str, extra: &[&str], filter: &str) -> EthRpc {
        let mut command = Command::new(env!("CARGO_BIN_EXE_eth-rpc"));
        command
            .args(["--zap-addr", zap, "--http-addr", http])
            .args(extra);
        EthRpc::spawn(command, filter).await
    }

    /// `eth-rpc` on 127.0.0.1 port 0 with `extra` arguments, started by `sh` after the
    /// shell command `setup` (e.g. `ulimit -n 512`); the shell execs it, so
    /// [`pid`](EthRpc::pid) is the server's.
    pub async fn start_under(setup: &str, extra: &[&str]) -> EthRpc {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(format!("{setup} && exec \"$0\" \"$@\""))
            .arg(env!("CARGO_BIN_EXE_eth-rpc"))
            .args(["--zap-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0"])
            .args(extra);
        EthRpc::spawn(command, "info").await
    }

    async fn spawn(mut command: Command, filter: &str) -> EthRpc {
        let mut child = command
            .env("RUST_LOG", filter)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("run the eth-rpc binary");
        let pid = child.id().expect("a running child has a pid");
        let mut lines = BufReader::new(child.stderr.take().expect("piped stderr")).lines();
        let (zap, http, metrics, quic, zaphttp) = loop {
            let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
                .await
                .expect("eth-rpc logs within 30 s")
                .expect("read eth-rpc's log")
                .expect("eth-rpc exited before serving");
            if line.contains("eth-rpc serving") {
                break (
                    addr_in(&line, "zap=").expect("zap address in the log"),
                    addr_in(&line, "http=").expect("http address in the log"),
                    addr_in(&line, "metrics="),
                    addr_in(&line, "quic="),
                    addr_in(&line, "zaphttp="),
                );
            }
        };
        // Keep draining the log so the server never blocks on a full pipe.
        let (forward, log) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                let _ = forward.send(line);
            }
        });
        EthRpc {
            child,
            pid,
            zap,
            http,
            quic,
            metrics,
            zaphttp,
            log,
        }
    }

    /// Send `signal` (`TERM`, `INT`, `KILL`) with the real `kill` command.
    pub fn kill(&self, signal: &str) {
        let status = std::process::Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.pid.to_string())
            .status()
            .expect("run kill");
        assert!(status.success(), "kill -{signal} {} failed", self.pid);
    }

    /// The HTTP status of `GET path`, or `None` when the port does not answer.
    pub async fn get(&self, path: &str) -> Option<u16> {
        get_status(self.http, path).await
    }

    /// Poll `GET /health` until it answers `status`.
    pub async fn until_health(&self, status: u16) {
        let mut tick = tokio::time::interval(Duration::from_millis(10));
        loop {
            tick.tick().await;
            if self.get("/health").await == Some(status) {
                return;
            }
        }
    }

    /// Stop the server (SIGTERM), wait for it to exit, and return every log line it
    /// wrote after its "serving" line.
    pub async fn stop_and_log(mut self) -> Vec<String> {
        self.kill("TERM");
        self.wait().await;
        let mut lines = Vec::new();
        while let Some(line) = self.log.recv().await {
            lines.push(line);
        }
        lines
    }

    /// Wait for the process to exit: its status.
    pub async fn wait(&mut self) -> ExitStatus {
        tokio::time::timeout(Duration::from_secs(60), self.child.wait())
            .await
            .expect("eth-rpc exits within 60 s")
            .expect("wait for eth-rpc")
    }
}

/// The HTTP status of `GET path` at `addr` (one request, `Connection: close`), or
/// `None` when nothing answers there or the connection breaks.
pub async fn get_status(addr: SocketAddr, path: &str) -> Option<u16> {
    let answer = get(addr, path).await?;
    // "HTTP/1.1 200 OK"
    answer.get(9..12)?.parse().ok()
}

/// The whole answer to `GET path` at `addr` (one request, `Connection: close`), or
/// `None` when nothing answers there or the connection breaks.
async fn get(addr: SocketAddr, path: &str) -> Option<String> {
    get_on(TcpStream::connect(addr).await.ok()?, addr, path).await
}

/// [`get`] on a connection already made (plain or TLS).
async fn get_on<IO>(mut stream: IO, addr: SocketAddr, path: &str) -> Option<String>
where
    IO: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let head = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(head.as_bytes()).await.ok()?;
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .ok()?
        .ok()?;
    String::from_utf8(answer).ok()
}

/// One `eth_getBalance` call through `client` for caller `caller`'s `n`-th call (a
/// seeded account, a block number and an id of its own), its answer checked against
/// the ledger: `Err` only for a failed call, a panic for a wrong answer.
pub async fn checked_call<T: zap_runtime::Transport>(
    client: &eth_rpc::eth::EthClient<T>,
    ledger: &eth_rpc::ledger::Ledger,
    caller: u64,
    n: u64,
) -> Result<(), zap_runtime::ClientError> {
    let account = *ledger
        .address(((caller * 7919 + n) % 1000) as usize)
        .expect("a seeded account");
    let id = caller << 32 | n;
    let request = eth_rpc::eth::BalanceRequest {
        id,
        block: n,
        account,
    };
    let answer = client.get_balance(&request).await?;
    assert_eq!(answer.id, id, "the answer to this call");
    assert_eq!(answer.balance, ledger.account(&account).balance);
    assert_eq!(answer.nonce, ledger.account(&account).nonce);
    assert_eq!(answer.block_hash, eth_rpc::ledger::block_hash(n));
    Ok(())
}

/// What the callers of [`load`] saw.
#[derive(Default)]
pub struct Seen {
    pub answered: std::sync::atomic::AtomicU64,
    /// Answered after [`Seen::draining`] was set.
    pub answered_draining: std::sync::atomic::AtomicU64,
    /// Callers that ended on a closed connection.
    pub closed: std::sync::atomic::AtomicU64,
    /// Set by the test once the server is draining (`/health` at 503).
    pub draining: std::sync::atomic::AtomicBool,
}

impl Seen {
    /// Answered, answered while draining, closed: so far.
    pub fn counts(&self) -> (u64, u64, u64) {
        use std::sync::atomic::Ordering::Relaxed;
        (
            self.answered.load(Relaxed),
            self.answered_draining.load(Relaxed),
            self.closed.load(Relaxed),
        )
    }
}

/// `callers` concurrent callers through clones of `client` (one connection), each
/// calling until its call fails: every answer checked against the ledger
/// ([`checked_call`]), a caller ending on a closed connection counted, any other
/// failure a panic of its task.
pub fn load<T: zap_runtime::Transport + Clone + 'static>(
    client: eth_rpc::eth::EthClient<T>,
    callers: u64,
    seen: &std::sync::Arc<Seen>,
) -> Vec<tokio::task::JoinHandle<()>> {
    use std::sync::atomic::Ordering::Relaxed;
    (0..callers)
        .map(|caller| {
            let (client, seen) = (client.clone(), seen.clone());
            tokio::spawn(async move {
                let ledger = eth_rpc::ledger::Ledger::default();
                for n in 0u64.. {
                    match checked_call(&client, &ledger, caller, n).await {
                        Ok(()) => {
                            seen.answered.fetch_add(1, Relaxed);
                            if seen.draining.load(Relaxed) {
                                seen.answered_draining.fetch_add(1, Relaxed);
                            }
                        }
                        Err(
                            zap_runtime::ClientError::Closed(_) | zap_runtime::ClientError::Io(_),
                        ) => {
                            seen.closed.fetch_add(1, Relaxed);
                            return;
                        }
                        Err(e) => panic!("call {caller}/{n}: a wrong outcome: {e}"),
                    }
                }
            })
        })
        .collect()
}

/// Poll `done` every 5 ms until it holds, for at most 30 s: a wait on something only
/// other tasks move (a count a panicked caller stopped) fails the test rather than
/// hanging it.
pub async fn within<F: std::future::Future<Output = bool>>(
    what: &str,
    mut done: impl FnMut() -> F,
) {
    let wait = async {
        let mut tick = tokio::time::interval(Duration::from_millis(5));
        while !done().await {
            tick.tick().await;
        }
    };
    tokio::time::timeout(Duration::from_secs(30), wait)
        .await
        .unwrap_or_else(|_| panic!("not within 30 s: {what}"));
}

/// `zap_calls_total` of `getBalance` over ZAP/TCP on the server at `http`, read from
/// its `/metrics` (0 when it does not answer).
pub async fn zap_calls(http: SocketAddr) -> u64 {
    calls(http, "zap").await
}

/// `zap_calls_total` of `getBalance` over `transport` (`zap`, `http`) on the server at
/// `http`, read from its `/metrics` (0 when it does not answer).
pub async fn calls(http: SocketAddr, transport: &str) -> u64 {
    let transport = format!("transport=\"{transport}\"");
    let Some(text) = get_body(http, "/metrics").await else {
        return 0;
    };
    text.lines()
        .find(|l| {
            l.starts_with("zap_calls_total{")
                && l.contains("method=\"getBalance\"")
                && l.contains(&transport)
        })
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// POST `body` (JSON-RPC) to `/` at `addr`; the answer's JSON.
pub async fn post_json(addr: SocketAddr, body: &str) -> serde_json::Value {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.unwrap();
    let answer = String::from_utf8_lossy(&answer);
    let (_, body) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"))
}

/// The body of `GET path` at `addr` as text, or `None`.
pub async fn get_body(addr: SocketAddr, path: &str) -> Option<String> {
    let answer = get(addr, path).await?;
    answer
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_string())
}

/// Resident memory of process `pid`, in KiB.
pub fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Where `/metrics` is read: a plain HTTP port (`From<SocketAddr>`), or one serving
/// TLS (`eth-rpc --tls-cert` serves its HTTP and admin ports over TLS).
#[derive(Clone, Debug)]
pub struct Scrape {
    pub addr: SocketAddr,
    pub tls: Option<zap_runtime::tls::ClientTls>,
}

impl From<SocketAddr> for Scrape {
    fn from(addr: SocketAddr) -> Scrape {
        Scrape { addr, tls: None }
    }
}

impl Scrape {
    /// The whole answer to `GET path`, or `None` when nothing answers.
    async fn answer(&self, path: &str) -> Option<String> {
        match &self.tls {
            None => get(self.addr, path).await,
            Some(tls) => {
                let tcp = TcpStream::connect(self.addr).await.ok()?;
                let (stream, _) = tls.connect(tcp).await.ok()?;
                get_on(stream, self.addr, path).await
            }
        }
    }

    /// The `/metrics` text, or `None` when nothing answers.
    pub async fn text(&self) -> Option<String> {
        self.answer("/metrics")
            .await?
            .split_once("\r\n\r\n")
            .map(|(_, body)| body.to_string())
    }

    /// The HTTP status of `GET path`, or `None` when nothing answers.
    pub async fn status(&self, path: &str) -> Option<u16> {
        self.answer(path)
            .await?
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()
    }

    /// The value of the first sample of metric `name` (`zap_streams_active`, ...)
    /// whose labels contain every one of `labels` (`server="quic"`); `None` when there
    /// is no such sample.
    pub async fn metric(&self, name: &str, labels: &[&str]) -> Option<u64> {
        let text = self.text().await?;
        let prefix = format!("{name}{{");
        text.lines()
            .find(|l| l.starts_with(&prefix) && labels.iter().all(|label| l.contains(label)))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse().ok())
    }
}

/// `zap_received_bytes_total` of listener `server` (`zap`, `http`, `quic`), from the
/// `/metrics` at `http` (0 when it does not answer).
pub async fn received_bytes(http: impl Into<Scrape>, server: &str) -> u64 {
    let label = format!("server=\"{server}\"");
    http.into()
        .metric("zap_received_bytes_total", &[&label])
        .await
        .unwrap_or(0)
}

/// Wait until the server has read all it will from its `server` listener: its received
/// byte count has grown by no more than `slack` (what each poll adds itself) for a
/// second. Returns the count.
pub async fn until_reading_stops(http: impl Into<Scrape>, server: &str, slack: u64) -> u64 {
    let http = http.into();
    let mut last = (
        received_bytes(http.clone(), server).await,
        std::time::Instant::now(),
    );
    while last.1.elapsed() < Duration::from_secs(1) {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let now = received_bytes(http.clone(), server).await;
        if now > last.0 + slack {
            last = (now, std::time::Instant::now());
        }
    }
    last.0
}

/// Connect to `addr`, send `head`, then 64 KiB chunks of `fill` until `total` bytes are
/// sent (head included) or a write has waited 200 ms (the server has stopped reading
/// and the socket buffers are full). The connection is kept open for the caller.
pub async fn send_until_backed_up(
    addr: SocketAddr,
    head: &[u8],
    fill: u8,
    total: usize,
) -> TcpStream {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(head).await.unwrap();
    let chunk = vec![fill; 64 << 10];
    let mut sent = head.len();
    while sent < total {
        match tokio::time::timeout(Duration::from_millis(200), stream.write_all(&chunk)).await {
            Ok(Ok(())) => sent += chunk.len(),
            Ok(Err(e)) => panic!("write: {e}"),
            Err(_) => break,
        }
    }
    stream
}

/// The Go runtime's test peer: `$ZAPGO_PEER`, else `target/zapgo/zapgo-peer` as
/// `../shared/peers/zap-go/build.sh target/zapgo` builds it.
pub fn go_peer() -> std::path::PathBuf {
    let path = std::env::var_os("ZAPGO_PEER").map_or_else(
        || {
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../target/zapgo/zapgo-peer")
        },
        std::path::PathBuf::from,
    );
    assert!(
        path.exists(),
        "{} not found; build it with ../shared/peers/zap-go/build.sh target/zapgo",
        path.display()
    );
    path
}

/// Run the Go peer with `args`; its stdout (it must exit 0).
pub async fn go(args: &[&str]) -> String {
    let out = Command::new(go_peer()).args(args).output().await.unwrap();
    assert!(
        out.status.success(),
        "zapgo-peer {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Seconds since 1970, as capabilities count time.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

//! Shared by `hostile_harness.rs` and `soak.rs`: the example's servers in this process
//! with their live counters, a counting allocator (the server's heap is this process's
//! heap), `/proc` readings, eth calls with the answers they must get, raw ZAP frames,
//! and a keep-alive HTTP/1.1 client that tells "answered" from "connection closed".

#![allow(dead_code)] // each test file uses a different part

use std::alloc::{GlobalAlloc, Layout, System};
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use eth_rpc::eth::{BalanceRequest, BalanceResponse, EthService};
use eth_rpc::ledger::{block_hash, Address, Ledger};
use eth_rpc::{Config, LedgerEth, Servers};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use zap_runtime::frame::{encode_frame, Direction, DEFAULT_MAX_FRAME};
use zap_runtime::http::HttpConfig;
use zap_runtime::json::to_hex;
use zap_runtime::rpc::{Request, Response, Status};
use zap_runtime::server::{ServerConfig, ServerStats};
use zap_runtime::{Builder, ZapStruct};

// ---------------------------------------------------------------------------------------
// Memory: a counting allocator and /proc
// ---------------------------------------------------------------------------------------

/// The system allocator, counting the bytes live now and the peak since the last reset.
pub struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator; the counters are
// only bookkeeping.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            grow(new_size);
        }
        p
    }
}

fn grow(bytes: usize) {
    let live = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

/// Heap bytes live now (the whole process: servers, attackers, test).
pub fn heap_live() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// The highest `heap_live` since the last [`reset_heap_peak`].
pub fn heap_peak() -> usize {
    PEAK.load(Ordering::Relaxed)
}

/// Start measuring the peak from now.
pub fn reset_heap_peak() {
    PEAK.store(heap_live(), Ordering::Relaxed);
}

/// VmRSS (or VmHWM, the peak) of this process, in KiB; 0 where /proc is missing.
pub fn proc_status_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// Open file descriptors of this process (sockets included). Panics where
/// `/proc/self/fd` cannot be read: a leak check that cannot count must fail, not pass.
pub fn open_fds() -> usize {
    match std::fs::read_dir("/proc/self/fd") {
        Ok(fds) => fds.count(),
        Err(e) => panic!("cannot count open file descriptors in /proc/self/fd: {e}"),
    }
}

/// The soft limit on open files (`ulimit -n`), or 1024 if unknown.
pub fn fd_limit() -> usize {
    std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Max open files"))
                .and_then(|l| l.split_whitespace().nth(3)?.parse().ok())
        })
        .unwrap_or(1024)
}

pub fn mib(bytes: usize) -> f64 {
    bytes as f64 / f64::from(1 << 20)
}

// ---------------------------------------------------------------------------------------
// The servers
// ---------------------------------------------------------------------------------------

/// Both servers of the example in this process, with their counters.
pub struct Running {
    pub zap: SocketAddr,
    pub http: SocketAddr,
    pub stats: ServerStats,
    /// The HTTP server's counters.
    pub http_stats: ServerStats,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<io::Result<()>>,
}

impl Running {
    /// Bind both transports on 127.0.0.1 port 0 with these limits and serve.
    pub async fn start(zap: ServerConfig, http: HttpConfig) -> Running {
        let loopback = SocketAddr::from(([127, 0, 0, 1], 0));
        let config = Config {
            zap_addr: loopback,
            http_addr: loopback,
            zap,
            http,
            ..Config::default()
        };
        let servers = Servers::bind(config).await.expect("bind on port 0");
        let (zap, http) = (servers.zap_addr(), servers.http_addr());
        let (stats, http_stats) = (servers.zap_stats(), servers.http_stats());
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(servers.serve(async move {
            let _ = stopped.await;
        }));
        Running {
            zap,
            http,
            stats,
            http_stats,
            stop: Some(stop),
            task,
        }
    }

    /// Trigger the graceful shutdown (returns at once).
    pub fn trigger_shutdown(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }

    /// Trigger the shutdown if not yet done and wait until both transports stopped.
    pub async fn stop(mut self, within: Duration) {
        self.trigger_shutdown();
        tokio::time::timeout(within, self.task)
            .await
            .unwrap_or_else(|_| panic!("the servers stop within {within:?}"))
            .expect("the serving task does not panic")
            .expect("serving ends without error");
    }
}

/// Poll `done` every 50 ms until it holds or `within` passes; whether it held.
pub async fn eventually(within: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        if done() {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

// ---------------------------------------------------------------------------------------
// Calls and the answers they must get
// ---------------------------------------------------------------------------------------

/// The method ordinal of `getBalance`.
pub const GET_BALANCE: u32 = EthService::<LedgerEth>::GET_BALANCE;

/// The accounts the calls ask about: the first 64 seeded ones and one unknown.
pub struct Book {
    ledger: Ledger,
    addresses: Vec<Address>,
}

impl Default for Book {
    fn default() -> Self {
        let ledger = Ledger::default();
        let mut addresses: Vec<Address> = (0..64).map(|i| *ledger.address(i).unwrap()).collect();
        addresses.push([0xee; 20]);
        Book { ledger, addresses }
    }
}

impl Book {
    /// Call number `n` (any u64): a distinct id, a block and an account derived from it.
    pub fn request(&self, n: u64) -> BalanceRequest {
        BalanceRequest {
            id: n,
            block: n.wrapping_mul(7919) % 20_000_000,
            account: self.addresses[(n % self.addresses.len() as u64) as usize],
        }
    }

    /// The one right answer to `req`.
    pub fn answer(&self, req: &BalanceRequest) -> BalanceResponse {
        let account = self.ledger.account(&req.account);
        BalanceResponse {
            id: req.id,
            balance: account.balance,
            nonce: account.nonce,
            block_hash: block_hash(req.block),
        }
    }

    /// Whether `body` (a ZAP response message) is the right answer to call `n`.
    pub fn is_right(&self, n: u64, body: &[u8]) -> bool {
        BalanceResponse::decode(body).is_ok_and(|got| got == self.answer(&self.request(n)))
    }

    /// The JSON-RPC request object of call `n` (id `n`).
    pub fn json_call(&self, n: u64) -> Value {
        let req = self.request(n);
        json!({"jsonrpc": "2.0", "id": n, "method": "eth_getBalance",
               "params": [to_hex(&req.account), format!("{:#x}", req.block)]})
    }

    /// Whether `response` (one JSON-RPC response object) is the right answer to call `n`.
    pub fn is_right_json(&self, n: u64, response: &Value) -> bool {
        let want = format!("{:#x}", self.answer(&self.request(n)).balance);
        response["id"] == json!(n) && response["result"] == want
    }
}

/// The request frame `[len][dir 1][envelope]` of call `n` with PromiseID `promise_id`.
pub fn request_frame(book: &Book, n: u64, promise_id: u32, b: &mut Builder, out: &mut Vec<u8>) {
    let payload = book.request(n).to_bytes().unwrap();
    let env = Request {
        method: GET_BALANCE,
        promise_id,
        target: 0,
        cap: b"",
        payload: &payload,
    }
    .encode(b);
    encode_frame(out, Direction::Request, env.unwrap()).expect("a call fits a frame");
}

/// Reads response frames from a stream, in order.
pub struct Answers {
    buf: Vec<u8>,
    decoder: zap_runtime::frame::FrameDecoder,
}

impl Default for Answers {
    fn default() -> Self {
        Answers {
            buf: Vec::with_capacity(64 << 10),
            decoder: zap_runtime::frame::FrameDecoder::new(DEFAULT_MAX_FRAME),
        }
    }
}

/// How a stream of answers ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// The server closed its side (FIN).
    Closed,
    /// The connection was reset.
    Reset,
    /// Nothing arrived within the wait.
    Silent,
    /// A frame that is not a well-formed response.
    Garbled(String),
}

impl Answers {
    /// The next `(status, promise_id, body)`, or how the stream ended.
    pub async fn next(
        &mut self,
        rd: &mut (impl AsyncReadExt + Unpin),
        wait: Duration,
    ) -> Result<(Status, u32, Vec<u8>), End> {
        loop {
            match self.decoder.decode(&self.buf) {
                Ok(Some((frame, used))) => {
                    if frame.dir != Direction::Response {
                        return Err(End::Garbled(format!("a {:?} frame", frame.dir)));
                    }
                    let resp =
                        Response::parse(frame.envelope).map_err(|e| End::Garbled(e.to_string()))?;
                    let answer = (resp.status, resp.promise_id, resp.body.to_vec());
                    self.buf.drain(..used);
                    return Ok(answer);
                }
                Ok(None) => {}
                Err(e) => return Err(End::Garbled(e.to_string())),
            }
            match tokio::time::timeout(wait, rd.read_buf(&mut self.buf)).await {
                Err(_) => return Err(End::Silent),
                Ok(Ok(0)) => return Err(End::Closed),
                Ok(Ok(_)) => {}
                Ok(Err(_)) => return Err(End::Reset),
            }
        }
    }
}

/// Read and discard until the peer closes; how it ended (`Silent` after `wait`).
pub async fn until_closed(stream: &mut TcpStream, wait: Duration) -> End {
    let mut sink = vec![0u8; 16 << 10];
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut sink)).await {
            Err(_) => return End::Silent,
            Ok(Ok(0)) => return End::Closed,
            Ok(Ok(_)) => {}
            Ok(Err(_)) => return End::Reset,
        }
    }
}

// ---------------------------------------------------------------------------------------
// A keep-alive HTTP/1.1 client
// ---------------------------------------------------------------------------------------

/// One keep-alive HTTP/1.1 connection; requests one at a time.
pub struct HttpConn {
    stream: TcpStream,
    buf: Vec<u8>,
    host: SocketAddr,
}

impl HttpConn {
    pub async fn connect(addr: SocketAddr) -> io::Result<HttpConn> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(HttpConn {
            stream,
            buf: Vec::with_capacity(16 << 10),
            host: addr,
        })
    }

    /// The raw request bytes of `POST /rpc` with `body`.
    pub fn post_bytes(&self, body: &[u8]) -> Vec<u8> {
        let mut req = format!(
            "POST /rpc HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            self.host,
            body.len()
        )
        .into_bytes();
        req.extend_from_slice(body);
        req
    }

    /// POST `body` to /rpc: `Ok((status, body))`, or `Err(how it ended)` if the
    /// connection closed (or stayed silent for `wait`) before a complete answer.
    pub async fn post(&mut self, body: &[u8], wait: Duration) -> Result<(u16, Vec<u8>), End> {
        let req = self.post_bytes(body);
        if self.stream.write_all(&req).await.is_err() {
            return Err(End::Reset);
        }
        self.response(wait).await
    }

    /// Send raw bytes.
    pub async fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stream.write_all(bytes).await
    }

    /// Read one complete response (with a Content-Length body).
    pub async fn response(&mut self, wait: Duration) -> Result<(u16, Vec<u8>), End> {
        loop {
            if let Some(head_end) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&self.buf[..head_end]).into_owned();
                let status: u16 = head
                    .split_whitespace()
                    .nth(1)
                    .and_then(|s| s.parse().ok())
                    .ok_or_else(|| End::Garbled(format!("no status in {head:?}")))?;
                let length: usize = head
                    .lines()
                    .find_map(|l| {
                        let (name, value) = l.split_once(':')?;
                        name.eq_ignore_ascii_case("content-length")
                            .then(|| value.trim().parse().ok())?
                    })
                    .unwrap_or(0);
                let total = head_end + 4 + length;
                if self.buf.len() >= total {
                    let body = self.buf[head_end + 4..total].to_vec();
                    self.buf.drain(..total);
                    return Ok((status, body));
                }
            }
            match tokio::time::timeout(wait, self.stream.read_buf(&mut self.buf)).await {
                Err(_) => return Err(End::Silent),
                Ok(Ok(0)) => return Err(End::Closed),
                Ok(Ok(_)) => {}
                Ok(Err(_)) => return Err(End::Reset),
            }
        }
    }
}

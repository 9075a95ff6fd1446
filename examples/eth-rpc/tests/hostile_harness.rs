//! Hostile clients against the example's servers (ZAP/TCP and JSON-RPC/HTTP, in this
//! process), while well-behaved clients keep calling and check every answer.
//!
//! Attackers, all at once: garbage bytes; truncated frames then a reset; oversized
//! frame lengths (refused) and large announced frames that never arrive; slowloris (a
//! byte every 250 ms, ZAP and HTTP); hundreds of idle connections (as many as the fd
//! limit allows); floods of pipelined calls that never read their answers (ZAP and
//! HTTP); and hostile JSON (oversized body, oversized batch, deep nesting, not JSON).
//!
//! Checked: every good answer is right and none fails; every attacker is cut off by the
//! server (closed, not left hanging); the flooders are throttled (their writes stall:
//! back-pressure); the process heap (a counting allocator: servers and attackers alike)
//! stays under a stated bound; afterwards the ZAP server has no live connection and the
//! process is back to its file-descriptor count from before, and its heap close to it.
//! The timeouts are scaled down (2 s) so the whole test takes about 15 s.

mod harness;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use eth_rpc::eth::EthClient;
use harness::{
    eventually, fd_limit, heap_live, heap_peak, mib, open_fds, proc_status_kib, request_frame,
    reset_heap_peak, until_closed, Book, End, HttpConn, Running,
};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use zap_runtime::client::Client;
use zap_runtime::http::HttpConfig;
use zap_runtime::server::ServerConfig;
use zap_runtime::Builder;

#[global_allocator]
static ALLOC: harness::Counting = harness::Counting;

/// The scaled-down idle / header / frame timeout of both servers.
const TIMEOUT: Duration = Duration::from_secs(2);
/// How long an attacker waits for the server to cut it off (generous: a loaded machine).
const CUT_OFF_WITHIN: Duration = Duration::from_secs(20);
/// The process heap may grow by at most this much while under attack (see the summary
/// printed at the end for what it is made of).
const HEAP_BOUND: usize = 96 << 20;

#[test]
fn hostile_clients_do_not_disturb_good_ones() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(async {
        tokio::time::timeout(Duration::from_secs(120), run())
            .await
            .expect("the harness finishes within 120 s");
    });
}

#[derive(Default)]
struct Good {
    calls: AtomicU64,
    wrong: AtomicU64,
    failed: AtomicU64,
}

async fn run() {
    let started = Instant::now();
    let zap_config = ServerConfig {
        idle_timeout: TIMEOUT,
        drain_timeout: Duration::from_secs(5),
        ..ServerConfig::default()
    };
    let http_config = HttpConfig {
        header_read_timeout: TIMEOUT,
        body_read_timeout: TIMEOUT,
        max_body: 1 << 20,
        max_batch: 100,
        drain_timeout: Duration::from_secs(5),
        ..HttpConfig::default()
    };
    let server = Running::start(zap_config, http_config).await;
    let (zap, http) = (server.zap, server.http);
    let book = Arc::new(Book::default());
    let fds_before = open_fds();
    // Warm up (first-use allocations of the runtime and servers are not growth).
    warm_up(&server, &book).await;
    let heap_before = heap_live();
    reset_heap_peak();

    // --- well-behaved clients, all through the attack -----------------------------------
    let stop = Arc::new(AtomicBool::new(false));
    let good_zap = Arc::new(Good::default());
    let good_http = Arc::new(Good::default());
    let client = EthClient::new(Client::connect(zap).await.expect("connect"));
    let mut good = Vec::new();
    for lane in 0..4u64 {
        let (client, book, stop, tally) =
            (client.clone(), book.clone(), stop.clone(), good_zap.clone());
        good.push(tokio::spawn(async move {
            let mut n = lane << 40;
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                let req = book.request(n);
                match tokio::time::timeout(Duration::from_secs(30), client.get_balance(&req)).await
                {
                    Ok(Ok(got)) if got == book.answer(&req) => &tally.calls,
                    Ok(Ok(_)) => &tally.wrong,
                    _ => &tally.failed,
                }
                .fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    {
        let (book, stop, tally) = (book.clone(), stop.clone(), good_http.clone());
        good.push(tokio::spawn(async move {
            let mut conn = HttpConn::connect(http).await.expect("connect");
            let mut n = 1u64 << 50;
            while !stop.load(Ordering::Relaxed) {
                let calls: Vec<u64> = (n..n + 10).collect();
                n += 10;
                let batch = Value::Array(calls.iter().map(|&i| book.json_call(i)).collect());
                let body = serde_json::to_vec(&batch).unwrap();
                let answers = match conn.post(&body, Duration::from_secs(30)).await {
                    Ok((200, body)) => serde_json::from_slice::<Value>(&body).ok(),
                    _ => None,
                };
                let Some(Value::Array(answers)) = answers else {
                    tally.failed.fetch_add(10, Ordering::Relaxed);
                    conn = HttpConn::connect(http).await.expect("reconnect");
                    continue;
                };
                for (i, answer) in calls.iter().zip(&answers) {
                    let right = answers.len() == calls.len() && book.is_right_json(*i, answer);
                    if right { &tally.calls } else { &tally.wrong }.fetch_add(1, Ordering::Relaxed);
                }
            }
        }));
    }

    // --- the attack ---------------------------------------------------------------------
    let idle_n = (fd_limit().saturating_sub(800) / 2).clamp(0, 400);
    let (idle_zap, idle_http) = (idle_n * 3 / 4, idle_n / 4);
    let attack = tokio::join!(
        garbage(zap, 40),
        truncated_then_reset(zap, &book, 40),
        oversized(zap, 20),
        announced_never_sent(zap, 20),
        slowloris_zap(zap, &book, 10),
        slowloris_http(http, 10),
        idle(zap, idle_zap, server.stats.clone()),
        idle(http, idle_http, server.http_stats.clone()),
        flood_zap(zap, &book, 4),
        flood_http(http, &book, 2),
        hostile_json(http),
    );
    let heap_peak_attack = heap_peak();
    let (garbage, truncated, oversized, announced, slow_zap, slow_http) =
        (attack.0, attack.1, attack.2, attack.3, attack.4, attack.5);
    let (idle_zap_r, idle_http_r, flood_zap_r, flood_http_r, json_r) =
        (attack.6, attack.7, attack.8, attack.9, attack.10);

    // --- the good clients saw nothing ---------------------------------------------------
    stop.store(true, Ordering::Relaxed);
    for task in good {
        task.await.expect("a good client does not panic");
    }
    let (zap_ok, zap_wrong, zap_failed) = tally(&good_zap);
    let (http_ok, http_wrong, http_failed) = tally(&good_http);
    drop(client);

    // --- nothing leaks ------------------------------------------------------------------
    let stats = server.stats.clone();
    let no_connections = eventually(CUT_OFF_WITHIN, || stats.active_connections() == 0).await;
    let fds_back = eventually(CUT_OFF_WITHIN, || open_fds() <= fds_before).await;
    let fds_after = open_fds();
    let heap_after = heap_live();

    let summary = format!(
        "hostile harness, {:.1} s:\n\
         good ZAP client: {zap_ok} calls right, {zap_wrong} wrong, {zap_failed} failed\n\
         good HTTP client: {http_ok} calls right (batches of 10), {http_wrong} wrong, {http_failed} failed\n\
         garbage: {garbage}\ntruncated+reset: {truncated}\noversized length: {oversized}\n\
         announced 16 MiB frames never sent: {announced}\nslowloris ZAP: {slow_zap}\nslowloris HTTP: {slow_http}\n\
         idle ZAP: {}\nidle HTTP: {}\nflood ZAP: {}\nflood HTTP: {}\nhostile JSON: {json_r}\n\
         heap: {:.1} MiB before, peak {:.1} MiB under attack (+{:.1} MiB, bound +{} MiB), {:.1} MiB after; \
         {:.1} MiB per 100 idle ZAP connections; VmHWM {} MiB\n\
         ZAP server: {} connections accepted, {} open after (want 0); fds {fds_before} before, {fds_after} after",
        started.elapsed().as_secs_f64(),
        idle_zap_r.0,
        idle_http_r.0,
        flood_zap_r.0,
        flood_http_r.0,
        mib(heap_before),
        mib(heap_peak_attack),
        mib(heap_peak_attack.saturating_sub(heap_before)),
        HEAP_BOUND >> 20,
        mib(heap_after),
        idle_zap_r.1 * 100.0,
        proc_status_kib("VmHWM") / 1024,
        stats.accepted(),
        stats.active_connections(),
    );
    eprintln!("{summary}");

    assert!(
        zap_ok > 0 && zap_wrong == 0 && zap_failed == 0,
        "good ZAP client disturbed\n{summary}"
    );
    assert!(
        http_ok > 0 && http_wrong == 0 && http_failed == 0,
        "good HTTP client disturbed\n{summary}"
    );
    for (what, report) in [
        ("garbage", &garbage),
        ("truncated", &truncated),
        ("oversized", &oversized),
        ("announced", &announced),
        ("slowloris ZAP", &slow_zap),
        ("slowloris HTTP", &slow_http),
        ("idle ZAP", &idle_zap_r.0),
        ("idle HTTP", &idle_http_r.0),
        ("flood ZAP", &flood_zap_r.0),
        ("flood HTTP", &flood_http_r.0),
        ("hostile JSON", &json_r),
    ] {
        assert!(report.ok(), "{what}: {report}\n{summary}");
    }
    assert!(
        heap_peak_attack.saturating_sub(heap_before) < HEAP_BOUND,
        "the heap grew past the bound under attack\n{summary}"
    );
    assert!(
        no_connections,
        "ZAP connections left open after the attackers left\n{summary}"
    );
    assert!(fds_back, "file descriptors leaked\n{summary}");
    assert!(
        heap_after < heap_before + (16 << 20),
        "the heap did not come back after the attack\n{summary}"
    );
    server.stop(Duration::from_secs(20)).await;
}

fn tally(good: &Good) -> (u64, u64, u64) {
    let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
    (get(&good.calls), get(&good.wrong), get(&good.failed))
}

async fn warm_up(server: &Running, book: &Book) {
    let client = EthClient::new(Client::connect(server.zap).await.expect("connect"));
    for n in 0..100 {
        let req = book.request(n);
        assert_eq!(
            client.get_balance(&req).await.expect("a balance"),
            book.answer(&req)
        );
    }
    let mut conn = HttpConn::connect(server.http).await.expect("connect");
    let (status, _) = conn
        .post(
            &serde_json::to_vec(&book.json_call(1)).unwrap(),
            Duration::from_secs(10),
        )
        .await
        .expect("an answer");
    assert_eq!(status, 200);
}

// ---------------------------------------------------------------------------------------
// Attackers. Each returns a report: how many, and how each was ended.
// ---------------------------------------------------------------------------------------

/// How a group of attacking connections ended.
#[derive(Debug, Default)]
struct Report {
    connections: usize,
    /// Closed or reset by the server.
    cut_off: usize,
    /// Still open when we stopped waiting (a failure unless `expect_open`).
    left_open: usize,
    /// Ended by us (reset), nothing to observe.
    dropped: usize,
    /// Anything else worth saying.
    note: String,
    failed: Vec<String>,
}

impl Report {
    fn ok(&self) -> bool {
        self.left_open == 0 && self.failed.is_empty()
    }
    fn ended(&mut self, end: End) {
        match end {
            End::Closed | End::Reset => self.cut_off += 1,
            End::Silent => self.left_open += 1,
            End::Garbled(e) => self.failed.push(e),
        }
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} connections, {} cut off by the server, {} left open",
            self.connections, self.cut_off, self.left_open
        )?;
        if self.dropped > 0 {
            write!(f, ", {} reset by us", self.dropped)?;
        }
        if !self.note.is_empty() {
            write!(f, "; {}", self.note)?;
        }
        if !self.failed.is_empty() {
            write!(f, "; FAILED: {:?}", self.failed)?;
        }
        Ok(())
    }
}

fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

async fn each<F, Fut>(n: usize, f: F) -> Report
where
    F: Fn(usize) -> Fut,
    Fut: std::future::Future<Output = Option<End>> + Send + 'static,
{
    let tasks: Vec<_> = (0..n).map(|i| tokio::spawn(f(i))).collect();
    let mut report = Report {
        connections: n,
        ..Report::default()
    };
    for task in tasks {
        match task.await {
            Ok(Some(end)) => report.ended(end),
            Ok(None) => report.dropped += 1,
            Err(e) => report.failed.push(e.to_string()),
        }
    }
    report
}

/// Random bytes: framing errors (closed at once) or a plausible length that never
/// completes (closed by the timeout).
async fn garbage(addr: std::net::SocketAddr, n: usize) -> Report {
    each(n, move |i| async move {
        let mut s = TcpStream::connect(addr).await.ok()?;
        let _ = s.write_all(&noise(i as u64, 4096)).await;
        Some(until_closed(&mut s, CUT_OFF_WITHIN).await)
    })
    .await
}

/// Half a valid frame (or one and a half), then a reset (SO_LINGER 0).
async fn truncated_then_reset(addr: std::net::SocketAddr, book: &Arc<Book>, n: usize) -> Report {
    let mut frame = Vec::new();
    request_frame(book, 1, 1, &mut Builder::new(), &mut frame);
    let frame = Arc::new(frame);
    each(n, move |i| {
        let frame = frame.clone();
        async move {
            let s = TcpStream::connect(addr).await.ok()?;
            let mut s = s;
            if i % 2 == 1 {
                let _ = s.write_all(&frame).await;
            }
            let _ = s.write_all(&frame[..frame.len() / 2]).await;
            tokio::time::sleep(Duration::from_millis(20)).await;
            // A zero linger resets at once; the blocking the deprecation warns of is
            // for a non-zero linger.
            #[allow(deprecated)]
            let _ = s.set_linger(Some(Duration::ZERO));
            drop(s);
            None
        }
    })
    .await
}

/// A length over the 16 MiB maximum: refused at once.
async fn oversized(addr: std::net::SocketAddr, n: usize) -> Report {
    each(n, move |i| async move {
        let mut s = TcpStream::connect(addr).await.ok()?;
        let len = u32::MAX - i as u32;
        let mut bytes = len.to_le_bytes().to_vec();
        bytes.push(1);
        let _ = s.write_all(&bytes).await;
        Some(until_closed(&mut s, CUT_OFF_WITHIN).await)
    })
    .await
}

/// A frame of (just under) the maximum length is announced, 8 KiB of it sent, the rest
/// never: the server must not reserve the announced 16 MiB per connection, and closes
/// the connection when no complete frame arrived within the timeout.
async fn announced_never_sent(addr: std::net::SocketAddr, n: usize) -> Report {
    each(n, move |_| async move {
        let mut s = TcpStream::connect(addr).await.ok()?;
        let mut bytes = ((16u32 << 20) - 1).to_le_bytes().to_vec();
        bytes.push(1);
        bytes.resize(8 << 10, 0);
        let _ = s.write_all(&bytes).await;
        Some(until_closed(&mut s, CUT_OFF_WITHIN).await)
    })
    .await
}

/// Send `bytes` one at a time, 250 ms apart, until they run out or the server closes.
/// Returns how it ended and how many bytes went out.
async fn trickle(s: &mut TcpStream, bytes: &[u8]) -> (End, usize) {
    let mut sink = [0u8; 512];
    for (sent, byte) in bytes.iter().enumerate() {
        if s.write_all(std::slice::from_ref(byte)).await.is_err() {
            return (End::Reset, sent);
        }
        tokio::select! {
            read = s.read(&mut sink) => return (match read {
                Ok(0) => End::Closed,
                Ok(_) => End::Garbled("answered a slowloris".into()),
                Err(_) => End::Reset,
            }, sent + 1),
            () = tokio::time::sleep(Duration::from_millis(250)) => {}
        }
    }
    (End::Silent, bytes.len())
}

async fn slowloris_zap(addr: std::net::SocketAddr, book: &Arc<Book>, n: usize) -> Report {
    let mut frame = Vec::new();
    request_frame(book, 1, 1, &mut Builder::new(), &mut frame);
    let frame = Arc::new(frame);
    let mut report = each(n, move |_| {
        let frame = frame.clone();
        async move {
            let mut s = TcpStream::connect(addr).await.ok()?;
            Some(trickle(&mut s, &frame).await.0)
        }
    })
    .await;
    report.note = "a request frame one byte per 250 ms".into();
    report
}

async fn slowloris_http(addr: std::net::SocketAddr, n: usize) -> Report {
    let mut report = each(n, move |_| async move {
        let mut s = TcpStream::connect(addr).await.ok()?;
        let head = format!(
            "POST /rpc HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nX-Slow: {}\r\n\r\n",
            "z".repeat(200)
        );
        Some(trickle(&mut s, head.as_bytes()).await.0)
    })
    .await;
    report.note = "a request head one byte per 250 ms".into();
    report
}

/// `n` connections that send nothing; the server must close each after its timeout.
/// Also returns the heap they cost per connection (both ends are in this process),
/// measured once the server's counters show them accepted.
async fn idle(
    addr: std::net::SocketAddr,
    n: usize,
    stats: zap_runtime::server::ServerStats,
) -> (Report, f64) {
    let before = heap_live();
    let accepted_before = stats.accepted();
    let mut streams = Vec::with_capacity(n);
    for _ in 0..n {
        if let Ok(s) = TcpStream::connect(addr).await {
            streams.push(s);
        }
    }
    // Wait until the server has accepted at least as many connections as were made
    // here (other attackers connect too, so this is a lower bound on ours, not a count).
    let want = accepted_before + streams.len() as u64;
    let accepted = eventually(CUT_OFF_WITHIN, || stats.accepted() >= want).await;
    assert!(
        accepted,
        "the server did not accept {} idle connections within {CUT_OFF_WITHIN:?}",
        streams.len()
    );
    let open = stats.active_connections();
    let per_conn = mib(heap_live().saturating_sub(before)) / n.max(1) as f64;
    let tasks: Vec<_> = streams
        .into_iter()
        .map(|mut s| tokio::spawn(async move { until_closed(&mut s, CUT_OFF_WITHIN).await }))
        .collect();
    let mut report = Report {
        connections: n,
        note: format!("the server had {open} connections open once they were accepted"),
        ..Report::default()
    };
    for task in tasks {
        match task.await {
            Ok(end) => report.ended(end),
            Err(e) => report.failed.push(e.to_string()),
        }
    }
    (report, per_conn)
}

/// Write pipelined calls without ever reading an answer until the writes stall for a
/// second (back-pressure), at most 128 MiB or 15 s; hold, then drop the connection.
async fn flood(mut s: TcpStream, chunk: Vec<u8>) -> Option<(usize, bool)> {
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut written = 0usize;
    while written < 128 << 20 && Instant::now() < deadline {
        match tokio::time::timeout(Duration::from_secs(1), s.write_all(&chunk)).await {
            Ok(Ok(())) => written += chunk.len(),
            Ok(Err(_)) => return Some((written, false)),
            Err(_) => {
                // Stalled: the server stopped reading. Stay a moment with full buffers.
                tokio::time::sleep(Duration::from_millis(500)).await;
                return Some((written, true));
            }
        }
    }
    Some((written, false))
}

async fn flood_zap(addr: std::net::SocketAddr, book: &Arc<Book>, n: usize) -> (Report, ()) {
    let mut chunk = Vec::new();
    let mut b = Builder::new();
    for i in 1..=256u32 {
        request_frame(book, u64::from(i), i, &mut b, &mut chunk);
    }
    flood_report(addr, chunk, n, "pipelined eth calls").await
}

async fn flood_http(addr: std::net::SocketAddr, book: &Arc<Book>, n: usize) -> (Report, ()) {
    let conn = HttpConn::connect(addr).await.expect("connect");
    let body = serde_json::to_vec(&book.json_call(1)).unwrap();
    let one = conn.post_bytes(&body);
    drop(conn);
    let chunk = one.repeat(64);
    flood_report(addr, chunk, n, "pipelined POST /rpc").await
}

async fn flood_report(
    addr: std::net::SocketAddr,
    chunk: Vec<u8>,
    n: usize,
    what: &str,
) -> (Report, ()) {
    let tasks: Vec<_> = (0..n)
        .map(|_| {
            let chunk = chunk.clone();
            tokio::spawn(async move { flood(TcpStream::connect(addr).await.ok()?, chunk).await })
        })
        .collect();
    let mut report = Report {
        connections: n,
        ..Report::default()
    };
    let mut sizes = Vec::new();
    for task in tasks {
        match task.await {
            Ok(Some((written, true))) => {
                report.cut_off += 1; // throttled: counted as handled by the server
                report.dropped += 1;
                sizes.push(written >> 20);
            }
            Ok(Some((written, false))) => report
                .failed
                .push(format!("never throttled after {} MiB", written >> 20)),
            Ok(None) => report.failed.push("could not connect".into()),
            Err(e) => report.failed.push(e.to_string()),
        }
    }
    report.note =
        format!("{what}, never read; writes stalled after {sizes:?} MiB each (back-pressure)");
    (report, ())
}

/// Oversized body (declared, and chunked), oversized batch, deep nesting, not JSON.
async fn hostile_json(addr: std::net::SocketAddr) -> Report {
    let wait = Duration::from_secs(20);
    let mut report = Report::default();
    // `cut_ok`: the server may reset the connection before we read its 413 (it closes
    // with our unread body in its buffer); refused either way.
    let mut expect =
        |what: &str, got: Result<(u16, Vec<u8>), End>, status: u16, code: i64, cut_ok: bool| {
            report.connections += 1;
            match got {
                Ok((s, body)) => {
                    let found = serde_json::from_slice::<Value>(&body)
                        .ok()
                        .and_then(|v| v["error"]["code"].as_i64());
                    if s == status && found == Some(code) {
                        report.cut_off += 1;
                    } else {
                        report
                            .failed
                            .push(format!("{what}: HTTP {s}, code {found:?}"));
                    }
                }
                Err(End::Closed | End::Reset) if cut_ok => report.cut_off += 1,
                Err(end) => report.failed.push(format!("{what}: {end:?}")),
            }
        };
    let head = |extra: &str| {
        format!(
            "POST /rpc HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n{extra}\r\n"
        )
        .into_bytes()
    };

    let mut conn = HttpConn::connect(addr).await.expect("connect");
    let _ = conn.send(&head("Content-Length: 2097152\r\n")).await;
    expect(
        "2 MiB declared body",
        conn.response(wait).await,
        413,
        -32600,
        false,
    );

    let mut conn = HttpConn::connect(addr).await.expect("connect");
    let mut chunked = head("Transfer-Encoding: chunked\r\n");
    for _ in 0..17 {
        chunked.extend_from_slice(format!("{:x}\r\n", 64 << 10).as_bytes());
        chunked.extend(std::iter::repeat_n(b' ', 64 << 10));
        chunked.extend_from_slice(b"\r\n");
    }
    let _ = conn.send(&chunked).await;
    expect(
        "1.06 MiB chunked body",
        conn.response(wait).await,
        413,
        -32600,
        true,
    );

    let mut conn = HttpConn::connect(addr).await.expect("connect");
    let batch = format!("[{}1]", "1,".repeat(4999));
    expect(
        "batch of 5000",
        conn.post(batch.as_bytes(), wait).await,
        200,
        -32600,
        false,
    );
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    expect(
        "nesting 100000 deep",
        conn.post(deep.as_bytes(), wait).await,
        200,
        -32700,
        false,
    );
    expect(
        "not JSON",
        conn.post(&noise(7, 1000), wait).await,
        200,
        -32700,
        false,
    );
    report.note = "each refused with the right HTTP status and JSON-RPC error".into();
    report
}

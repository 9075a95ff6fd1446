//! A client's answer as an owned struct (`get`) or as an owned message (`get_owned`),
//! for the record of `benches/schemas/records.zap` (1 KiB text, 64-byte blob, 32 items):
//!
//! 1. **Cost per answer, paired rounds**: in each round both ways turn the same answer
//!    body (`Bytes`, as the client hands it out) into a value and read every field once
//!    (UTF-8 check of the text included), `--iterations` times each, back to back; the
//!    round's ratio is struct time / message time. Prints every round and the median.
//!    `--no-utf8` also runs the message side reading the text as bytes (the check left
//!    out), to show what the check costs.
//! 2. **Client allocations per call**, counted by a global allocator on the thread that
//!    runs the client (its caller, reader and writer tasks; the server runs on another
//!    thread): `--calls` warm calls of each stub over a real TCP connection.
//!
//! `owned_rounds [--rounds 21] [--iterations 20000] [--calls 5000] [--json PATH]`

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use clap::Parser;
use zap_benches::generated::records::{Record, RecordQuery, RecordsClient, RecordsService};
use zap_benches::records::{fold_owned, fold_value, record, Handler};
use zap_runtime::client::Client;
use zap_runtime::server::{CancellationToken, Server, ServerConfig};
use zap_runtime::{Bytes, Owned, ZapStruct};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to the system allocator; the only addition
// is bumping a thread-local counter, which never allocates.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as our caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as our caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

#[derive(Debug, Parser)]
#[command(about, long_about = None)]
struct Args {
    /// Paired rounds of the cost per answer.
    #[arg(long, default_value_t = 21)]
    rounds: usize,
    /// Answers turned into values per side and round.
    #[arg(long, default_value_t = 20_000)]
    iterations: u32,
    /// Warm calls of each client stub counted for allocations.
    #[arg(long, default_value_t = 5_000)]
    calls: u64,
    /// Also time the message side reading the text as bytes (no UTF-8 check).
    #[arg(long)]
    no_utf8: bool,
    /// Also write the results as JSON to this file.
    #[arg(long)]
    json: Option<std::path::PathBuf>,
}

/// Nanoseconds per answer of `f` over `n` runs.
fn per_answer(n: u32, mut f: impl FnMut() -> u64) -> f64 {
    let start = Instant::now();
    let mut fold = 0u64;
    for _ in 0..n {
        fold = fold.wrapping_add(f());
    }
    black_box(fold);
    start.elapsed().as_nanos() as f64 / f64::from(n)
}

/// The message side without the UTF-8 check: the text's bytes through the raw object.
fn fold_owned_bytes(o: &Owned<Record>) -> u64 {
    let r = o.get();
    let name = r.as_object().bytes(Record::NAME_OFFSET);
    r.id()
        ^ name.len() as u64
        ^ u64::from(name.get(name.len() / 2).copied().unwrap_or(0))
        ^ r.blob().len() as u64
        ^ r.items()
            .map(|i| i.id() ^ u64::from(i.score()) ^ u64::from(i.rank()))
            .fold(0u64, u64::wrapping_add)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Allocations per call of the `get` and `get_owned` stubs over TCP.
fn client_allocations(calls: u64) -> (f64, f64) {
    let server_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("server runtime");
    let listener = server_rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind");
    let addr = listener.local_addr().expect("address");
    let stop = CancellationToken::new();
    let server = server_rt.spawn(
        Server::new(
            listener,
            Arc::new(RecordsService::new(Handler)),
            ServerConfig::default(),
        )
        .run(stop.clone()),
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("client runtime");
    let per_call = rt.block_on(async {
        let client = RecordsClient::new(Client::connect(addr).await.expect("connect"));
        let q = RecordQuery { id: 7 };
        let want = fold_value(&record(7));
        let mut counted = [0.0; 2];
        for (i, owned) in [false, true].into_iter().enumerate() {
            for measured in [false, true] {
                let n = if measured { calls } else { calls / 5 + 100 };
                let before = allocations();
                for _ in 0..n {
                    let got = if owned {
                        fold_owned(&client.get_owned(&q).await.expect("get_owned"))
                    } else {
                        fold_value(&client.get(&q).await.expect("get"))
                    };
                    assert_eq!(got, want, "a wrong answer");
                }
                if measured {
                    counted[i] = (allocations() - before) as f64 / n as f64;
                }
            }
        }
        counted
    });
    stop.cancel();
    let _ = server_rt.block_on(server);
    (per_call[0], per_call[1])
}

fn main() {
    let args = Args::parse();
    let body = Bytes::from(record(7).to_bytes().expect("the record encodes"));
    let n = args.iterations;
    let mut ratios = Vec::new();
    let mut ratios_bytes = Vec::new();
    let (mut structs, mut messages) = (Vec::new(), Vec::new());
    println!("round  struct ns  message ns  ratio");
    for round in 1..=args.rounds {
        // Alternate which side goes first, so neither always runs on a warmer cache.
        let (s, m) = if round % 2 == 0 {
            let s = per_answer(n, || fold_value(&Record::decode(&body).unwrap()));
            let m = per_answer(n, || {
                fold_owned(&Owned::<Record>::from_bytes(body.clone()).unwrap())
            });
            (s, m)
        } else {
            let m = per_answer(n, || {
                fold_owned(&Owned::<Record>::from_bytes(body.clone()).unwrap())
            });
            let s = per_answer(n, || fold_value(&Record::decode(&body).unwrap()));
            (s, m)
        };
        if args.no_utf8 {
            let b = per_answer(n, || {
                fold_owned_bytes(&Owned::<Record>::from_bytes(body.clone()).unwrap())
            });
            ratios_bytes.push(s / b);
        }
        println!("{round:>5}  {s:>9.1}  {m:>10.1}  {:.2}x", s / m);
        ratios.push(s / m);
        structs.push(s);
        messages.push(m);
    }
    let ratio = median(ratios.clone());
    let (s, m) = (median(structs), median(messages));
    println!(
        "median of {} rounds: owned struct {s:.1} ns, owned message {m:.1} ns per answer: {ratio:.2}x",
        args.rounds
    );
    let ratio_no_utf8 = (!ratios_bytes.is_empty()).then(|| median(ratios_bytes.clone()));
    if let Some(r) = ratio_no_utf8 {
        println!("without the UTF-8 check on the message side: {r:.2}x");
    }
    let (struct_allocs, owned_allocs) = client_allocations(args.calls);
    println!(
        "client allocations per call over TCP: get (owned struct) {struct_allocs:.2}, get_owned (owned message) {owned_allocs:.2}"
    );
    if let Some(path) = args.json {
        let json = serde_json::json!({
            "rounds": args.rounds,
            "iterations": n,
            "struct_ns": s,
            "message_ns": m,
            "ratio_median": ratio,
            "ratio_median_no_utf8": ratio_no_utf8,
            "ratios": ratios,
            "ratios_no_utf8": ratios_bytes,
            "client_allocs_per_call": { "get": struct_allocs, "get_owned": owned_allocs },
        });
        std::fs::write(&path, serde_json::to_string_pretty(&json).expect("json"))
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    }
}

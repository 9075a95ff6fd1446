//! Heap allocations per operation for every codec and operation of the criterion
//! benches (the same code paths), counted by a global allocator, and the wire size of
//! the request and the response for each codec, and the same for the logs record
//! (codecs named `logs:NAME`, operations `logs_encode`, `logs_decode`, `logs_field`).
//!
//! `allocs [--json PATH]`: prints a table; with `--json`, also writes the numbers for
//! `benches/run.sh`. `allocs --only CODEC/OP [--iterations N]` runs that one operation
//! alone (N, default 10,000, plus a tenth as many for warm-up), so that
//! `valgrind --tool=callgrind` can count its instructions: run.sh subtracts a run of
//! `--only none` and divides.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;
use std::io::Write as _;

use zap_benches::codecs::{Codec, LogsCodec, ZapFixed};
use zap_benches::values::{logs, request, response, Sink, PICK};
use zap_benches::{for_each_codec, for_each_logs_codec};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    static BYTES: Cell<u64> = const { Cell::new(0) };
}

fn count(bytes: usize) {
    ALLOCATIONS.with(|c| c.set(c.get() + 1));
    BYTES.with(|c| c.set(c.get() + bytes as u64));
}

// SAFETY: every call is forwarded unchanged to the system allocator; the only addition
// is bumping two thread-local counters, which never allocates.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as our caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        // SAFETY: same contract as our caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const ITERATIONS: u64 = 10_000;

/// Measured iterations (after a tenth as many for warm-up): [`ITERATIONS`] unless
/// `--iterations` says otherwise (callgrind runs of the slow logs operations use fewer).
static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(ITERATIONS);

/// Allocations and bytes per call of `op`, after a warm-up.
fn per_op(op: &mut dyn FnMut()) -> (f64, f64) {
    let runs = RUNS.load(std::sync::atomic::Ordering::Relaxed);
    for _ in 0..runs / 10 {
        op();
    }
    let (a0, b0) = (ALLOCATIONS.with(Cell::get), BYTES.with(Cell::get));
    for _ in 0..runs {
        op();
    }
    let (a1, b1) = (ALLOCATIONS.with(Cell::get), BYTES.with(Cell::get));
    (
        (a1 - a0) as f64 / runs as f64,
        (b1 - b0) as f64 / runs as f64,
    )
}

#[derive(Debug)]
struct Row {
    codec: &'static str,
    op: &'static str,
    allocs: f64,
    bytes: f64,
}

#[derive(Debug)]
struct Size {
    codec: &'static str,
    request: usize,
    response: usize,
}

/// The logs record's codecs are named `logs:NAME` here (so `zap` and `prost` rows do
/// not mix with the eth record's); their one size is the encoded logs.
fn measure_logs<C: LogsCodec>(rows: &mut Vec<Row>, sizes: &mut Vec<Size>, only: Option<&str>) {
    let name: &'static str = Box::leak(format!("logs:{}", C::NAME).into_boxed_str());
    if only.is_some_and(|only| !only.starts_with(&format!("{name}/"))) {
        return;
    }
    let value = C::prepare_logs(&logs());
    let wire = C::default().encode_logs(&value).to_vec();
    sizes.push(Size {
        codec: name,
        request: 0,
        response: wire.len(),
    });
    let mut c = C::default();
    let mut row = |op, run: &mut dyn FnMut()| {
        if wanted(only, name, op) {
            let (allocs, bytes) = per_op(run);
            rows.push(Row {
                codec: name,
                op,
                allocs,
                bytes,
            });
        }
    };
    row("logs_encode", &mut || {
        black_box(c.encode_logs(black_box(&value)).len());
    });
    row("logs_decode", &mut || {
        let mut sink = Sink::default();
        black_box(c.decode_logs(black_box(&wire), &mut sink).is_ok());
        black_box(sink);
    });
    row("logs_field", &mut || {
        let mut sink = Sink::default();
        black_box(
            c.read_log_hash(black_box(&wire), black_box(PICK), &mut sink)
                .is_ok(),
        );
        black_box(sink);
    });
}

/// Is `codec/op` selected (`None`: everything)?
fn wanted(only: Option<&str>, codec: &str, op: &str) -> bool {
    only.is_none_or(|only| only.split_once('/') == Some((codec, op)))
}

fn measure<C: Codec>(rows: &mut Vec<Row>, sizes: &mut Vec<Size>, only: Option<&str>) {
    if only.is_some_and(|only| !only.starts_with(&format!("{}/", C::NAME))) {
        return;
    }
    let req_in = C::prepare_request(&request());
    let resp_in = C::prepare_response(&response());
    let req = C::default().encode_request(&req_in).to_vec();
    let resp = C::default().encode_response(&resp_in).to_vec();
    sizes.push(Size {
        codec: C::NAME,
        request: req.len(),
        response: resp.len(),
    });
    let mut c = C::default();
    let mut s = C::default();
    let mut row = |op, run: &mut dyn FnMut()| {
        if wanted(only, C::NAME, op) {
            let (allocs, bytes) = per_op(run);
            rows.push(Row {
                codec: C::NAME,
                op,
                allocs,
                bytes,
            });
        }
    };
    row("decode_request", &mut || {
        let mut sink = Sink::default();
        black_box(c.decode_request(black_box(&req), &mut sink).is_ok());
        black_box(sink);
    });
    row("decode_response", &mut || {
        let mut sink = Sink::default();
        black_box(c.decode_response(black_box(&resp), &mut sink).is_ok());
        black_box(sink);
    });
    row("encode_request", &mut || {
        black_box(c.encode_request(black_box(&req_in)).len());
    });
    row("encode_response", &mut || {
        black_box(c.encode_response(black_box(&resp_in)).len());
    });
    row("roundtrip", &mut || {
        let mut sink = Sink::default();
        let wire = c.encode_request(black_box(&req_in));
        let ok = s.decode_request(wire, &mut sink).is_ok();
        let wire = s.encode_response(black_box(&resp_in));
        black_box(ok & c.decode_response(wire, &mut sink).is_ok());
        black_box(sink);
    });
    row("handler", &mut || {
        black_box(c.handle(black_box(&req)).map(|w| w.len()).ok());
    });
}

/// The fixed layout built through `BuilderPool` (get, build, give back).
fn pooled(rows: &mut Vec<Row>, only: Option<&str>) {
    if !wanted(only, "zap_fixed_pooled", "encode_response") {
        return;
    }
    use zap_benches::generated::eth::BalanceResponseBuilder;
    let pool = zap_runtime::BuilderPool::new();
    let v = ZapFixed::prepare_response(&response());
    let (allocs, bytes) = per_op(&mut || {
        let mut builder = pool.get();
        let mut r = BalanceResponseBuilder::new(&mut builder);
        r.set_id(v.id)
            .set_balance(v.balance)
            .set_nonce(v.nonce)
            .set_block_hash(&v.block_hash);
        black_box(r.finish_message().expect("within the limit").len());
    });
    rows.push(Row {
        codec: "zap_fixed_pooled",
        op: "encode_response",
        allocs,
        bytes,
    });
}

/// The constant-offset writer: the floor of ZAP encoding.
fn direct(rows: &mut Vec<Row>, only: Option<&str>) {
    if !wanted(only, "zap_fixed_direct", "encode_response") {
        return;
    }
    let v = response();
    let mut out = Vec::with_capacity(256);
    let (allocs, bytes) = per_op(&mut || {
        black_box(zap_benches::codecs::encode_response_direct(&mut out, black_box(&v)).len());
    });
    rows.push(Row {
        codec: "zap_fixed_direct",
        op: "encode_response",
        allocs,
        bytes,
    });
}

fn to_json(rows: &[Row], sizes: &[Size]) -> serde_json::Value {
    serde_json::json!({
        "iterations": ITERATIONS,
        "allocs": rows.iter().map(|r| serde_json::json!({
            "codec": r.codec, "op": r.op, "allocs": r.allocs, "bytes": r.bytes,
        })).collect::<Vec<_>>(),
        "sizes": sizes.iter().map(|s| serde_json::json!({
            "codec": s.codec, "request": s.request, "response": s.response,
        })).collect::<Vec<_>>(),
    })
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (json_path, only) = match args.as_slice() {
        [] => (None, None),
        [flag, path] if flag == "--json" => (Some(path.clone()), None),
        [flag, sel] if flag == "--only" => (None, Some(sel.as_str())),
        [flag, sel, it, n] if flag == "--only" && it == "--iterations" => {
            match n.parse::<u64>() {
                Ok(n) if n > 0 => RUNS.store(n, std::sync::atomic::Ordering::Relaxed),
                _ => {
                    eprintln!("allocs: --iterations wants a positive number, not {n}");
                    return std::process::ExitCode::from(2);
                }
            }
            (None, Some(sel.as_str()))
        }
        _ => {
            eprintln!("usage: allocs [--json PATH | --only CODEC/OP [--iterations N]]");
            return std::process::ExitCode::from(2);
        }
    };
    let mut rows = Vec::new();
    let mut sizes = Vec::new();
    for_each_codec!(measure(&mut rows, &mut sizes, only));
    for_each_logs_codec!(measure_logs(&mut rows, &mut sizes, only));
    pooled(&mut rows, only);
    direct(&mut rows, only);

    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "allocations per operation ({} iterations after {} warm-up):",
        RUNS.load(std::sync::atomic::Ordering::Relaxed),
        RUNS.load(std::sync::atomic::Ordering::Relaxed) / 10
    );
    let _ = writeln!(
        out,
        "{:<22} {:<16} {:>8} {:>10}",
        "codec", "operation", "allocs", "bytes"
    );
    for r in &rows {
        let _ = writeln!(
            out,
            "{:<22} {:<16} {:>8.2} {:>10.1}",
            r.codec, r.op, r.allocs, r.bytes
        );
    }
    let _ = writeln!(out, "\nwire sizes (bytes):");
    let _ = writeln!(
        out,
        "{:<22} {:>8} {:>9}  (logs:*: the logs record, as the response)",
        "codec", "request", "response"
    );
    for s in &sizes {
        let _ = writeln!(out, "{:<22} {:>8} {:>9}", s.codec, s.request, s.response);
    }
    if let Some(path) = json_path {
        if let Err(e) = std::fs::write(&path, to_json(&rows, &sizes).to_string()) {
            eprintln!("allocs: cannot write {path}: {e}");
            return std::process::ExitCode::FAILURE;
        }
    }
    std::process::ExitCode::SUCCESS
}

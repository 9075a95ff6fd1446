//! A handler that keeps its requests past their calls: `Service::call_owned` hands it
//! each request as `Bytes` cut out of the connection's read buffer, so keeping 1,000 of
//! them (in another task, which answers them later) copies no request bytes, while the
//! connection goes on reading. Counted with the counting allocator on the one thread that
//! runs the server, the worker task and a raw client.

mod server_support;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use server_support::{quick_config, request_frame, TestServer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, watch};
use zap_runtime::rpc::{Response, Status};
use zap_runtime::server::{CancellationToken, Server, ServerConfig};
use zap_runtime::{Builder, Bytes, CallError, Message, MethodInfo, Owned, Reply, Service};

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::{allocations, live_bytes};

/// Requests kept at once.
const KEPT: usize = 1000;
/// `submit({u64 id @0, bytes data @8}) -> {u64 id}`: the job is kept, answered later.
const SUBMIT: u32 = 1;
/// `result({u64 id @0}) -> {u64 id, u64 sum}`: waits until the worker answered `id`.
const RESULT: u32 = 2;

/// A kept job: read through `Owned::root` (no generated reader needed).
struct Job;

struct Jobs {
    kept: mpsc::UnboundedSender<Owned<Job>>,
    /// The worker's answers, by id (allocated up front).
    sums: Arc<Mutex<Vec<u64>>>,
    ready: watch::Receiver<bool>,
}

fn bad(e: impl std::fmt::Display) -> CallError {
    CallError::bad_request(e.to_string())
}

fn answer(out: &mut Builder, id: u64, sum: Option<u64>) -> Result<Reply, CallError> {
    let mut obj = out.start_object(if sum.is_some() { 16 } else { 8 });
    obj.set_u64(0, id);
    if let Some(sum) = sum {
        obj.set_u64(8, sum);
    }
    obj.finish_as_root();
    out.finish()?;
    Ok(Reply::Message)
}

impl Service for Jobs {
    const NAME: &'static str = "Jobs";
    const METHODS: &'static [MethodInfo] = &[];

    /// Borrowed calls (pipelined ones) take a copy the owned way.
    async fn call<'a>(
        &'a self,
        ordinal: u32,
        payload: &'a [u8],
        out: &'a mut Builder,
    ) -> Result<Reply, CallError> {
        self.call_owned(ordinal, Bytes::copy_from_slice(payload), out)
            .await
    }

    async fn call_owned<'a>(
        &'a self,
        ordinal: u32,
        payload: Bytes,
        out: &'a mut Builder,
    ) -> Result<Reply, CallError> {
        match ordinal {
            SUBMIT => {
                let job = Owned::<Job>::from_bytes(payload).map_err(bad)?;
                let id = job.root().u64(0);
                self.kept.send(job).map_err(bad)?;
                answer(out, id, None)
            }
            RESULT => {
                let id = Message::parse(&payload).map_err(bad)?.root().u64(0);
                let mut ready = self.ready.clone();
                ready.wait_for(|r| *r).await.map_err(bad)?;
                let sum = self.sums.lock().unwrap()[id as usize];
                answer(out, id, Some(sum))
            }
            n => Err(CallError::unknown_method(Self::NAME, n)),
        }
    }
}

/// Job `id`'s data: its length and bytes vary with the id.
fn data(id: u64) -> Vec<u8> {
    (0..40 + id % 50).map(|i| (id * 31 + i) as u8).collect()
}

fn expected_sum(id: u64) -> u64 {
    id * 1_000_000 + data(id).iter().map(|&b| u64::from(b)).sum::<u64>()
}

fn submit_payload(id: u64) -> Vec<u8> {
    let mut b = Builder::new();
    let mut obj = b.start_object(16);
    obj.set_u64(0, id);
    obj.set_bytes(8, &data(id));
    obj.finish_as_root();
    b.finish().unwrap().to_vec()
}

fn id_payload(id: u64) -> Vec<u8> {
    let mut b = Builder::new();
    let mut obj = b.start_object(8);
    obj.set_u64(0, id);
    obj.finish_as_root();
    b.finish().unwrap().to_vec()
}

/// Frame header, envelope header and response object, then a body of `body` bytes.
const fn answer_len(body: usize) -> usize {
    5 + 16 + 20 + body
}

/// Send `frames` from another task while reading answers into `answers` (the caller
/// owns both buffers, so neither shows in its measurement).
async fn exchange(addr: SocketAddr, frames: Bytes, answers: &mut [u8]) {
    let stream = TcpStream::connect(addr).await.unwrap();
    stream.set_nodelay(true).unwrap();
    let (mut rd, mut wr) = stream.into_split();
    let writer = tokio::spawn(async move {
        wr.write_all(&frames).await.unwrap();
        wr
    });
    rd.read_exact(answers).await.unwrap();
    drop(writer.await.unwrap());
}

#[test]
fn a_handler_keeps_1000_requests_without_copying_them() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (kept, mut to_worker) = mpsc::unbounded_channel::<Owned<Job>>();
        let (set_ready, ready) = watch::channel(false);
        let sums = Arc::new(Mutex::new(vec![0u64; KEPT]));
        let peak = Arc::new(AtomicI64::new(0));
        // The worker: holds every job until all 1,000 are in, then answers them all.
        let worker = {
            let (sums, peak) = (Arc::clone(&sums), Arc::clone(&peak));
            tokio::spawn(async move {
                let mut jobs = Vec::with_capacity(KEPT);
                while jobs.len() < KEPT {
                    jobs.push(to_worker.recv().await.expect("a job"));
                }
                peak.store(live_bytes(), Ordering::SeqCst);
                let mut sums = sums.lock().unwrap();
                for job in &jobs {
                    let root = job.root();
                    let id = root.u64(0);
                    let sum: u64 = root.bytes(8).iter().map(|&b| u64::from(b)).sum();
                    sums[id as usize] = id * 1_000_000 + sum;
                }
                drop(jobs);
                set_ready.send(true).unwrap();
            })
        };
        let mut kept_all = ready.clone();
        let service = Jobs { kept, sums, ready };
        // No pipelining ring (64 KiB a connection), so what is live is what is kept.
        let config = ServerConfig {
            pipeline_results: 0,
            ..quick_config()
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = CancellationToken::new();
        let server =
            tokio::spawn(Server::new(listener, Arc::new(service), config).run(stop.clone()));

        let mut submits = Vec::new();
        for id in 0..KEPT as u64 {
            submits.extend(request_frame(SUBMIT, id as u32 + 1, 0, &submit_payload(id)));
        }
        let mut results = Vec::new();
        for id in 0..KEPT as u64 {
            results.extend(request_frame(RESULT, id as u32 + 1, 0, &id_payload(id)));
        }
        let submitted_bytes = submits.len() as i64;
        let (submits, results) = (Bytes::from(submits), Bytes::from(results));

        let mut acks = vec![0u8; KEPT * answer_len(24)];
        let mut answers = vec![0u8; KEPT * answer_len(32)];

        let (allocs_before, live_before) = (allocations(), live_bytes());
        exchange(addr, submits.clone(), &mut acks).await;
        let submit_allocs = allocations() - allocs_before;
        // The peak is taken once the worker holds every job, before the results are
        // asked for (calls waiting for it would run beside each other, each with its
        // own buffers, and count too).
        kept_all.wait_for(|r| *r).await.unwrap();
        exchange(addr, results.clone(), &mut answers).await;
        worker.await.unwrap();
        stop.cancel();
        server.await.unwrap().unwrap();
        let kept_bytes = peak.load(Ordering::SeqCst) - live_before;
        let live_after = live_bytes() - live_before;
        eprintln!(
            "kept {KEPT} requests ({submitted_bytes} bytes): {submit_allocs} allocations, \
             {kept_bytes} bytes live at the peak, {live_after} after"
        );

        // Every call was acknowledged, then answered right, from the kept bytes.
        for (i, ack) in acks.chunks(answer_len(24)).enumerate() {
            let resp = Response::parse(&ack[5..]).unwrap();
            assert_eq!((resp.status, resp.promise_id), (Status::OK, i as u32 + 1));
            assert_eq!(Message::parse(resp.body).unwrap().root().u64(0), i as u64);
        }
        // The results wait for the worker, so they run beside each other and are
        // answered in any order: by PromiseID.
        let mut answered: Vec<Response<'_>> = answers
            .chunks(answer_len(32))
            .map(|answer| Response::parse(&answer[5..]).unwrap())
            .collect();
        answered.sort_by_key(|resp| resp.promise_id);
        for (i, resp) in answered.into_iter().enumerate() {
            assert_eq!((resp.status, resp.promise_id), (Status::OK, i as u32 + 1));
            let root = Message::parse(resp.body).unwrap().root();
            assert_eq!(
                (root.u64(0), root.u64(8)),
                (i as u64, expected_sum(i as u64))
            );
        }

        // No copy of a request: a copy would be at least one allocation per request.
        // What is counted: the read buffer's blocks (each pinned by the jobs in it),
        // the channel's blocks, the worker's vector, the client's tasks.
        assert!(
            submit_allocs < (KEPT / 10) as u64,
            "{submit_allocs} allocations to keep {KEPT} requests"
        );
        // Memory bounded by the kept messages: the blocks they pin hold little else
        // than their frames ({submitted_bytes} bytes; 64 KiB for the connections'
        // buffers and tasks), and it is all freed with them.
        assert!(
            kept_bytes < 2 * submitted_bytes + (64 << 10),
            "{kept_bytes} bytes live while keeping {submitted_bytes} bytes of requests"
        );
        assert!(
            kept_bytes > submitted_bytes / 2,
            "the kept requests are counted: {kept_bytes} of {submitted_bytes} bytes"
        );
        assert!(
            live_after < 16 << 10,
            "{live_after} bytes still live after the jobs were dropped and the server stopped"
        );
    });
}

/// Pipelined calls and the hand-written `call` fallback still work on such a service.
#[test]
fn owned_services_serve_the_calc_tests_unchanged() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        // The Calc service keeps the default `call_owned`: it borrows for `call`.
        let server = TestServer::start(quick_config()).await;
        let frames = request_frame(server_support::ADD, 1, 0, &server_support::pair(2, 3));
        let mut answers = vec![0u8; answer_len(24)];
        exchange(server.addr, frames.into(), &mut answers).await;
        let resp = Response::parse(&answers[5..]).unwrap();
        assert_eq!(server_support::value(resp.body), 5);
        server.shutdown().await;
    });
}

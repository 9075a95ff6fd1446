//! One connection: read frames, answer each request in order, flush once per batch.

use std::fmt::Write as _;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::ops::Range;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures_util::stream::{FuturesUnordered, StreamExt};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::oneshot;
use tokio::time::{sleep, Instant, Sleep};
use tokio_util::sync::CancellationToken;

use super::answers::{Answers, Head};
use super::faults::warn_fault;
use super::framing::{ConnDecoder, ConnError, ConnFrame};
use super::respond::{put_response, put_response_shared, put_response_with, salvage_promise_id};
use super::results::{Lookup, Results};
use super::streams::{Delivery, StreamFault, Streams};
use super::ServerConfig;
use crate::call::{self, Payload, Pipeline};
use crate::context::Context;
use crate::frame::node::{Flag, NodeFrame};
use crate::frame::Direction;
use crate::frame_reader::{FrameReader, Within};
use crate::rpc::NO_TARGET;
use crate::rpc::{Request, Status};
use crate::service::{Reply, Service};
use crate::shed::LoadLimit;
use crate::Builder;

/// How long a closing connection waits for its peer to finish sending (lingering close:
/// closing a socket with unread input would reset it and could destroy our last answers).
const LINGER: Duration = Duration::from_secs(1);

/// Why a connection ended.
#[derive(Debug)]
pub(super) enum Close {
    /// The peer closed its side.
    Eof { pending: usize },
    /// The server is shutting down.
    Shutdown,
    /// No complete frame within the idle timeout.
    Idle,
    /// Too few bytes to tell the framing within the first-bytes timeout.
    FirstBytes,
    /// A node handshake begun and not complete within the handshake timeout.
    HandshakeTimeout,
    /// The answers could not be written within the idle timeout (the peer does not read).
    WriteStalled,
    /// The byte stream is not valid framing.
    Frame(ConnError),
    /// A well-formed frame this server does not handle.
    Unsupported(Direction),
    /// A well-formed node frame this server does not handle.
    Unexpected(&'static str),
    /// A node request reused the reqID of one whose answer was not even sent yet.
    DuplicateReqId(u32),
    /// A stream frame broke the streams' rules.
    Stream(StreamFault),
    /// The socket failed.
    Io(io::Error),
}

/// Per-connection state, reused for every request.
struct Conn<'c> {
    config: &'c ServerConfig,
    peer: SocketAddr,
    frames: FrameReader<ConnDecoder>,
    write: Answers,
    /// Error texts written by the server itself.
    text: String,
    /// Working buffers of calls, reused: one per call running at once. Boxed, so that
    /// handing them to a call, and back, moves a pointer, not the buffers' headers.
    #[allow(clippy::vec_box)]
    jobs: Vec<Box<Job>>,
    results: Results,
    streams: Streams,
}

/// Serve one accepted connection (a TCP stream, or a TLS stream over one) until it
/// ends; never panics on input.
pub(crate) async fn run<S: Service, IO: AsyncRead + AsyncWrite + Unpin>(
    mut stream: IO,
    peer: SocketAddr,
    service: &Arc<S>,
    config: &ServerConfig,
    shutdown: &CancellationToken,
) {
    let mut conn = Conn {
        config,
        peer,
        frames: FrameReader::with_decoder(ConnDecoder::new(config))
            .with_budget(config.buffer_budget.clone()),
        write: Answers::default(),
        text: String::with_capacity(256),
        jobs: Vec::new(),
        results: Results::new(config.pipeline_results, config.pipeline_bytes),
        streams: Streams::new(config),
    };
    let reason = match super::framing::open(&mut conn.frames, &mut stream, config, shutdown).await {
        Ok(node) => {
            if let Some(node) = node {
                tracing::debug!(%peer, %node, "zap: node transport handshake done");
            }
            let serve = conn.serve(&mut stream, service, shutdown);
            super::context::scope(peer, node, serve).await
        }
        Err(close) => close,
    };
    conn.log_close(&reason);
    conn.end_streams(&reason).await;
    conn.close(&mut stream, &reason).await;
}

impl Conn<'_> {
    async fn serve<S: Service, IO: AsyncRead + AsyncWrite + Unpin>(
        &mut self,
        stream: &mut IO,
        service: &Arc<S>,
        shutdown: &CancellationToken,
    ) -> Close {
        let idle = sleep(self.config.idle_timeout);
        tokio::pin!(idle);
        let cancelled = shutdown.cancelled();
        tokio::pin!(cancelled);
        let outbox = Arc::clone(self.streams.outbox());
        let limit = self.config.load_limit.clone();
        let make = |job: Box<Job>| run_job(&**service, limit.as_ref(), job);
        let mut calls = Calls::new();
        let close = loop {
            // A batch that answered anything re-arms the idle timer when it flushes.
            if let Err(close) = self
                .answer_batch(stream, service, idle.as_mut(), shutdown, &make, &mut calls)
                .await
            {
                break close;
            }
            if let Err(close) = self.flush(stream, idle.as_mut()).await {
                break close;
            }
            // While a stream is open the connection is not idle: each stream has its
            // own idle timeout. Without one, no handler can write stream frames or
            // finish, and those two branches are not polled (each poll of them costs
            // a waiter registration). Shutdown is the first branch looked at.
            let streaming = !self.streams.is_empty();
            // Calls running beside the connection keep it from being idle too.
            let running = !calls.parked.is_empty();
            tokio::select! {
                biased;
                () = &mut cancelled => break Close::Shutdown,
                () = &mut idle, if !streaming && !running => break Close::Idle,
                // A call that did not answer at once has answered: the next turn
                // flushes its answer.
                Some(finished) = calls.parked.next(), if running => {
                    self.finished(&mut calls, finished);
                }
                // A handler wrote stream frames: the next turn flushes them.
                () = outbox.ready(), if streaming => {}
                () = self.streams.finished(), if streaming => {
                    if self.streams.is_empty() {
                        idle.as_mut().reset(Instant::now() + self.config.idle_timeout);
                    }
                }
                read = self.frames.read_from(stream) => match read {
                    Ok(0) => break Close::Eof { pending: self.frames.pending() },
                    Ok(_) => {}
                    Err(e) => break Close::Io(e),
                },
            }
        };
        // The peer closed its side, or the server is shutting down: the calls still
        // running are answered, within the drain timeout; otherwise they are dropped
        // with the connection.
        if matches!(close, Close::Eof { .. } | Close::Shutdown) && !calls.parked.is_empty() {
            let drain = sleep(self.config.drain_timeout);
            tokio::pin!(drain);
            loop {
                tokio::select! {
                    () = &mut drain => break,
                    finished = calls.parked.next() => match finished {
                        Some(finished) => self.finished(&mut calls, finished),
                        None => break,
                    },
                }
            }
        }
        close
    }

    /// Write the answer of a call that ran beside later ones, and take back its
    /// buffers (or answer 499 for one its caller cancelled).
    fn finished<F: Future<Output = Done>>(
        &mut self,
        calls: &mut Calls<F>,
        (slot, result): Finished<F>,
    ) {
        calls.slots.push(slot);
        match result {
            Ok(done) => {
                calls.forget(done.job.call.promise_id, done.job.call.head);
                let job = self.write_done(done);
                self.jobs.push(job);
            }
            Err((promise_id, head)) => {
                calls.forget(promise_id, head);
                self.write.resume(head);
                self.text.clear();
                self.text
                    .push_str("cancelled: the caller gave up on the call");
                put_response(
                    &mut self.write,
                    Status::CANCELLED,
                    promise_id,
                    self.text.as_bytes(),
                );
                self.results.record_failed(promise_id, Status::CANCELLED.0);
            }
        }
    }

    /// Wait until one running call answers, flushing meanwhile what the stream
    /// handlers write.
    async fn wait_one<F: Future<Output = Done>, IO: AsyncWrite + Unpin>(
        &mut self,
        stream: &mut IO,
        calls: &mut Calls<F>,
        mut idle: Pin<&mut Sleep>,
        shutdown: &CancellationToken,
    ) -> Result<(), Close> {
        self.flush(stream, idle.as_mut()).await?;
        let outbox = Arc::clone(self.streams.outbox());
        // A call read before shutdown is still answered: once shutdown starts, the
        // running calls have the drain timeout to make room for it.
        let drained = async {
            shutdown.cancelled().await;
            sleep(self.config.drain_timeout).await;
        };
        tokio::pin!(drained);
        loop {
            tokio::select! {
                biased;
                () = &mut drained => return Err(Close::Shutdown),
                finished = calls.parked.next() => {
                    if let Some(finished) = finished {
                        self.finished(calls, finished);
                    }
                    return Ok(());
                }
                () = outbox.ready() => self.flush(stream, idle.as_mut()).await?,
            }
        }
    }

    /// Answer every complete frame in the read buffer, flushing early only when the
    /// write buffer passes its limit (or `max_in_flight` answers wait).
    #[allow(clippy::too_many_arguments)] // the connection's parts, passed apart
    async fn answer_batch<S, IO, F, M>(
        &mut self,
        stream: &mut IO,
        service: &Arc<S>,
        mut idle: Pin<&mut Sleep>,
        shutdown: &CancellationToken,
        make: &M,
        calls: &mut Calls<F>,
    ) -> Result<(), Close>
    where
        S: Service,
        IO: AsyncWrite + Unpin,
        F: Future<Output = Done>,
        M: Fn(Box<Job>) -> F,
    {
        let mut answered = 0usize;
        loop {
            // Each request frame is split off the read buffer as `Bytes` (no copy), so a
            // handler may keep its payload past the call.
            let (call, frame) = match self.frames.next_frame_bytes(CallFrame::of) {
                Ok(Some(next)) => next,
                Ok(None) => return Ok(()),
                Err(e) => return Err(Close::Frame(e)),
            };
            let envelope = match call {
                CallFrame::Rpc(envelope) => {
                    self.write.begin_rpc();
                    envelope
                }
                CallFrame::Node { req_id, envelope } => {
                    if calls.running(Head::Node { req_id }) {
                        return Err(Close::DuplicateReqId(req_id));
                    }
                    self.write
                        .begin_node(req_id)
                        .map_err(Close::DuplicateReqId)?;
                    envelope
                }
                CallFrame::Cancel(promise_id) => {
                    calls.cancel(promise_id);
                    continue;
                }
                CallFrame::Refused(close) => return Err(close),
                CallFrame::StreamOpen(envelope) => {
                    self.streams
                        .open(service, &frame, envelope, self.config, self.peer)
                        .map_err(Close::Stream)?;
                    continue;
                }
                CallFrame::StreamMessage { id, message } => {
                    let delivery = self.streams.message(id, frame.slice(message));
                    self.deliver(stream, delivery, idle.as_mut(), shutdown)
                        .await?;
                    continue;
                }
                CallFrame::StreamEnd(id) => {
                    let delivery = self.streams.end(id);
                    self.deliver(stream, delivery, idle.as_mut(), shutdown)
                        .await?;
                    continue;
                }
                CallFrame::Ignored => continue,
            };
            // The call is read into the buffers it runs with.
            let mut job = self.jobs.pop().unwrap_or_default();
            let admitted = admit(
                frame,
                envelope,
                self.write.head(),
                &mut job.call,
                &mut self.write,
                &mut self.results,
                &mut self.text,
                self.peer,
                self.config,
                S::CAPABILITY,
            );
            if !admitted {
                self.jobs.push(job);
                answered += 1;
                continue;
            }
            let (promise_id, head, target) = (job.call.promise_id, job.call.head, job.call.target);
            // A call pipelined on one still running waits for its result.
            while target != NO_TARGET && calls.running_promise(target) {
                self.wait_one(stream, calls, idle.as_mut(), shutdown)
                    .await?;
            }
            // Past the most calls running at once, wait for one to answer.
            while calls.parked.len() >= self.config.max_in_flight.max(1) {
                self.wait_one(stream, calls, idle.as_mut(), shutdown)
                    .await?;
            }
            job.why.clear();
            job.target_body.clear();
            if target != NO_TARGET {
                let mut pipeline = ConnPipeline {
                    results: &mut self.results,
                    callers: self.config.authorize.is_some(),
                };
                if let Some(cap) = &job.call.cap {
                    pipeline.admitted(cap);
                }
                match pipeline.result(target, &mut job.why) {
                    Ok(body) => job.target_body.extend_from_slice(body),
                    Err(status) => {
                        let head = CallHead::of(&job.call);
                        job.call.release();
                        refused(
                            &mut self.write,
                            &mut self.results,
                            self.peer,
                            &head,
                            status,
                            &job.why,
                        );
                        self.jobs.push(job);
                        answered += 1;
                        continue;
                    }
                }
            }
            // The methods every server answers (reflection, health) at reserved ordinals.
            if crate::builtin::is_builtin(job.call.method) {
                let outcome = builtin_job::<S>(&mut job, &self.config.readiness);
                let job = self.write_done(Done { job, outcome });
                self.jobs.push(job);
                answered += 1;
                continue;
            }
            // Run the call at once; one that does not answer at its first poll runs on
            // beside the calls after it (answered in any order, as the spec allows).
            let mut slot = calls.slots.pop().unwrap_or_else(|| Box::pin(None));
            // Replaces (and drops in place) the call this slot ran last.
            slot.set(Some(make(job)));
            let polled = std::future::poll_fn(|cx| Poll::Ready(poll_slot(slot.as_mut(), cx))).await;
            match polled {
                Some(done) => {
                    calls.slots.push(slot);
                    let job = self.write_done(done);
                    self.jobs.push(job);
                }
                None => calls.park(slot, promise_id, head),
            }
            answered += 1;
            if self.write.len() >= self.config.write_buffer_limit
                || answered >= self.config.max_in_flight
            {
                answered = 0;
                self.flush(stream, idle.as_mut()).await?;
            }
        }
    }

    /// Hand a stream message to its handler's full queue, waiting for room; the
    /// connection reads nothing meanwhile (the wire has no flow control per stream),
    /// but goes on flushing what the handlers write, so a handler that answers each
    /// message before taking the next cannot deadlock with it. A handler that takes
    /// nothing is ended by its stream's idle timeout, and its message dropped.
    async fn deliver<IO: AsyncWrite + Unpin>(
        &mut self,
        stream: &mut IO,
        delivery: Delivery,
        mut idle: Pin<&mut Sleep>,
        shutdown: &CancellationToken,
    ) -> Result<(), Close> {
        let Delivery::Wait(queue, item) = delivery else {
            return Ok(());
        };
        let outbox = Arc::clone(self.streams.outbox());
        loop {
            tokio::select! {
                biased;
                () = shutdown.cancelled() => return Err(Close::Shutdown),
                permit = queue.reserve() => {
                    match permit {
                        Ok(permit) => permit.send(item),
                        Err(_) => self.streams.dropped += 1,
                    }
                    return Ok(());
                }
                () = outbox.ready() => self.flush(stream, idle.as_mut()).await?,
            }
        }
    }

    /// Write out every answer in the write buffer, and the frames the stream handlers
    /// wrote (one write call when the socket accepts it), giving up if the peer takes
    /// none of it for the idle timeout. Re-arms `deadline`, which then also bounds the
    /// wait for the next frame.
    async fn flush<IO: AsyncWrite + Unpin>(
        &mut self,
        stream: &mut IO,
        mut deadline: Pin<&mut Sleep>,
    ) -> Result<(), Close> {
        self.streams.outbox().take_into(self.write.buf_mut());
        if self.write.is_empty() {
            return Ok(());
        }
        deadline
            .as_mut()
            .reset(Instant::now() + self.config.idle_timeout);
        tokio::select! {
            biased;
            // flush: a TLS stream may hold back the tail of what it encrypted.
            written = async {
                self.write.write_to(stream).await?;
                stream.flush().await
            } => written.map_err(Close::Io)?,
            () = deadline => return Err(Close::WriteStalled),
        }
        self.write.clear();
        Ok(())
    }

    fn log_close(&self, reason: &Close) {
        let peer = self.peer;
        match reason {
            Close::Eof { pending: 0 } => tracing::debug!(%peer, "zap: peer closed the connection"),
            Close::Eof { pending } => warn_fault!(
                %peer,
                pending,
                "zap: peer closed the connection in the middle of a frame ({pending} bytes unanswered)"
            ),
            Close::Shutdown => tracing::debug!(%peer, "zap: closing connection for shutdown"),
            Close::Idle => tracing::info!(
                %peer,
                "zap: closing idle connection (no complete frame in {:?})",
                self.config.idle_timeout
            ),
            Close::WriteStalled => warn_fault!(
                %peer,
                "zap: closing connection: peer did not read its answers within {:?}",
                self.config.idle_timeout
            ),
            Close::FirstBytes => tracing::debug!(
                %peer,
                "zap: closing connection: no framing within {:?} of connecting",
                self.config.first_bytes_timeout
            ),
            Close::HandshakeTimeout => tracing::info!(
                %peer,
                "zap: closing connection: node handshake not complete within {:?}",
                self.config.handshake_timeout
            ),
            Close::Frame(e) => warn_fault!(%peer, "zap: closing connection: {e}"),
            Close::Unsupported(dir) => warn_fault!(
                %peer,
                "zap: closing connection: received a {dir:?} frame; this server accepts requests (dir 1) and streams (dirs 3, 4, 5)"
            ),
            Close::Unexpected(what) => warn_fault!(
                %peer,
                "zap: closing connection: received {what} on the node transport; this server accepts only requests (flag 1)"
            ),
            Close::Stream(StreamFault::IdInUse(id)) => warn_fault!(
                %peer,
                "zap: closing connection: a stream open reuses id {id} while that stream is open"
            ),
            Close::DuplicateReqId(id) => warn_fault!(
                %peer,
                "zap: closing connection: node request reuses reqID {id} while that request is in flight"
            ),
            Close::Io(e) => tracing::info!(%peer, "zap: connection failed: {e}"),
        }
    }

    /// End the connection's streams: on a clean close their handlers are dropped and
    /// their end frames join the answers still to send; otherwise every send fails.
    async fn end_streams(&mut self, reason: &Close) {
        if self.streams.is_empty() {
            return;
        }
        match reason {
            Close::Io(_) | Close::WriteStalled => self.streams.abort_all("the connection failed"),
            _ => {
                self.streams.end_all(LINGER).await;
                self.streams.outbox().take_into(self.write.buf_mut());
                self.streams.abort_all("the connection closed");
            }
        }
        if self.streams.dropped > 0 {
            tracing::debug!(peer = %self.peer, dropped = self.streams.dropped, "zap: stream messages for unknown or ended streams were dropped");
        }
    }

    /// Send what is left, signal end of stream, and linger briefly so unread input
    /// does not turn the close into a reset.
    async fn close<IO: AsyncRead + AsyncWrite + Unpin>(&mut self, stream: &mut IO, reason: &Close) {
        let writable = !matches!(reason, Close::Io(_) | Close::WriteStalled);
        if writable && !self.write.is_empty() {
            let _ = tokio::time::timeout(LINGER, self.write.write_to(stream)).await;
        }
        let _ = tokio::time::timeout(LINGER, async {
            let _ = stream.shutdown().await;
            let mut sink = [0u8; 4096];
            while let Ok(n) = stream.read(&mut sink).await {
                if n == 0 {
                    break;
                }
            }
        })
        .await;
    }
}

/// What a frame read by a connection asks for: a call (where its envelope is in the
/// frame), or closing the connection.
enum CallFrame {
    Rpc(Range<usize>),
    Node {
        req_id: u32,
        envelope: Range<usize>,
    },
    /// dir 3: the open's envelope.
    StreamOpen(Range<usize>),
    /// dir 4: a stream message.
    StreamMessage {
        id: u32,
        message: Range<usize>,
    },
    /// dir 5: the peer ended its side of a stream.
    StreamEnd(u32),
    /// dir 6: the caller gave up on the call with this PromiseID.
    Cancel(u32),
    /// A stream frame too short to name a stream: dropped, as the Go runtime does.
    Ignored,
    Refused(Close),
}

impl CallFrame {
    fn of(frame: ConnFrame<'_>, within: Within) -> CallFrame {
        match frame {
            ConnFrame::Rpc(frame) if frame.dir == Direction::Request => {
                CallFrame::Rpc(within.range(frame.envelope))
            }
            ConnFrame::Rpc(frame) if frame.dir == Direction::StreamOpen => {
                CallFrame::StreamOpen(within.range(frame.envelope))
            }
            ConnFrame::Rpc(frame)
                if matches!(frame.dir, Direction::StreamMessage | Direction::StreamEnd) =>
            {
                let Some((id, message)) = frame.stream_body() else {
                    return CallFrame::Ignored;
                };
                match frame.dir {
                    Direction::StreamMessage => CallFrame::StreamMessage {
                        id,
                        message: within.range(message),
                    },
                    _ => CallFrame::StreamEnd(id),
                }
            }
            ConnFrame::Rpc(frame) if frame.dir == Direction::Cancel => {
                match frame.envelope.first_chunk::<4>() {
                    Some(id) => CallFrame::Cancel(u32::from_le_bytes(*id)),
                    None => CallFrame::Ignored,
                }
            }
            ConnFrame::Rpc(frame) => CallFrame::Refused(Close::Unsupported(frame.dir)),
            ConnFrame::Node(NodeFrame::Call(call)) if call.flag == Flag::Request => {
                CallFrame::Node {
                    req_id: call.req_id,
                    envelope: within.range(call.envelope),
                }
            }
            ConnFrame::Node(NodeFrame::Call(_)) => {
                CallFrame::Refused(Close::Unexpected("a response (flag 2)"))
            }
            ConnFrame::Node(NodeFrame::Handshake(_)) => {
                CallFrame::Refused(Close::Unexpected("a second handshake"))
            }
        }
    }
}

/// Read one request frame's envelope (`frame[envelope]`) and admit its caller: `true`
/// with the call, owned and ready to run, in `call`; `false` when it was answered here
/// already (a malformed envelope or context, PromiseID 0, a refused capability: the
/// answer is in `write`).
#[allow(clippy::too_many_arguments)] // the connection's reused buffers, passed apart
fn admit(
    frame: Bytes,
    envelope: Range<usize>,
    head: Head,
    call: &mut JobCall,
    write: &mut Answers,
    results: &mut Results,
    text: &mut String,
    peer: SocketAddr,
    config: &ServerConfig,
    with_capability: bool,
) -> bool {
    text.clear();
    let mut pipeline = ConnPipeline {
        results,
        callers: config.authorize.is_some(),
    };
    // The envelope is read, and the caller admitted, while it is borrowed from the
    // frame; then the frame itself becomes the payload (no reference count taken).
    let context = call::context_after(&frame, envelope.clone());
    let envelope = &frame[envelope];
    let req = match Request::parse(envelope) {
        Ok(req) => req,
        Err(e) => {
            let id = salvage_promise_id(envelope);
            let _ = write!(text, "malformed request envelope: {e}");
            warn_fault!(%peer, promise_id = id, "zap: {text}");
            put_response(write, Status::BAD_REQUEST, id, text.as_bytes());
            return false;
        }
    };
    if req.promise_id == 0 {
        text.push_str("PromiseID 0 is not allowed: a call needs a non-zero PromiseID");
        warn_fault!(%peer, method = req.method, "zap: {text}");
        put_response(write, Status::BAD_REQUEST, 0, text.as_bytes());
        return false;
    }
    let admitted = call::admit_caller(
        &mut config.authorize.as_ref(),
        &mut pipeline,
        req.cap,
        req.method,
        text,
    );
    let refusal = CallHead::from(&req);
    if let Err(status) = admitted {
        refused(write, pipeline.results, peer, &refusal, status, text);
        return false;
    }
    let context = match context {
        Ok(context) => context,
        Err(e) => {
            let _ = write!(text, "malformed call context: {e}");
            warn_fault!(%peer, promise_id = refusal.promise_id, "zap: {text}");
            refused(
                write,
                pipeline.results,
                peer,
                &refusal,
                Status::BAD_REQUEST,
                text,
            );
            return false;
        }
    };
    // The capability is kept only where results are stamped with their caller: a
    // call that runs beside later ones stamps its result when it answers.
    let cap = pipeline
        .callers
        .then(|| crate::owned::range_in(&frame, req.cap));
    let payload = crate::owned::range_in(&frame, req.payload);
    call.cap = cap.map(|cap| frame.slice(cap));
    let context = call::with_capability(context, with_capability, || call.cap.clone());
    call.head = head;
    call.method = refusal.method;
    call.promise_id = refusal.promise_id;
    call.target = refusal.target;
    // The payload as a slice of the frame: owned by the handler if it wants to be.
    call.payload = (refusal.target == NO_TARGET).then(|| crate::owned::cut(frame, payload));
    call.context = context;
    true
}

/// A call admitted and ready to run, owning all it needs, so that it may run beside
/// the calls after it; kept in its [`Job`], so that handing it to its future and back
/// moves a pointer.
pub(super) struct JobCall {
    head: Head,
    method: u32,
    promise_id: u32,
    target: u32,
    /// The request message, a slice of its frame; `None` for a pipelined call, whose
    /// payload is the remembered result copied into [`Job::target_body`].
    payload: Option<Bytes>,
    /// The caller's capability, where results are stamped with it.
    cap: Option<Bytes>,
    context: Option<Context>,
    /// Where the handler's answer metadata goes, if the caller reads it.
    answer: Option<crate::context::AnswerMetadata>,
}

impl Default for JobCall {
    fn default() -> Self {
        JobCall {
            head: Head::Rpc,
            method: 0,
            promise_id: 0,
            target: NO_TARGET,
            payload: None,
            cap: None,
            context: None,
            answer: None,
        }
    }
}

impl JobCall {
    /// Let go of what the call held of its frame and context once it is answered.
    fn release(&mut self) {
        self.payload = None;
        self.cap = None;
        self.context = None;
        self.answer = None;
    }
}

/// A call's working buffers, reused from call to call, and the call itself: a
/// connection keeps one per call running at once, so a warm connection allocates none.
#[derive(Default)]
pub(super) struct Job {
    /// Receives the handler's response message.
    out: Builder,
    /// The reason of a refusal, or the handler's error text.
    why: String,
    /// A pipelined call's payload.
    target_body: Vec<u8>,
    call: JobCall,
}

/// A call that ran: its buffers (with the call), and what to answer.
pub(super) struct Done {
    job: Box<Job>,
    outcome: call::Outcome,
}

/// Run an admitted call through the call core (load limit, context, deadline, the
/// service).
async fn run_job<S: Service>(service: &S, limit: Option<&LoadLimit>, mut job: Box<Job>) -> Done {
    let Job {
        out,
        why,
        target_body,
        call,
    } = &mut *job;
    let payload = match call.payload.take() {
        Some(payload) => Payload::Shared(payload),
        None => Payload::Borrowed(target_body),
    };
    let context = call.context.take();
    call.answer = context.as_ref().and_then(|c| c.answer_slot()).cloned();
    // A call that carries no context, under no load limit, is what `run_admitted` makes
    // of it (the service's answer), awaited here: one future less around each call.
    let outcome = if context.is_none() && limit.is_none() {
        out.clear();
        call::Outcome::Ran(match payload {
            Payload::Shared(payload) => service.call_owned(call.method, payload, out).await,
            Payload::Borrowed(payload) => service.call(call.method, payload, out).await,
        })
    } else {
        call::run_admitted(
            service,
            &mut call::NoPipeline,
            call.method,
            NO_TARGET,
            payload,
            out,
            why,
            call::Around { context, limit },
        )
        .await
    };
    Done { job, outcome }
}

/// Answer a call of a reserved ordinal ([`crate::builtin`]): at once, in the loop.
#[cold]
fn builtin_job<S: Service>(job: &mut Job, readiness: &crate::shutdown::Readiness) -> call::Outcome {
    let payload = job.call.payload.take();
    let body: &[u8] = payload.as_deref().unwrap_or(&job.target_body);
    call::Outcome::Ran(crate::builtin::serve::call::<S>(
        job.call.method,
        body,
        readiness,
        &mut job.out,
    ))
}

impl Conn<'_> {
    /// Append the answer of a call that ran to the write buffer and record its result
    /// for pipelining; its buffers, to reuse.
    fn write_done(&mut self, done: Done) -> Box<Job> {
        let Done { mut job, outcome } = done;
        let Job { out, why, call, .. } = &mut *job;
        self.write.resume(call.head);
        // What the call held of its frame is let go now, not when the buffers are
        // next used.
        if let Some(cap) = call.cap.take() {
            self.results.set_caller(&cap);
        }
        let (write, results, config) = (&mut self.write, &mut self.results, self.config);
        let head = CallHead::of(call);
        let called = match outcome {
            call::Outcome::Ran(called) => called,
            call::Outcome::Refused(status) => {
                call.answer = None;
                refused(write, results, self.peer, &head, status, why);
                return job;
            }
        };
        // Metadata the handler sends back, for a caller that reads it.
        let extension = call
            .answer
            .take()
            .and_then(|answer| answer.take_extension());
        if matches!(called, Ok(Reply::Message)) && out.len() >= config.vectored_write_min {
            // A large answer: its builder buffer goes out as it is, after the headers.
            let body = Bytes::from(out.take_bytes_keeping_capacity());
            results.record_ok(head.promise_id, &body);
            put_response_shared(
                write,
                head.promise_id,
                body,
                extension.as_deref().unwrap_or(&[]),
            );
            return job;
        }
        let (status, body) = call::Outcome::Ran(called).answer(out, why);
        let written = match &extension {
            None => put_response(write, status, head.promise_id, body),
            Some(extension) => put_response_with(write, status, head.promise_id, body, extension),
        };
        if written == Status::OK {
            results.record_ok(head.promise_id, body);
        } else {
            results.record_failed(head.promise_id, written.0);
        }
        job
    }
}

/// Where a call runs: a reused box, so that the call can stay where it was first
/// polled and run on beside later ones without being moved.
type Slot<F> = Pin<Box<Option<F>>>;

/// Poll the call in `slot` once (a slot holding a call that has not answered yet); its
/// answer when it gives one. The finished call stays in the slot until the next one
/// replaces it: emptying it now would cost a copy of a whole (large) empty slot per call.
fn poll_slot<F: Future>(slot: Pin<&mut Option<F>>, cx: &mut TaskContext<'_>) -> Option<F::Output> {
    match slot.as_pin_mut()?.poll(cx) {
        Poll::Ready(done) => Some(done),
        Poll::Pending => None,
    }
}

/// What a running call's future gives back: its slot, and its answer or, when its
/// caller cancelled it, its PromiseID and framing.
type Finished<F> = (Slot<F>, Result<Done, (u32, Head)>);

/// A call running beside the connection, until it answers or its caller cancels it.
struct Parked<F> {
    slot: Option<Slot<F>>,
    cancel: oneshot::Receiver<()>,
    promise_id: u32,
    head: Head,
}

impl<F: Future<Output = Done>> Future for Parked<F> {
    type Output = Finished<F>;

    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        // Every field is Unpin: the call itself is pinned in its box.
        let this = self.get_mut();
        if let Poll::Ready(Ok(())) = Pin::new(&mut this.cancel).poll(cx) {
            if let Some(mut slot) = this.slot.take() {
                // Dropping the call drops its handler.
                slot.set(None);
                return Poll::Ready((slot, Err((this.promise_id, this.head))));
            }
        }
        let Some(slot) = this.slot.as_mut() else {
            return Poll::Pending;
        };
        match poll_slot(slot.as_mut(), cx) {
            Some(done) => match this.slot.take() {
                Some(slot) => Poll::Ready((slot, Ok(done))),
                None => Poll::Pending,
            },
            None => Poll::Pending,
        }
    }
}

/// The calls of a connection that did not answer at their first poll, and the slots to
/// run calls in.
struct Calls<F> {
    slots: Vec<Slot<F>>,
    parked: FuturesUnordered<Parked<F>>,
    /// Each running call's PromiseID, framing and the way to cancel it.
    flights: Vec<(u32, Head, oneshot::Sender<()>)>,
}

impl<F: Future<Output = Done>> Calls<F> {
    fn new() -> Self {
        Calls {
            slots: Vec::new(),
            parked: FuturesUnordered::new(),
            flights: Vec::new(),
        }
    }

    /// Run the call in `slot` beside the connection.
    fn park(&mut self, slot: Slot<F>, promise_id: u32, head: Head) {
        let (tell, cancel) = oneshot::channel();
        self.flights.push((promise_id, head, tell));
        self.parked.push(Parked {
            slot: Some(slot),
            cancel,
            promise_id,
            head,
        });
    }

    /// The call `promise_id` answered or was cancelled.
    fn forget(&mut self, promise_id: u32, head: Head) {
        if let Some(i) = self
            .flights
            .iter()
            .position(|(id, h, _)| *id == promise_id && *h == head)
        {
            self.flights.swap_remove(i);
        }
    }

    /// Cancel the running call `promise_id` (RPC framing), if there is one.
    fn cancel(&mut self, promise_id: u32) {
        if let Some(i) = self
            .flights
            .iter()
            .position(|(id, h, _)| *id == promise_id && *h == Head::Rpc)
        {
            let (_, _, tell) = self.flights.swap_remove(i);
            let _ = tell.send(());
        }
    }

    /// Whether a call answering to `head` (a node reqID) is running.
    fn running(&self, head: Head) -> bool {
        self.flights.iter().any(|(_, h, _)| *h == head)
    }

    /// Whether the call `promise_id` is running.
    fn running_promise(&self, promise_id: u32) -> bool {
        self.flights.iter().any(|(id, _, _)| *id == promise_id)
    }
}

/// What is kept of a request's envelope once its frame is the payload.
struct CallHead {
    method: u32,
    target: u32,
    promise_id: u32,
}

impl CallHead {
    fn of(call: &JobCall) -> Self {
        CallHead {
            method: call.method,
            target: call.target,
            promise_id: call.promise_id,
        }
    }
}

impl From<&Request<'_>> for CallHead {
    fn from(req: &Request<'_>) -> Self {
        CallHead {
            method: req.method,
            target: req.target,
            promise_id: req.promise_id,
        }
    }
}

/// Answer a call that was not run (refused, or its target unusable) with `status` and
/// the reason in `why`.
fn refused(
    write: &mut Answers,
    results: &mut Results,
    peer: SocketAddr,
    call: &CallHead,
    status: Status,
    why: &str,
) {
    let method = call.method;
    tracing::debug!(%peer, method, %status, "zap: call refused: {why}");
    put_response(write, status, call.promise_id, why.as_bytes());
    results.record_failed(call.promise_id, status.0);
}

/// The connection's remembered results, for the call core. Callers are told apart
/// (a result is pipelined on only under the capability that made it) when the server
/// checks capabilities.
struct ConnPipeline<'r> {
    results: &'r mut Results,
    callers: bool,
}

impl Pipeline for ConnPipeline<'_> {
    fn admitted(&mut self, cap: &[u8]) {
        if self.callers {
            self.results.set_caller(cap);
        }
    }

    fn result(&self, target: u32, why: &mut String) -> Result<&[u8], Status> {
        match self.results.get(target) {
            Lookup::Ok(body) => Ok(body),
            missing => {
                let status = match missing {
                    Lookup::OtherCaller => Status::FORBIDDEN,
                    _ => Status::BAD_REQUEST,
                };
                describe_missing_target(why, target, missing, self.results);
                Err(status)
            }
        }
    }
}

fn describe_missing_target(text: &mut String, target: u32, missing: Lookup<'_>, results: &Results) {
    if !results.enabled() {
        text.push_str(
            "promise pipelining is off on this server (it keeps no results: pipeline_results or pipeline_bytes is 0); send the payload instead of a target",
        );
        return;
    }
    let _ = match missing {
        Lookup::Failed(status) => write!(
            text,
            "target promise {target} answered {}; there is no result to pipeline on",
            Status(status)
        ),
        Lookup::TooLarge(len) => write!(
            text,
            "the result of target promise {target} ({len} bytes) was too large to keep for pipelining (limit {} bytes)",
            results.max_bytes()
        ),
        Lookup::OtherCaller => write!(
            text,
            "forbidden: target promise {target} was called with another capability; a result can be pipelined on only under the capability that made it"
        ),
        Lookup::Unknown | Lookup::Ok(_) => write!(
            text,
            "target promise {target} is unknown on this connection: no earlier call had that PromiseID, or its result was forgotten (the server keeps the last {} results)",
            results.max_entries()
        ),
    };
}

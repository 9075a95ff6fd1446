//! One connection: read frames, answer each request in order, flush once per batch.

use std::fmt::Write as _;
use std::io;
use std::net::SocketAddr;
use std::ops::Range;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::time::{sleep, Instant, Sleep};
use tokio_util::sync::CancellationToken;

use super::answers::Answers;
use super::faults::warn_fault;
use super::framing::{ConnDecoder, ConnError, ConnFrame};
use super::respond::{put_response, put_response_shared, salvage_promise_id};
use super::results::{Lookup, Results};
use super::streams::{Delivery, StreamFault, Streams};
use super::ServerConfig;
use crate::call::{self, Payload, Pipeline};
use crate::frame::node::{Flag, NodeFrame};
use crate::frame::Direction;
use crate::frame_reader::{FrameReader, Within};
use crate::rpc::{Request, Status};
use crate::service::{Reply, Service};
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
    /// Receives each handler's response message.
    out: Builder,
    /// Error texts written by the server itself.
    text: String,
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
        out: Builder::new(),
        text: String::with_capacity(256),
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
        loop {
            // A batch that answered anything re-arms the idle timer when it flushes.
            if let Err(close) = self
                .answer_batch(stream, service, idle.as_mut(), shutdown)
                .await
            {
                return close;
            }
            if let Err(close) = self.flush(stream, idle.as_mut()).await {
                return close;
            }
            // While a stream is open the connection is not idle: each stream has its
            // own idle timeout. Without one, no handler can write stream frames or
            // finish, and those two branches are not polled (each poll of them costs
            // a waiter registration). Shutdown is the first branch looked at.
            let streaming = !self.streams.is_empty();
            tokio::select! {
                biased;
                () = &mut cancelled => return Close::Shutdown,
                () = &mut idle, if !streaming => return Close::Idle,
                // A handler wrote stream frames: the next turn flushes them.
                () = outbox.ready(), if streaming => {}
                () = self.streams.finished(), if streaming => {
                    if self.streams.is_empty() {
                        idle.as_mut().reset(Instant::now() + self.config.idle_timeout);
                    }
                }
                read = self.frames.read_from(stream) => match read {
                    Ok(0) => return Close::Eof { pending: self.frames.pending() },
                    Ok(_) => {}
                    Err(e) => return Close::Io(e),
                },
            }
        }
    }

    /// Answer every complete frame in the read buffer, flushing early only when the
    /// write buffer passes its limit (or `max_in_flight` answers wait).
    async fn answer_batch<S: Service, IO: AsyncWrite + Unpin>(
        &mut self,
        stream: &mut IO,
        service: &Arc<S>,
        mut idle: Pin<&mut Sleep>,
        shutdown: &CancellationToken,
    ) -> Result<(), Close> {
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
                    self.write
                        .begin_node(req_id)
                        .map_err(Close::DuplicateReqId)?;
                    envelope
                }
                CallFrame::Refused(close) => return Err(close),
                CallFrame::StreamOpen(envelope) => {
                    self.streams
                        .open(
                            service,
                            &frame,
                            envelope,
                            self.config,
                            self.peer,
                            &mut self.text,
                        )
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
            answer(
                &**service,
                frame,
                envelope,
                &mut self.out,
                &mut self.write,
                &mut self.results,
                &mut self.text,
                self.peer,
                self.config,
            )
            .await;
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

/// Answer one request frame (`frame[envelope]` is its envelope), appending the response
/// frame to `write`.
#[allow(clippy::too_many_arguments)] // the connection's reused buffers, passed apart
async fn answer<S: Service>(
    service: &S,
    frame: Bytes,
    envelope: Range<usize>,
    out: &mut Builder,
    write: &mut Answers,
    results: &mut Results,
    text: &mut String,
    peer: SocketAddr,
    config: &ServerConfig,
) {
    text.clear();
    let mut pipeline = ConnPipeline {
        results,
        callers: config.authorize.is_some(),
    };
    // The envelope is read, and the caller admitted, while it is borrowed from the
    // frame; then the frame itself becomes the payload (no reference count taken).
    let (req, payload, context) = {
        let context = call::context_after(&frame, envelope.clone());
        let envelope = &frame[envelope];
        let req = match Request::parse(envelope) {
            Ok(req) => req,
            Err(e) => {
                let id = salvage_promise_id(envelope);
                let _ = write!(text, "malformed request envelope: {e}");
                warn_fault!(%peer, promise_id = id, "zap: {text}");
                put_response(write, Status::BAD_REQUEST, id, text.as_bytes());
                return;
            }
        };
        if req.promise_id == 0 {
            text.push_str("PromiseID 0 is not allowed: a call needs a non-zero PromiseID");
            warn_fault!(%peer, method = req.method, "zap: {text}");
            put_response(write, Status::BAD_REQUEST, 0, text.as_bytes());
            return;
        }
        let admitted = call::admit_caller(
            &mut config.authorize.as_ref(),
            &mut pipeline,
            req.cap,
            req.method,
            text,
        );
        let head = CallHead::from(&req);
        if let Err(status) = admitted {
            refused(write, pipeline.results, peer, &head, status, text);
            return;
        }
        let context = match context {
            Ok(context) => context,
            Err(e) => {
                let _ = write!(text, "malformed call context: {e}");
                warn_fault!(%peer, promise_id = head.promise_id, "zap: {text}");
                refused(
                    write,
                    pipeline.results,
                    peer,
                    &head,
                    Status::BAD_REQUEST,
                    text,
                );
                return;
            }
        };
        (head, crate::owned::range_in(&frame, req.payload), context)
    };
    // The payload as a slice of the frame: owned by the handler if it wants to be.
    let payload = Payload::Shared(crate::owned::cut(frame, payload));
    let outcome = call::run_admitted(
        service,
        &mut pipeline,
        req.method,
        req.target,
        payload,
        out,
        text,
        call::Around {
            context,
            limit: config.load_limit.as_ref(),
        },
    )
    .await;
    let called = match outcome {
        call::Outcome::Ran(called) => called,
        call::Outcome::Refused(status) => {
            refused(write, results, peer, &req, status, text);
            return;
        }
    };
    if matches!(called, Ok(Reply::Message)) && out.len() >= config.vectored_write_min {
        // A large answer: its builder buffer goes out as it is, after the headers.
        let body = Bytes::from(out.take_bytes_keeping_capacity());
        results.record_ok(req.promise_id, &body);
        put_response_shared(write, req.promise_id, body);
        return;
    }
    let (status, body): (Status, &[u8]) = match called {
        Ok(Reply::Message) => (Status::OK, out.as_bytes()),
        Ok(Reply::Empty) => (Status::OK, &[]),
        Err(e) => {
            e.write_body(text);
            (e.status, text.as_bytes())
        }
    };
    let written = put_response(write, status, req.promise_id, body);
    if written == Status::OK {
        results.record_ok(req.promise_id, body);
    } else {
        results.record_failed(req.promise_id, written.0);
    }
}

/// What is kept of a request's envelope once its frame is the payload.
struct CallHead {
    method: u32,
    target: u32,
    promise_id: u32,
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

//! Streams on the RPC framing, as the Go runtime carries them: a call that exchanges
//! any number of messages in both directions instead of one request and one answer.
//!
//! On ZAP/TCP (RPC framing) a stream is three frame kinds (`docs/transports.md`):
//!
//! * **dir 3, open**: a request envelope whose `Method` is the stream method's ordinal,
//!   whose `PromiseID` is the stream id (chosen by the opener, unique among its open
//!   streams on the connection) and whose `Payload` is the opening message; the
//!   capability is checked as for a call.
//! * **dir 4, message**: `[stream id u32 LE][message]`, in either direction.
//! * **dir 5, end**: `[stream id u32 LE]`: the sender will send no more messages on this
//!   stream (a half-close). A stream is over when both sides have sent theirs. The
//!   server's end may carry the stream's outcome after the id, `[status u32 LE][text]`,
//!   as a call's answer would: a handler's error, a refusal, a deadline that passed
//!   (the Go runtime reads the id and ignores what follows). An end without one, or
//!   with status 200, is a stream that finished.
//!
//! The wire has no reset and no flow control for streams: a server that refuses a
//! stream (unknown method, no capability, too many streams) ends it at once with the
//! refusal's status, and each stream's messages wait in a bounded queue on the receiving side; when it is
//! full the connection stops reading until the handler takes one (the Go runtime does
//! the same), which is why one stream's slow reader can delay the others on its
//! connection. A client that stops listening half-closes its side; the server's side
//! ends when its handler returns.
//!
//! Generated code wraps the raw [`StreamIo`] in typed halves: a [`Sender<T>`] that
//! encodes each message with a builder it reuses, and a [`Receiver<T>`] that hands out
//! every received message as an [`Owned<T>`], read in place.

#![cfg_attr(not(any(feature = "server", feature = "client")), allow(dead_code))]

use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use bytes::Bytes;
use tokio::sync::{mpsc, Notify};

use crate::builder::Builder;
use crate::error::{BuildError, ParseError};
use crate::frame::Direction;
use crate::owned::Owned;
use crate::service::CallError;
use crate::transport::ClientError;
use crate::zap_struct::ZapStruct;

/// Messages a stream's receiving side queues before the connection stops reading (the
/// Go runtime queues 16).
pub const DEFAULT_STREAM_QUEUE: usize = 16;

/// Bytes a stream message's frame length counts besides the message: the direction and
/// the stream id. The largest message a frame limit allows is the limit minus this.
pub const MESSAGE_OVERHEAD: u32 = 1 + 4;

/// Bytes of stream frames a connection buffers for writing before senders wait.
pub(crate) const OUTBOX_LIMIT: usize = 256 << 10;

/// The longest text an end frame's outcome carries; a longer one is cut.
pub const MAX_OUTCOME_TEXT: usize = 1024;

/// How a method exchanges messages: one request and one answer, or a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Streaming {
    /// A call: one request, one answer (or none).
    Unary,
    /// The client opens with a message; the server sends any number (`-> stream T`).
    Server,
    /// The client sends any number of messages; the server answers once (`(stream T)`).
    Client,
    /// Both sides send any number of messages (`(stream T) -> stream U`).
    Bidi,
}

impl Streaming {
    /// Whether this is a stream method (opened with dir 3, not called with dir 1).
    pub const fn is_stream(self) -> bool {
        !matches!(self, Streaming::Unary)
    }

    /// Whether the client sends messages after opening.
    pub const fn client_sends(self) -> bool {
        matches!(self, Streaming::Client | Streaming::Bidi)
    }
}

/// Why a stream could not go on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    /// The connection closed (or failed) before the stream ended.
    #[error("stream closed: {0}")]
    Closed(String),
    /// A received message is not a valid message of the stream's type.
    #[error("stream message is not a valid {kind} message: {error}")]
    Decode {
        kind: &'static str,
        error: ParseError,
    },
    /// A message to send could not be encoded, or is over the stream's limit.
    #[error("cannot send the stream message: {0}")]
    Build(#[from] BuildError),
    /// A message to send is larger than a frame may be.
    #[error("stream message of {len} bytes is over the limit of {limit} bytes")]
    TooLarge { len: usize, limit: usize },
    /// The peer ended the stream with an outcome other than success: the handler's
    /// error, a refusal, or a deadline that passed (status 504). For an application
    /// error (status 32010..=32099) `message` is its message.
    #[error("the stream ended with status {status}: {message}")]
    Ended {
        status: crate::rpc::Status,
        message: String,
    },
}

impl StreamError {
    /// The outcome of an end frame's bytes after the stream id: `None` for a stream
    /// that finished (no outcome, or status 200).
    #[cfg_attr(not(any(feature = "client", feature = "http")), allow(dead_code))]
    pub(crate) fn from_outcome(outcome: &[u8]) -> Option<StreamError> {
        let (status, text) = outcome.split_first_chunk::<4>()?;
        let status = crate::rpc::Status(u32::from_le_bytes(*status));
        if status == crate::rpc::Status::OK {
            return None;
        }
        let message = match crate::AppCode::from_status(status) {
            Some(code) => crate::AppError::from_body(code, text).message.into_owned(),
            None => String::from_utf8_lossy(text).into_owned(),
        };
        Some(StreamError::Ended { status, message })
    }

    /// Whether the stream ended because its deadline passed.
    pub fn is_deadline_exceeded(&self) -> bool {
        matches!(self, StreamError::Ended { status, .. } if *status == crate::rpc::Status::DEADLINE_EXCEEDED)
    }
}

impl From<StreamError> for CallError {
    fn from(e: StreamError) -> Self {
        match e {
            StreamError::Decode { .. } => CallError::bad_request(e.to_string()),
            StreamError::Ended { status, message } => CallError::new(status, message),
            _ => CallError::internal(e.to_string()),
        }
    }
}

impl From<StreamError> for ClientError {
    fn from(e: StreamError) -> Self {
        match e {
            StreamError::Closed(why) => ClientError::Closed(why),
            StreamError::Decode { error, .. } => ClientError::Decode(error),
            StreamError::Build(e) => ClientError::Build(e),
            StreamError::TooLarge { .. } => ClientError::Protocol(e.to_string()),
            StreamError::Ended { status, message } => match crate::AppCode::from_status(status) {
                Some(code) => ClientError::App(crate::AppError::new(code, message)),
                None => ClientError::Status { status, message },
            },
        }
    }
}

/// What a stream's receiving queue carries.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// A message (a slice of the frame it came in: no copy).
    Message(Bytes),
    /// The peer's end (dir 5).
    End,
    /// The peer's end with an outcome other than success.
    #[cfg_attr(not(feature = "client"), allow(dead_code))]
    Failed(StreamError),
}

/// Counters a stream bumps for every message, when the server records metrics.
#[derive(Debug, Default)]
pub struct StreamCounters {
    pub(crate) messages_in: AtomicU64,
    pub(crate) messages_out: AtomicU64,
}

/// One stream's two directions as raw messages: what a transport hands a service's
/// [`Service::stream`](crate::Service::stream) and what [`Transport::open_stream`]
/// gives a client. Generated code splits it into a typed [`Sender`] and [`Receiver`].
///
/// [`Transport::open_stream`]: crate::Transport::open_stream
#[derive(Debug)]
pub struct StreamIo {
    /// The stream's id on its connection.
    pub id: u32,
    /// Messages from the peer.
    pub inbound: Inbound,
    /// Messages to the peer.
    pub outbound: Outbound,
}

impl StreamIo {
    /// A stream `id` whose messages arrive on `rx` and leave through `outbox`; the
    /// queue's sender is the transport's.
    pub(crate) fn new(id: u32, rx: mpsc::Receiver<Incoming>, outbox: Arc<Outbox>) -> Self {
        StreamIo {
            id,
            inbound: Inbound {
                rx,
                ended: false,
                #[cfg(feature = "client")]
                deadline: None,
                counters: Counters::default(),
            },
            outbound: Outbound {
                id,
                outbox,
                ended: Arc::new(AtomicBool::new(false)),
                end_on_drop: true,
                counters: Counters::default(),
            },
        }
    }

    /// The stream's end, for the transport that runs its handler: the handler's
    /// dropped sender no longer ends the stream; the transport does, with the
    /// handler's outcome, through the handle (unless the handler ended it itself).
    #[cfg_attr(not(any(feature = "server", feature = "jsonrpc")), allow(dead_code))]
    pub(crate) fn end_handle(&mut self) -> EndHandle {
        self.outbound.end_on_drop = false;
        EndHandle {
            id: self.outbound.id,
            outbox: Arc::clone(&self.outbound.outbox),
            ended: Arc::clone(&self.outbound.ended),
        }
    }

    /// Give up waiting for the peer at `deadline`: the receiving half then fails with
    /// status 504 (a stream opened with a deadline, on the side that opened it).
    #[cfg(feature = "client")]
    pub(crate) fn set_deadline(&mut self, deadline: tokio::time::Instant) {
        self.inbound.deadline = Some(deadline);
    }

    /// Count every message both ways in `counters` (as well as in those already set:
    /// the server's own, for its idle timeout, and the metrics').
    pub fn count_with(&mut self, counters: Arc<StreamCounters>) {
        self.inbound.counters.add(Arc::clone(&counters));
        self.outbound.counters.add(counters);
    }

    /// The typed halves: send `Out` messages, receive `In` messages.
    pub fn split<Out: ZapStruct, In: ZapStruct>(
        self,
        receives: &'static str,
    ) -> (Sender<Out>, Receiver<In>) {
        (
            Sender::new(self.outbound),
            Receiver::new(self.inbound, receives),
        )
    }
}

/// The receiving half of a stream, raw.
#[derive(Debug)]
pub struct Inbound {
    rx: mpsc::Receiver<Incoming>,
    ended: bool,
    /// The stream's deadline, on the side that opened it with one.
    #[cfg(feature = "client")]
    deadline: Option<tokio::time::Instant>,
    counters: Counters,
}

/// Up to two sets of counters a half bumps per message.
#[derive(Debug, Default)]
struct Counters([Option<Arc<StreamCounters>>; 2]);

impl Counters {
    fn add(&mut self, counters: Arc<StreamCounters>) {
        match &mut self.0 {
            [slot @ None, _] | [_, slot @ None] => *slot = Some(counters),
            [_, last] => *last = Some(counters),
        }
    }

    fn bump(&self, pick: impl Fn(&StreamCounters) -> &AtomicU64) {
        for c in self.0.iter().flatten() {
            pick(c).fetch_add(1, Ordering::Relaxed);
        }
    }
}

impl Inbound {
    /// The next message; `Ok(None)` once the peer ended its side; an error if the
    /// connection closed first, if the peer ended the stream with an error
    /// ([`StreamError::Ended`]), or if the stream's deadline passed.
    pub async fn next(&mut self) -> Result<Option<Bytes>, StreamError> {
        if self.ended {
            return Ok(None);
        }
        #[cfg(feature = "client")]
        let next = match self.deadline {
            None => self.rx.recv().await,
            Some(deadline) => match tokio::time::timeout_at(deadline, self.rx.recv()).await {
                Ok(next) => next,
                Err(_) => {
                    self.ended = true;
                    return Err(StreamError::Ended {
                        status: crate::rpc::Status::DEADLINE_EXCEEDED,
                        message: "deadline exceeded: the stream's deadline passed".into(),
                    });
                }
            },
        };
        #[cfg(not(feature = "client"))]
        let next = self.rx.recv().await;
        match next {
            Some(Incoming::Message(msg)) => {
                self.counters.bump(|c| &c.messages_in);
                Ok(Some(msg))
            }
            Some(Incoming::End) => {
                self.ended = true;
                Ok(None)
            }
            Some(Incoming::Failed(e)) => {
                self.ended = true;
                Err(e)
            }
            None => {
                self.ended = true;
                Err(StreamError::Closed(
                    "the connection closed before the peer ended the stream".into(),
                ))
            }
        }
    }
}

/// The sending half of a stream, raw. Dropping it ends this side of the stream (sends
/// the end frame) unless [`end`](Self::end) already did.
#[derive(Debug)]
pub struct Outbound {
    id: u32,
    outbox: Arc<Outbox>,
    /// Shared with the transport's [`EndHandle`], where it has one.
    ended: Arc<AtomicBool>,
    /// Whether dropping the half ends the stream (the opener's); a handler's stream is
    /// ended by its transport, with the handler's outcome.
    end_on_drop: bool,
    counters: Counters,
}

impl Outbound {
    /// Send one message, waiting while the connection's write buffer is full.
    pub async fn send(&mut self, message: &[u8]) -> Result<(), StreamError> {
        if self.ended.load(Ordering::Relaxed) {
            return Err(StreamError::Closed("this side of the stream ended".into()));
        }
        self.outbox.push(self.id, message).await?;
        self.counters.bump(|c| &c.messages_out);
        Ok(())
    }

    /// End this side of the stream (dir 5). Later sends fail.
    pub fn end(&mut self) {
        if !self.ended.swap(true, Ordering::AcqRel) {
            self.outbox.push_end(self.id, None);
        }
    }

    /// Whether the connection is gone (every later send fails).
    pub fn is_closed(&self) -> bool {
        self.outbox.is_closed()
    }

    /// Resolves once the connection is gone.
    pub async fn closed(&self) {
        self.outbox.closed().await
    }
}

impl Drop for Outbound {
    fn drop(&mut self) {
        if self.end_on_drop {
            self.end();
        }
    }
}

/// Ends a stream whose handler a transport runs, with the handler's outcome.
#[derive(Debug)]
#[cfg_attr(not(any(feature = "server", feature = "jsonrpc")), allow(dead_code))]
pub(crate) struct EndHandle {
    id: u32,
    outbox: Arc<Outbox>,
    ended: Arc<AtomicBool>,
}

#[cfg_attr(not(any(feature = "server", feature = "jsonrpc")), allow(dead_code))]
impl EndHandle {
    /// End the stream (unless its handler did): with no outcome for success, or with
    /// a status and its text.
    pub(crate) fn end(&self, outcome: Option<(crate::rpc::Status, &str)>) {
        if !self.ended.swap(true, Ordering::AcqRel) {
            self.outbox.push_end(self.id, outcome);
        }
    }
}

/// Sends messages of type `T` on a stream, each encoded with a builder the sender
/// reuses: on a warm stream a message of fixed-size fields allocates nothing.
#[derive(Debug)]
pub struct Sender<T> {
    raw: Outbound,
    builder: Builder,
    _kind: PhantomData<fn(&T)>,
}

impl<T: ZapStruct> Sender<T> {
    /// Wrap a raw sending half.
    pub fn new(raw: Outbound) -> Self {
        Sender {
            raw,
            builder: Builder::new(),
            _kind: PhantomData,
        }
    }

    /// Encode and send `message`, waiting while the connection's write buffer is full
    /// (back-pressure).
    pub async fn send(&mut self, message: &T) -> Result<(), StreamError> {
        self.builder.clear();
        message.encode(&mut self.builder)?;
        self.raw.send(self.builder.as_bytes()).await
    }

    /// Send a message already encoded (a received one passed on, say).
    pub async fn send_owned(&mut self, message: &Owned<T>) -> Result<(), StreamError> {
        self.raw.send(message.as_bytes()).await
    }

    /// End this side of the stream; dropping the sender does the same.
    pub fn end(mut self) {
        self.raw.end();
    }

    /// Whether the connection is gone.
    pub fn is_closed(&self) -> bool {
        self.raw.is_closed()
    }

    /// Resolves once the connection is gone: a handler that waits for something else
    /// between messages can select on it.
    pub async fn closed(&self) {
        self.raw.closed().await
    }

    /// The raw half.
    pub fn into_raw(self) -> Outbound {
        self.raw
    }
}

/// Receives messages of type `T` from a stream, each owned and read in place (a slice
/// of the frame it came in, no copy).
#[derive(Debug)]
pub struct Receiver<T> {
    raw: Inbound,
    kind: &'static str,
    _kind: PhantomData<fn() -> T>,
}

impl<T: ZapStruct> Receiver<T> {
    /// Wrap a raw receiving half; `kind` names `T` in decode errors.
    pub fn new(raw: Inbound, kind: &'static str) -> Self {
        Receiver {
            raw,
            kind,
            _kind: PhantomData,
        }
    }

    /// The next message; `Ok(None)` once the peer ended its side.
    pub async fn next(&mut self) -> Result<Option<Owned<T>>, StreamError> {
        match self.raw.next().await? {
            None => Ok(None),
            Some(bytes) => {
                Owned::from_bytes(bytes)
                    .map(Some)
                    .map_err(|error| StreamError::Decode {
                        kind: self.kind,
                        error,
                    })
            }
        }
    }

    /// The raw half.
    pub fn into_raw(self) -> Inbound {
        self.raw
    }
}

/// Where every stream of a connection writes its frames: one buffer the connection's
/// writer takes whole, so a message costs a copy into it and no allocation once the
/// buffer has grown. Senders wait while it holds more than its limit.
#[derive(Debug)]
pub(crate) struct Outbox {
    state: Mutex<OutState>,
    /// Wakes the connection's writer: there are frames to write.
    ready: Notify,
    /// Wakes waiting senders: the writer took the buffer, or the connection closed.
    room: Notify,
    closed: AtomicBool,
    limit: usize,
    max_message: usize,
}

#[derive(Debug, Default)]
struct OutState {
    frames: Vec<u8>,
    closed_why: Option<String>,
}

impl Outbox {
    /// An outbox holding up to `limit` bytes before senders wait; messages over
    /// `max_message` bytes are refused.
    pub(crate) fn new(limit: usize, max_message: usize) -> Self {
        Outbox {
            state: Mutex::new(OutState::default()),
            ready: Notify::new(),
            room: Notify::new(),
            closed: AtomicBool::new(false),
            limit,
            max_message,
        }
    }

    fn lock(&self) -> MutexGuard<'_, OutState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Append a dir-4 frame for stream `id`, waiting for room.
    async fn push(&self, id: u32, message: &[u8]) -> Result<(), StreamError> {
        if message.len() > self.max_message {
            return Err(StreamError::TooLarge {
                len: message.len(),
                limit: self.max_message,
            });
        }
        loop {
            let room = self.room.notified();
            tokio::pin!(room);
            room.as_mut().enable();
            {
                let mut state = self.lock();
                if let Some(why) = &state.closed_why {
                    return Err(StreamError::Closed(why.clone()));
                }
                if state.frames.is_empty() || state.frames.len() + message.len() <= self.limit {
                    put_frame(&mut state.frames, Direction::StreamMessage, id, message);
                    drop(state);
                    self.ready.notify_one();
                    return Ok(());
                }
            }
            room.await;
        }
    }

    /// Append a dir-5 frame for stream `id` now, with the stream's outcome when it is
    /// not a success (`[status u32][text]` after the id; the text is cut to
    /// [`MAX_OUTCOME_TEXT`] bytes, so an end never waits for room).
    pub(crate) fn push_end(&self, id: u32, outcome: Option<(crate::rpc::Status, &str)>) {
        let mut state = self.lock();
        if state.closed_why.is_none() {
            match outcome {
                None => put_frame(&mut state.frames, Direction::StreamEnd, id, &[]),
                Some((status, text)) => {
                    let mut cut = text.len().min(MAX_OUTCOME_TEXT);
                    while !text.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    let mut body = [0u8; 4 + MAX_OUTCOME_TEXT];
                    body[..4].copy_from_slice(&status.0.to_le_bytes());
                    body[4..4 + cut].copy_from_slice(&text.as_bytes()[..cut]);
                    put_frame(
                        &mut state.frames,
                        Direction::StreamEnd,
                        id,
                        &body[..4 + cut],
                    );
                }
            }
            drop(state);
            self.ready.notify_one();
        }
    }

    /// Move every buffered frame to the end of `out`; false if there were none.
    pub(crate) fn take_into(&self, out: &mut Vec<u8>) -> bool {
        let mut state = self.lock();
        if state.frames.is_empty() {
            return false;
        }
        out.extend_from_slice(&state.frames);
        state.frames.clear();
        if state.frames.capacity() > self.limit * 4 {
            state.frames = Vec::new();
        }
        drop(state);
        self.room.notify_waiters();
        true
    }

    /// Resolves when frames are waiting (or may be: check with `take_into`).
    pub(crate) async fn ready(&self) {
        self.ready.notified().await
    }

    /// The connection is gone: every waiting and later send fails with `why`.
    pub(crate) fn close(&self, why: &str) {
        let mut state = self.lock();
        if state.closed_why.is_none() {
            state.closed_why = Some(why.to_owned());
        }
        state.frames = Vec::new();
        drop(state);
        self.closed.store(true, Ordering::Release);
        self.room.notify_waiters();
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    async fn closed(&self) {
        loop {
            let room = self.room.notified();
            tokio::pin!(room);
            room.as_mut().enable();
            if self.is_closed() {
                return;
            }
            room.await;
        }
    }
}

/// `[len][dir][id][message]`.
fn put_frame(out: &mut Vec<u8>, dir: Direction, id: u32, message: &[u8]) {
    // Checked by `push` against `max_message`, which is below the frame limit.
    let len = MESSAGE_OVERHEAD + message.len() as u32;
    out.extend_from_slice(&len.to_le_bytes());
    out.push(dir as u8);
    out.extend_from_slice(&id.to_le_bytes());
    out.extend_from_slice(message);
}

/// The frames an [`Outbox`] holds, as `(dir, stream id, message)`: for transports that
/// carry stream messages in frames of their own (WebSocket, QUIC). The buffer is the
/// outbox's own writing, so every frame is whole.
#[cfg_attr(not(any(feature = "http", feature = "quic")), allow(dead_code))]
pub(crate) fn outbox_frames(buf: &[u8]) -> impl Iterator<Item = (u8, u32, &[u8])> {
    let mut at = 0;
    std::iter::from_fn(move || {
        let head = buf.get(at..at + 9)?;
        let len = u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as usize;
        let id = u32::from_le_bytes([head[5], head[6], head[7], head[8]]);
        let message = buf.get(at + 9..at + 4 + len)?;
        let dir = head[4];
        at += 4 + len;
        Some((dir, id, message))
    })
}

/// A stream's receiving queue: what the transport keeps to deliver the peer's frames.
pub(crate) fn queue(capacity: usize) -> (mpsc::Sender<Incoming>, mpsc::Receiver<Incoming>) {
    mpsc::channel(capacity.max(1))
}

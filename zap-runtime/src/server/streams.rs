//! A connection's streams (dir 3 open, dir 4 message, dir 5 end; `crate::stream`):
//! which are open, where each one's messages go, and the tasks running their handlers.
//!
//! Each stream's handler runs in its own task, so a long stream never holds up the
//! connection's calls; it writes its messages into the connection's [`Outbox`], which
//! the connection flushes with its answers. A stream ends on the server's side when its
//! handler returns, is cancelled (the connection closes, the server shuts down) or has
//! exchanged no message for [`ServerConfig::stream_idle_timeout`]; its sender's drop
//! writes the end frame.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use bytes::Bytes;
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::faults::warn_fault;
use super::ServerConfig;
use crate::rpc::{Request, Status};
use crate::service::Service;
use crate::stream::{self, Incoming, Outbox, StreamCounters, StreamIo};

/// One open stream.
#[derive(Debug)]
struct Entry {
    /// Which opening of this id (an id may be reused once its stream is over).
    generation: u64,
    /// Where the peer's messages go; `None` once the peer ended its side, or for a
    /// method whose client sends nothing.
    inbound: Option<mpsc::Sender<Incoming>>,
}

/// Where a peer's stream message goes.
pub(super) enum Delivery {
    /// Queued (or dropped: no such stream, or its handler stopped reading).
    Done,
    /// The stream's queue is full: wait for room with this sender, then send.
    Wait(mpsc::Sender<Incoming>, Incoming),
}

/// Why a stream frame closes the connection.
#[derive(Debug)]
pub(super) enum StreamFault {
    /// A dir 3 reused the id of a stream still open.
    IdInUse(u32),
}

/// The streams of one connection.
pub(super) struct Streams {
    outbox: Arc<Outbox>,
    open: HashMap<u32, Entry>,
    tasks: JoinSet<(u32, u64)>,
    generation: u64,
    /// Cancelled when the connection ends: every handler is dropped.
    cancel: CancellationToken,
    /// Messages of the peer dropped (unknown stream, ended stream).
    pub(super) dropped: u64,
}

impl Streams {
    pub(super) fn new(config: &ServerConfig) -> Self {
        Streams {
            outbox: Arc::new(Outbox::new(
                stream::OUTBOX_LIMIT.min(config.write_buffer_limit.max(1)),
                config.max_stream_message,
            )),
            open: HashMap::new(),
            tasks: JoinSet::new(),
            generation: 0,
            cancel: CancellationToken::new(),
            dropped: 0,
        }
    }

    /// The buffer the handlers write into.
    pub(super) fn outbox(&self) -> &Arc<Outbox> {
        &self.outbox
    }

    /// Whether any stream is open.
    pub(super) fn is_empty(&self) -> bool {
        self.open.is_empty() && self.tasks.is_empty()
    }

    /// Open the stream a dir-3 frame asks for (`frame[envelope]`), or end it at once
    /// when it cannot be served: a malformed envelope, an unknown or unary method, a
    /// refused capability, a pipelining target, too many streams.
    pub(super) fn open<S: Service>(
        &mut self,
        service: &Arc<S>,
        frame: &Bytes,
        envelope: std::ops::Range<usize>,
        config: &ServerConfig,
        peer: SocketAddr,
    ) -> Result<(), StreamFault> {
        let req = match Request::parse(&frame[envelope.clone()]) {
            Ok(req) => req,
            Err(e) => {
                // No id to end: the Go runtime drops such a frame too.
                warn_fault!(%peer, "zap: dropped a stream open with a malformed envelope: {e}");
                return Ok(());
            }
        };
        let id = req.promise_id;
        if self.open.contains_key(&id) {
            return Err(StreamFault::IdInUse(id));
        }
        let context = match crate::call::context_after(frame, envelope) {
            Ok(context) => context,
            Err(e) => {
                let why = format!("malformed call context: {e}");
                warn_fault!(%peer, stream = id, method = req.method, "zap: stream refused: {why}");
                self.outbox.push_end(id, Some((Status::BAD_REQUEST, &why)));
                return Ok(());
            }
        };
        let method = match crate::call::admit_stream::<S>(
            &mut config.authorize.as_ref(),
            req.method,
            req.target,
            req.cap,
        ) {
            Ok(method) => method,
            Err((status, why)) => {
                tracing::debug!(%peer, stream = id, method = req.method, %status, "zap: stream refused: {why}");
                self.outbox.push_end(id, Some((status, &why)));
                return Ok(());
            }
        };
        if self.open.len() >= config.max_streams {
            let why = format!(
                "{} streams are open on this connection (the limit)",
                self.open.len()
            );
            warn_fault!(%peer, stream = id, method = req.method, "zap: stream refused: {why}");
            self.outbox.push_end(id, Some((Status::OVERLOADED, &why)));
            return Ok(());
        }
        let context = crate::call::with_capability(context, S::CAPABILITY, || {
            config
                .authorize
                .is_some()
                .then(|| crate::owned::share(frame, req.cap))
        });
        let open = crate::owned::share(frame, req.payload);
        let (tx, rx) = stream::queue(config.stream_queue);
        let mut io = StreamIo::new(id, rx, Arc::clone(&self.outbox));
        let activity = Arc::new(StreamCounters::default());
        io.count_with(Arc::clone(&activity));
        self.generation += 1;
        let generation = self.generation;
        self.open.insert(
            id,
            Entry {
                generation,
                inbound: method.streaming.client_sends().then_some(tx),
            },
        );
        let end = io.end_handle();
        let readiness = config.readiness.clone();
        let service = Arc::clone(service);
        let ordinal = req.method;
        let handler = crate::context::with_peer(crate::context::peer_addr(), async move {
            crate::builtin::serve::stream(service, ordinal, open, io, context, &readiness).await
        });
        let cancel = self.cancel.clone();
        let idle = config.stream_idle_timeout;
        let name = method.name;
        self.tasks.spawn(async move {
            tokio::select! {
                biased;
                // The connection closes: the stream ends with it.
                () = cancel.cancelled() => end.end(None),
                () = idle_watch(&activity, idle) => {
                    tracing::info!(%peer, stream = id, method = name, "zap: stream ended: no message either way for {idle:?}");
                    end.end(Some((Status(408), &format!("the stream exchanged no message for {idle:?}"))));
                }
                done = handler => if let Err(e) = done {
                    tracing::info!(%peer, stream = id, method = name, "zap: stream handler failed: {e}");
                },
            }
            (id, generation)
        });
        Ok(())
    }

    /// Route a dir-4 message for stream `id`.
    pub(super) fn message(&mut self, id: u32, message: Bytes) -> Delivery {
        let Some(tx) = self.open.get_mut(&id).and_then(|e| e.inbound.as_ref()) else {
            self.dropped += 1;
            return Delivery::Done;
        };
        match tx.try_send(Incoming::Message(message)) {
            Ok(()) => Delivery::Done,
            Err(mpsc::error::TrySendError::Full(m)) => Delivery::Wait(tx.clone(), m),
            Err(mpsc::error::TrySendError::Closed(_)) => {
                self.dropped += 1;
                Delivery::Done
            }
        }
    }

    /// The peer ended its side of stream `id` (dir 5).
    pub(super) fn end(&mut self, id: u32) -> Delivery {
        let Some(entry) = self.open.get_mut(&id) else {
            return Delivery::Done;
        };
        let Some(tx) = entry.inbound.take() else {
            return Delivery::Done;
        };
        match tx.try_send(Incoming::End) {
            Err(mpsc::error::TrySendError::Full(end)) => Delivery::Wait(tx, end),
            _ => Delivery::Done,
        }
    }

    /// Wait for a handler to finish and forget its stream; pending forever when none
    /// runs.
    pub(super) async fn finished(&mut self) {
        match self.tasks.join_next().await {
            Some(Ok((id, generation))) => self.forget(id, generation),
            Some(Err(e)) => {
                // A handler panicked: its stream's entry stays until the connection ends.
                tracing::error!("zap: a stream handler panicked: {e}");
            }
            None => std::future::pending().await,
        }
    }

    fn forget(&mut self, id: u32, generation: u64) {
        if self
            .open
            .get(&id)
            .is_some_and(|e| e.generation == generation)
        {
            self.open.remove(&id);
        }
    }

    /// End every stream for a connection that closes cleanly: handlers are dropped,
    /// their end frames written into the outbox, waiting at most `linger` for them.
    pub(super) async fn end_all(&mut self, linger: std::time::Duration) {
        self.cancel.cancel();
        let _ = tokio::time::timeout(linger, async {
            while let Some(done) = self.tasks.join_next().await {
                if let Ok((id, generation)) = done {
                    self.forget(id, generation);
                }
            }
        })
        .await;
    }

    /// The connection is gone: every handler is dropped and every send fails.
    pub(super) fn abort_all(&mut self, why: &str) {
        self.outbox.close(why);
        self.cancel.cancel();
        self.tasks.abort_all();
        self.open.clear();
    }
}

impl Drop for Streams {
    fn drop(&mut self) {
        self.outbox.close("the connection closed");
        self.cancel.cancel();
    }
}

/// Resolves once `activity` has not moved for `idle`.
async fn idle_watch(activity: &StreamCounters, idle: std::time::Duration) {
    let count = || {
        activity.messages_in.load(Ordering::Relaxed) + activity.messages_out.load(Ordering::Relaxed)
    };
    let mut seen = count();
    loop {
        tokio::time::sleep(idle).await;
        let now = count();
        if now == seen {
            return;
        }
        seen = now;
    }
}

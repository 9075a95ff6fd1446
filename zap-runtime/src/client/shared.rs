//! The state shared by a client's callers and its reader/writer tasks: who waits for
//! which PromiseID, and whether (and why) the connection is closed.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use bytes::Bytes;
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::rpc::Status;
use crate::stream::{Incoming, Outbox, StreamIo};
use crate::transport::ClientError;

/// Why the connection ended; turned into a [`ClientError`] for each waiting caller.
#[derive(Clone, Debug)]
pub(crate) enum Failure {
    /// Closed (by either side, or the socket failed).
    Closed(String),
    /// The server sent something that is not a valid response frame.
    Protocol(String),
}

impl Failure {
    pub(crate) fn to_error(&self) -> ClientError {
        match self {
            Failure::Closed(why) => ClientError::Closed(why.clone()),
            Failure::Protocol(why) => ClientError::Protocol(why.clone()),
        }
    }
}

/// What a waiting caller receives.
/// A call's answer: its status, its body and the metadata it carried back, if any.
pub(crate) type Answer = Result<(Status, Bytes, Option<Box<crate::context::Metadata>>), Failure>;

#[derive(Default)]
struct State {
    pending: HashMap<u32, oneshot::Sender<Answer>>,
    /// Our open streams whose server side has not ended: where their messages go.
    streams: HashMap<u32, mpsc::Sender<Incoming>>,
    closed: Option<Failure>,
}

impl State {
    /// `Closed` with the reason once the connection is closed: nothing new may wait on it.
    fn check_open(&self) -> Result<(), ClientError> {
        match &self.closed {
            Some(failure) => Err(Failure::Closed(closed_text(failure)).to_error()),
            None => Ok(()),
        }
    }
}

/// A stream message waiting for room in its stream's queue.
pub(crate) type Blocked = (mpsc::Sender<Incoming>, Incoming);

/// Pending calls and the closed flag, behind one lock so no caller can register after
/// the connection closed and then wait forever.
pub(crate) struct Shared {
    state: Mutex<State>,
    /// Cancelled once the connection is closed: stops the reader and the writer.
    pub(crate) closed: CancellationToken,
    /// Where the streams write their frames; the writer sends them.
    pub(crate) outbox: Arc<Outbox>,
    /// Messages each stream queues before the reader waits.
    stream_queue: usize,
}

impl Shared {
    pub(crate) fn new(max_message: usize, stream_queue: usize) -> Self {
        Shared {
            state: Mutex::default(),
            closed: CancellationToken::new(),
            outbox: Arc::new(Outbox::new(crate::stream::OUTBOX_LIMIT, max_message)),
            stream_queue,
        }
    }

    /// Register stream `id`: the receiving side of its queue and its two halves.
    pub(crate) fn open_stream(&self, id: u32) -> Result<StreamIo, ClientError> {
        let mut state = self.lock();
        state.check_open()?;
        if state.streams.contains_key(&id) {
            return Err(ClientError::Protocol(format!(
                "stream id {id} is already open on this connection"
            )));
        }
        let (tx, rx) = crate::stream::queue(self.stream_queue);
        state.streams.insert(id, tx);
        Ok(StreamIo::new(id, rx, Arc::clone(&self.outbox)))
    }

    /// Hand a server's stream message to its stream; dropped if nobody listens.
    pub(crate) fn stream_message(&self, id: u32, message: Bytes) -> Option<Blocked> {
        let mut state = self.lock();
        let tx = state.streams.get(&id)?;
        match tx.try_send(Incoming::Message(message)) {
            Ok(()) => None,
            Err(mpsc::error::TrySendError::Full(item)) => Some((tx.clone(), item)),
            Err(mpsc::error::TrySendError::Closed(_)) => {
                // The stream's receiver was dropped: stop listening.
                state.streams.remove(&id);
                None
            }
        }
    }

    /// The server ended its side of stream `id`, with its outcome when it failed.
    pub(crate) fn stream_end(
        &self,
        id: u32,
        outcome: Option<crate::stream::StreamError>,
    ) -> Option<Blocked> {
        let tx = self.lock().streams.remove(&id)?;
        let end = match outcome {
            None => Incoming::End,
            Some(e) => Incoming::Failed(e),
        };
        match tx.try_send(end) {
            Err(mpsc::error::TrySendError::Full(item)) => Some((tx, item)),
            _ => None,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding this lock cannot leave the map inconsistent: recover.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Register a caller waiting for `id`.
    pub(crate) fn register(&self, id: u32) -> Result<oneshot::Receiver<Answer>, ClientError> {
        let mut state = self.lock();
        state.check_open()?;
        if state.pending.contains_key(&id) {
            return Err(ClientError::Protocol(format!(
                "PromiseID {id} is already in flight on this connection"
            )));
        }
        let (tx, rx) = oneshot::channel();
        state.pending.insert(id, tx);
        Ok(rx)
    }

    /// Forget the caller of `id` if it stopped waiting (timed out or dropped its call);
    /// whether it had (so the call is unanswered, and the server may be told).
    pub(crate) fn abandon(&self, id: u32) -> bool {
        let mut state = self.lock();
        if state.pending.get(&id).is_some_and(|tx| tx.is_closed()) {
            state.pending.remove(&id);
            return true;
        }
        false
    }

    /// Hand an answer to the caller of `id` (its body shares the read buffer: no copy);
    /// false if nobody waits for it.
    pub(crate) fn resolve(
        &self,
        id: u32,
        status: Status,
        body: Bytes,
        metadata: Option<Box<crate::context::Metadata>>,
    ) -> bool {
        let Some(tx) = self.lock().pending.remove(&id) else {
            return false;
        };
        let _ = tx.send(Ok((status, body, metadata)));
        true
    }

    /// Close: remember why, wake every waiting caller with the reason, stop the tasks.
    /// The first reason wins.
    pub(crate) fn close(&self, failure: Failure) {
        let waiting = {
            let mut state = self.lock();
            if state.closed.is_none() {
                state.closed = Some(failure.clone());
            }
            state.streams.clear();
            std::mem::take(&mut state.pending)
        };
        self.outbox.close(&closed_text(&failure));
        self.closed.cancel();
        for (_, tx) in waiting {
            let _ = tx.send(Err(failure.clone()));
        }
    }

    /// Whether the connection is closed.
    pub(crate) fn is_closed(&self) -> bool {
        self.lock().closed.is_some()
    }
}

fn closed_text(failure: &Failure) -> String {
    match failure {
        Failure::Closed(why) => why.clone(),
        Failure::Protocol(why) => format!("closed after a protocol error: {why}"),
    }
}

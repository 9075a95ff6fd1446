//! The state shared by a client's callers and its reader/writer tasks: who waits for
//! which PromiseID, and whether (and why) the connection is closed.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use bytes::Bytes;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::rpc::Status;
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
pub(crate) type Answer = Result<(Status, Bytes), Failure>;

#[derive(Default)]
struct State {
    pending: HashMap<u32, oneshot::Sender<Answer>>,
    closed: Option<Failure>,
}

/// Pending calls and the closed flag, behind one lock so no caller can register after
/// the connection closed and then wait forever.
#[derive(Default)]
pub(crate) struct Shared {
    state: Mutex<State>,
    /// Cancelled once the connection is closed: stops the reader and the writer.
    pub(crate) closed: CancellationToken,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding this lock cannot leave the map inconsistent: recover.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Register a caller waiting for `id`.
    pub(crate) fn register(&self, id: u32) -> Result<oneshot::Receiver<Answer>, ClientError> {
        let mut state = self.lock();
        if let Some(failure) = &state.closed {
            return Err(Failure::Closed(closed_text(failure)).to_error());
        }
        if state.pending.contains_key(&id) {
            return Err(ClientError::Protocol(format!(
                "PromiseID {id} is already in flight on this connection"
            )));
        }
        let (tx, rx) = oneshot::channel();
        state.pending.insert(id, tx);
        Ok(rx)
    }

    /// Forget the caller of `id` if it stopped waiting (timed out or dropped its call).
    pub(crate) fn abandon(&self, id: u32) {
        let mut state = self.lock();
        if state.pending.get(&id).is_some_and(|tx| tx.is_closed()) {
            state.pending.remove(&id);
        }
    }

    /// Hand an answer to the caller of `id` (its body shares the read buffer: no copy);
    /// false if nobody waits for it.
    pub(crate) fn resolve(&self, id: u32, status: Status, body: Bytes) -> bool {
        let Some(tx) = self.lock().pending.remove(&id) else {
            return false;
        };
        let _ = tx.send(Ok((status, body)));
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
            std::mem::take(&mut state.pending)
        };
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

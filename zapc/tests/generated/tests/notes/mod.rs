//! A handler of `schemas/streams.zap`'s `Notes`, shared by the stream tests: it counts
//! its stream handlers as they end (return or are dropped).

#![allow(dead_code)] // each test file uses a different part

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;
use zap_runtime::stream::{Receiver, Sender};
use zap_runtime::{AppCode, AppError, CallError, Owned};
use zapc_generated_tests::streams::{CountRequest, Note, Notes, Total};

/// Counts handlers dropped (returned or cancelled) and wakes whoever waits for one.
#[derive(Default)]
pub struct Ended {
    count: AtomicUsize,
    notify: Notify,
}

struct OnDrop(Arc<Ended>);

impl Drop for OnDrop {
    fn drop(&mut self) {
        self.0.count.fetch_add(1, Ordering::SeqCst);
        self.0.notify.notify_waiters();
    }
}

impl Ended {
    /// Wait until at least `n` handlers ended (bounded, so a bug fails the test).
    pub async fn wait_for(&self, n: usize) {
        tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                let notified = self.notify.notified();
                if self.count.load(Ordering::SeqCst) >= n {
                    return;
                }
                notified.await;
            }
        })
        .await
        .unwrap_or_else(|_| panic!("{n} handlers did not end within 10 s"));
    }
}

/// The count `count` answers with two notes and an application error (code 13).
pub const UNLUCKY: u32 = 13;

pub struct Impl {
    pub ended: Arc<Ended>,
}

pub fn note(seq: u32) -> Note {
    Note {
        seq,
        text: format!("note {seq}"),
    }
}

impl Notes for Impl {
    async fn ping(&self) -> Result<(), CallError> {
        Ok(())
    }

    async fn echo(
        &self,
        mut input: Receiver<Note>,
        mut output: Sender<Note>,
    ) -> Result<(), CallError> {
        let _ended = OnDrop(self.ended.clone());
        while let Some(note) = input.next().await? {
            output.send_owned(&note).await?;
        }
        Ok(())
    }

    async fn count(
        &self,
        req: Owned<CountRequest>,
        mut output: Sender<Note>,
    ) -> Result<(), CallError> {
        let _ended = OnDrop(self.ended.clone());
        // 13 is unlucky: two notes, then an application error.
        if req.get().n() == UNLUCKY {
            output.send(&note(0)).await?;
            output.send(&note(1)).await?;
            return Err(AppError::new(AppCode::new(13), "13 is unlucky").into());
        }
        for seq in 0..req.get().n() {
            output.send(&note(seq)).await?;
        }
        Ok(())
    }

    async fn tally(&self, mut input: Receiver<Note>) -> Result<Total, CallError> {
        let mut total = Total { notes: 0, chars: 0 };
        while let Some(note) = input.next().await? {
            total.notes += 1;
            total.chars += note.get().text().len() as u64;
        }
        Ok(total)
    }

    async fn relay(
        &self,
        start: Owned<CountRequest>,
        mut input: Receiver<Note>,
        mut output: Sender<Note>,
    ) -> Result<(), CallError> {
        let offset = start.get().n();
        while let Some(n) = input.next().await? {
            output.send(&note(n.get().seq() + offset)).await?;
        }
        Ok(())
    }
}

//! A write-progress deadline for HTTP connections: a peer that stops reading its answers
//! can hold a connection, and the answer waiting to be written, only for
//! [`HttpConfig::write_stall_timeout`]; then its connection fails and everything it held
//! is freed. The ZAP/TCP server closes such peers the same way (`WriteStalled`).
//!
//! hyper's own timers only run while a request head is awaited, so once an answer
//! cannot be written nothing else would ever end the connection.
//!
//! [`HttpConfig::write_stall_timeout`]: super::HttpConfig::write_stall_timeout

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// Told of every write that completes (the connection's idle clock counts them).
pub(super) trait Progress {
    fn wrote(&self);
}

impl Progress for () {
    fn wrote(&self) {}
}

impl<P: Progress + ?Sized> Progress for std::sync::Arc<P> {
    fn wrote(&self) {
        (**self).wrote();
    }
}

/// `io`, whose writes fail with [`io::ErrorKind::TimedOut`] once they have made no
/// progress for `limit`. The timer exists only while output is blocked.
///
/// Progress is a write that completes, or a flush that completes after it had to wait
/// (a flush of a plain TCP stream never waits and says nothing about the peer: the
/// peer may be reading nothing while every flush succeeds).
pub(super) struct WriteDeadline<IO, P = ()> {
    io: IO,
    limit: Duration,
    stalled: Option<Pin<Box<Sleep>>>,
    flush_waited: bool,
    progress: P,
}

impl<IO, P: Progress> WriteDeadline<IO, P> {
    pub(super) fn new(io: IO, limit: Duration, progress: P) -> Self {
        WriteDeadline {
            io,
            limit,
            stalled: None,
            flush_waited: false,
            progress,
        }
    }

    /// After a write poll: a result is progress and clears the timer; `Pending` starts
    /// it (or checks the running one).
    fn watch<T>(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        match polled {
            Poll::Ready(result) => {
                self.stalled = None;
                self.flush_waited = false;
                self.progress.wrote();
                Poll::Ready(result)
            }
            Poll::Pending => self.blocked(cx).map(Err),
        }
    }

    /// After a flush (or shutdown) poll: a result is progress only if the flush had to
    /// wait before; `Pending` is watched like a blocked write.
    fn watch_flush(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<io::Result<()>>,
    ) -> Poll<io::Result<()>> {
        match polled {
            Poll::Ready(result) => {
                if std::mem::take(&mut self.flush_waited) {
                    self.stalled = None;
                }
                Poll::Ready(result)
            }
            Poll::Pending => {
                self.flush_waited = true;
                self.blocked(cx).map(Err)
            }
        }
    }

    /// Output is blocked: start the timer, or check the running one (which registers
    /// the task to be woken when it fires); the error once it has fired.
    fn blocked(&mut self, cx: &mut Context<'_>) -> Poll<io::Error> {
        let limit = self.limit;
        let timer = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("the peer read none of its answer for {limit:?}"),
            )),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<IO: AsyncRead + Unpin, P: Unpin> AsyncRead for WriteDeadline<IO, P> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<IO: AsyncWrite + Unpin, P: Progress + Unpin> AsyncWrite for WriteDeadline<IO, P> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.io).poll_write(cx, buf);
        self.watch(cx, polled)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        self.watch(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let polled = Pin::new(&mut self.io).poll_flush(cx);
        self.watch_flush(cx, polled)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let polled = Pin::new(&mut self.io).poll_shutdown(cx);
        self.watch_flush(cx, polled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    /// A writer whose peer never reads: an in-memory pipe with a small buffer that is
    /// filled and never drained.
    #[tokio::test(start_paused = true)]
    async fn a_write_that_makes_no_progress_fails_after_the_limit() {
        let (near, _far) = tokio::io::duplex(64);
        let mut guarded = WriteDeadline::new(near, Duration::from_secs(30), ());
        let started = tokio::time::Instant::now();
        let err = guarded.write_all(&[7; 1024]).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert_eq!(started.elapsed(), Duration::from_secs(30));
    }

    /// Progress resets the deadline: a peer that reads slowly, but reads, is served.
    #[tokio::test(start_paused = true)]
    async fn a_slow_reader_is_not_a_stalled_one() {
        use tokio::io::AsyncReadExt;
        let (near, mut far) = tokio::io::duplex(64);
        let mut guarded = WriteDeadline::new(near, Duration::from_secs(30), ());
        let reader = tokio::spawn(async move {
            let mut got = Vec::new();
            let mut chunk = [0u8; 64];
            loop {
                tokio::time::sleep(Duration::from_secs(20)).await;
                match far.read(&mut chunk).await.unwrap() {
                    0 => return got,
                    n => got.extend_from_slice(&chunk[..n]),
                }
            }
        });
        guarded.write_all(&[7; 640]).await.unwrap();
        guarded.shutdown().await.unwrap();
        drop(guarded);
        assert_eq!(reader.await.unwrap().len(), 640);
    }

    /// A socket whose peer reads nothing: writes wait forever, flushes (nothing buffered
    /// here, as with TCP) succeed at once.
    struct Unread;

    impl AsyncWrite for Unread {
        fn poll_write(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
            _: &[u8],
        ) -> Poll<io::Result<usize>> {
            Poll::Pending
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    /// hyper flushes between writes: a flush that never had to wait is not progress.
    #[tokio::test(start_paused = true)]
    async fn flushes_that_succeed_do_not_hide_a_stalled_write() {
        let mut guarded = WriteDeadline::new(Unread, Duration::from_secs(30), ());
        let started = tokio::time::Instant::now();
        let err = std::future::poll_fn(|cx| {
            let mut pinned = Pin::new(&mut guarded);
            if let Poll::Ready(Err(e)) = pinned.as_mut().poll_write(cx, b"answer") {
                return Poll::Ready(e);
            }
            assert!(pinned.as_mut().poll_flush(cx).is_ready());
            Poll::Pending
        })
        .await;
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert_eq!(started.elapsed(), Duration::from_secs(30));
    }
}

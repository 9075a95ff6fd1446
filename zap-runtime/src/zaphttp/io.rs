//! Length-prefixed frames on a byte stream, with the waits bounded.

use std::time::Duration;

use bytes::{Bytes, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::Error;
use crate::budget::Held;

/// Frames up to this size are not counted in a buffer budget.
pub(crate) const UNCOUNTED: usize = 16 << 10;

/// Reads frames off a stream into one buffer kept across frames. A frame is split off
/// the buffer as [`Bytes`], so the fields of a request (its body, its header values)
/// are slices of it, never copies.
#[derive(Debug)]
pub(crate) struct FrameReader {
    buf: BytesMut,
    max: usize,
}

/// What a reader waits for.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Waits {
    /// For the first byte of a frame (`None`: no bound).
    pub first: Option<Duration>,
    /// For the rest of a frame, once its first byte is in.
    pub rest: Duration,
}

impl FrameReader {
    pub(crate) fn new(max: usize) -> Self {
        FrameReader {
            buf: BytesMut::with_capacity(8 << 10),
            max,
        }
    }

    /// Bytes already read past the frames returned.
    pub(crate) fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// The next frame's message (without its prefix); `None` when the peer closed the
    /// stream cleanly between frames.
    ///
    /// A frame longer than 16 KiB is counted in `held`'s budget (when given) as soon as
    /// its length is known, before it is read; the buffer grows as its bytes arrive, not
    /// to the length a peer announces.
    pub(crate) async fn next<IO: AsyncRead + Unpin>(
        &mut self,
        io: &mut IO,
        waits: Waits,
        held: Option<&mut Held>,
    ) -> Result<Option<Bytes>, Error> {
        if self.buf.is_empty() {
            let read = io.read_buf(&mut self.buf);
            let n = match waits.first {
                Some(limit) => tokio::time::timeout(limit, read)
                    .await
                    .map_err(|_| Error::Timeout("waiting for the next frame"))??,
                None => read.await?,
            };
            if n == 0 {
                return Ok(None);
            }
        }
        // A frame already in the buffer (or that arrives with its first bytes) costs no
        // timer; one that has to be waited for is bounded.
        at_once_or_within(waits.rest, self.rest(io, held))
            .await
            .map_err(|_| Error::Timeout("reading a frame"))?
            .map(Some)
    }

    async fn rest<IO: AsyncRead + Unpin>(
        &mut self,
        io: &mut IO,
        held: Option<&mut Held>,
    ) -> Result<Bytes, Error> {
        while self.buf.len() < 4 {
            self.fill(io).await?;
        }
        let len = u32::from_be_bytes([self.buf[0], self.buf[1], self.buf[2], self.buf[3]]);
        if len == 0 {
            return Err(Error::Empty);
        }
        if len as usize > self.max {
            return Err(Error::TooLarge {
                len: len.into(),
                max: self.max,
            });
        }
        let whole = 4 + len as usize;
        if let Some(held) = held.filter(|_| whole > UNCOUNTED) {
            held.hold(whole).await;
        }
        while self.buf.len() < whole {
            self.fill(io).await?;
        }
        let mut frame = self.buf.split_to(whole);
        let _ = frame.split_to(4);
        Ok(frame.freeze())
    }

    async fn fill<IO: AsyncRead + Unpin>(&mut self, io: &mut IO) -> Result<(), Error> {
        if self.buf.capacity() == self.buf.len() {
            // Doubling as the bytes arrive, by 64 KiB at most: what is held is what came.
            self.buf.reserve(self.buf.len().clamp(8 << 10, 64 << 10));
        }
        match io.read_buf(&mut self.buf).await? {
            0 => Err(Error::Closed("in the middle of a frame")),
            _ => Ok(()),
        }
    }
}

/// Write `bytes` (whole frames), failing if the peer takes none of them for `stall`. A
/// write the socket takes at once costs no timer.
pub(crate) async fn write_all<IO: AsyncWrite + Unpin>(
    io: &mut IO,
    bytes: &[u8],
    stall: Duration,
) -> Result<(), Error> {
    let stalled = |_| Error::Timeout("writing to a peer that reads nothing");
    let mut left = bytes;
    while !left.is_empty() {
        let n = at_once_or_within(stall, io.write(left))
            .await
            .map_err(stalled)??;
        if n == 0 {
            return Err(Error::Closed("while being written to"));
        }
        left = &left[n..];
    }
    at_once_or_within(stall, io.flush())
        .await
        .map_err(stalled)??;
    Ok(())
}

/// `future`'s output if it is ready at once (no timer is made), else within `limit`.
async fn at_once_or_within<F: std::future::Future>(
    limit: Duration,
    future: F,
) -> Result<F::Output, tokio::time::error::Elapsed> {
    let mut future = std::pin::pin!(future);
    let first = std::future::poll_fn(|cx| std::task::Poll::Ready(future.as_mut().poll(cx))).await;
    match first {
        std::task::Poll::Ready(output) => Ok(output),
        std::task::Poll::Pending => tokio::time::timeout(limit, future).await,
    }
}

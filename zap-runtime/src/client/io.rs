//! The client's two connection tasks: the writer batches queued request frames into
//! as few writes as possible; the reader matches response frames to callers.

use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use super::shared::{Failure, Shared};
use crate::frame::{Direction, FrameDecode, FrameDecoder};
use crate::frame_reader::FrameReader;
use crate::rpc::Response;

/// What the reader needs of a framing: the answer in a frame.
pub(crate) trait ResponseFrames: FrameDecode<Error: std::fmt::Display> {
    /// The reqID the framing correlates by (`None`: use the envelope's PromiseID) and
    /// the Response envelope of `frame`; an error if it is not an answer.
    fn response<'a>(frame: Self::Frame<'a>) -> Result<(Option<u32>, &'a [u8]), Failure>;
}

impl ResponseFrames for FrameDecoder {
    fn response<'a>(frame: Self::Frame<'a>) -> Result<(Option<u32>, &'a [u8]), Failure> {
        if frame.dir != Direction::Response {
            return Err(Failure::Protocol(format!(
                "server sent a {:?} frame; a client expects only responses (dir 2)",
                frame.dir
            )));
        }
        Ok((None, frame.envelope))
    }
}

/// Bytes gathered into one write at most (frames larger than this go alone).
const WRITE_BATCH: usize = 256 << 10;
/// A frame of at least this many bytes is not copied into the batch: it is written from
/// its own buffer, after the batch gathered so far (one vectored write).
const WRITE_DIRECT: usize = 16 << 10;
/// Starting capacity of the write batch.
const BATCH_START: usize = 16 << 10;

/// Write queued frames until the queue closes (every `Client` dropped) or the
/// connection closes; then send end-of-stream.
pub(crate) async fn write_loop<W: AsyncWrite + Unpin>(
    mut wr: W,
    mut queue: mpsc::Receiver<Vec<u8>>,
    shared: Arc<Shared>,
) {
    let mut batch = Vec::with_capacity(BATCH_START);
    loop {
        let next = tokio::select! {
            next = queue.recv() => next,
            () = shared.closed.cancelled() => None,
        };
        let Some(frame) = next else { break };
        let mut direct = None;
        let mut next = Some(frame);
        while let Some(frame) = next.take() {
            if frame.len() >= WRITE_DIRECT {
                direct = Some(frame);
                break;
            }
            crate::copies::note(frame.len());
            batch.extend_from_slice(&frame);
            if batch.len() >= WRITE_BATCH {
                break;
            }
            next = queue.try_recv().ok();
        }
        // flush: a TLS stream may hold back the tail of what it encrypted.
        let written = tokio::select! {
            written = async {
                write_both(&mut wr, &batch, direct.as_deref().unwrap_or_default()).await?;
                wr.flush().await
            } => written,
            () = shared.closed.cancelled() => break,
        };
        if let Err(e) = written {
            shared.close(Failure::Closed(format!(
                "writing to the server failed: {e}"
            )));
            break;
        }
        batch.clear();
        if batch.capacity() > WRITE_BATCH * 2 {
            batch = Vec::with_capacity(BATCH_START);
        }
    }
    let _ = wr.shutdown().await;
}

/// Write `first` then `second`, in vectored writes while both have bytes left.
async fn write_both<W: AsyncWrite + Unpin>(
    wr: &mut W,
    mut first: &[u8],
    mut second: &[u8],
) -> std::io::Result<()> {
    while !first.is_empty() && !second.is_empty() {
        let slices = [std::io::IoSlice::new(first), std::io::IoSlice::new(second)];
        let n = wr.write_vectored(&slices).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        let from_first = n.min(first.len());
        first = &first[from_first..];
        second = &second[n - from_first..];
    }
    wr.write_all(first).await?;
    wr.write_all(second).await
}

/// Read response frames and resolve the matching callers until the connection ends;
/// then close `shared` with the reason (waking everyone still waiting).
pub(crate) async fn read_loop<R: AsyncRead + Unpin, D: ResponseFrames>(
    mut rd: R,
    shared: Arc<Shared>,
    mut frames: FrameReader<D>,
) {
    let failure = loop {
        if let Err(failure) = dispatch_frames(&mut frames, &shared) {
            break failure;
        }
        let read = tokio::select! {
            read = frames.read_from(&mut rd) => read,
            () = shared.closed.cancelled() => return,
        };
        match read {
            Ok(0) if frames.pending() == 0 => {
                break Failure::Closed("the server closed the connection".into())
            }
            Ok(0) => {
                break Failure::Closed(format!(
                    "the server closed the connection in the middle of a frame ({} bytes unread)",
                    frames.pending()
                ))
            }
            Ok(_) => {}
            Err(e) => break Failure::Closed(format!("reading from the server failed: {e}")),
        }
    };
    tracing::debug!("zap client: connection closed: {failure:?}");
    shared.close(failure);
}

/// Resolve every complete response frame read so far. Each frame is split off the read
/// buffer as `Bytes` and each caller gets its body as a slice of it: no copy.
fn dispatch_frames<D: ResponseFrames>(
    frames: &mut FrameReader<D>,
    shared: &Shared,
) -> Result<(), Failure> {
    while let Some((answer, frame)) = frames
        .next_frame_bytes(|frame, within| {
            D::response(frame).map(|(req_id, envelope)| (req_id, within.range(envelope)))
        })
        .map_err(|e| Failure::Protocol(e.to_string()))?
    {
        let (req_id, envelope) = answer?;
        let resp = Response::parse(&frame[envelope])
            .map_err(|e| Failure::Protocol(format!("bad response envelope: {e}")))?;
        let id = req_id.unwrap_or(resp.promise_id);
        if !shared.resolve(id, resp.status, crate::owned::share(&frame, resp.body)) {
            tracing::debug!(
                id,
                promise_id = resp.promise_id,
                status = resp.status.0,
                "zap client: answer for a call nobody waits for (timed out?): {}",
                resp.body_text()
            );
        }
    }
    Ok(())
}

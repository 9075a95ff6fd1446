//! The client's two connection tasks: the writer batches queued request frames into
//! as few writes as possible; the reader matches response frames to callers.

use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use super::shared::{Failure, Shared};
use crate::frame::{Direction, FrameDecode, FrameDecoder};
use crate::frame_reader::FrameReader;
use crate::rpc::Response;
use crate::stream::StreamError;

/// What a client reads in a frame.
pub(crate) enum Received<'a> {
    /// An answer: the reqID the framing correlates by (`None`: use the envelope's
    /// PromiseID) and the Response envelope.
    Response {
        req_id: Option<u32>,
        envelope: &'a [u8],
    },
    /// dir 4: a message on one of our streams.
    StreamMessage { id: u32, message: &'a [u8] },
    /// dir 5: the server ended its side of a stream.
    StreamEnd(u32, Option<StreamError>),
    /// A stream frame too short to name its stream: dropped, as the Go runtime does.
    Ignored,
}

/// What the reader needs of a framing: what a frame is.
pub(crate) trait ResponseFrames: FrameDecode<Error: std::fmt::Display> {
    /// What `frame` carries; an error if a client cannot take it.
    fn classify<'a>(frame: Self::Frame<'a>) -> Result<Received<'a>, Failure>;
}

impl ResponseFrames for FrameDecoder {
    fn classify<'a>(frame: Self::Frame<'a>) -> Result<Received<'a>, Failure> {
        match frame.dir {
            Direction::Response => Ok(Received::Response {
                req_id: None,
                envelope: frame.envelope,
            }),
            Direction::StreamMessage => Ok(match frame.stream_body() {
                Some((id, message)) => Received::StreamMessage { id, message },
                None => Received::Ignored,
            }),
            Direction::StreamEnd => Ok(match frame.stream_body() {
                Some((id, outcome)) => Received::StreamEnd(id, StreamError::from_outcome(outcome)),
                None => Received::Ignored,
            }),
            dir => Err(Failure::Protocol(format!(
                "server sent a {dir:?} frame; a client takes responses (dir 2) and stream frames (dirs 4, 5)"
            ))),
        }
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
            // Stream messages: whatever the streams wrote goes out with the next batch.
            () = shared.outbox.ready() => Some(Vec::new()),
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
        shared.outbox.take_into(&mut batch);
        if batch.is_empty() && direct.is_none() {
            continue;
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
        match dispatch_frames(&mut frames, &shared) {
            Ok(None) => {}
            Ok(Some((queue, item))) => {
                // A stream's queue is full: read nothing more until its reader takes
                // a message (the wire has no flow control per stream).
                tokio::select! {
                    _ = queue.send(item) => {}
                    () = shared.closed.cancelled() => return,
                }
                continue;
            }
            Err(failure) => break failure,
        }
        let read = tokio::select! {
            read = frames.read_from(&mut rd) => read,
            () = shared.closed.cancelled() => return,
        };
        match read {
            Ok(0) if frames.pending() == 0 => {
                break Failure::Closed("the server closed the connection".into())
            }
            Ok(0) => match other_protocol(frames.unread()) {
                Some(speaks) => {
                    break Failure::Protocol(format!(
                        "the peer does not speak ZAP: {speaks}, then closed the connection"
                    ))
                }
                None => {
                    break Failure::Closed(format!(
                    "the server closed the connection in the middle of a frame ({} bytes unread)",
                    frames.pending()
                ))
                }
            },
            Ok(_) => {}
            Err(e) => break Failure::Closed(format!("reading from the server failed: {e}")),
        }
    };
    tracing::debug!("zap client: connection closed: {failure:?}");
    shared.close(failure);
}

/// A frame, as ranges of its bytes.
enum Routed {
    Response {
        req_id: Option<u32>,
        envelope: std::ops::Range<usize>,
    },
    StreamMessage {
        id: u32,
        message: std::ops::Range<usize>,
    },
    StreamEnd(u32, Option<StreamError>),
    Ignored,
}

/// Resolve every complete response frame read so far, and hand stream frames to their
/// streams. Each frame is split off the read buffer as `Bytes` and each caller gets its
/// body as a slice of it: no copy. Stops at a stream message whose queue is full,
/// returning it with its queue.
fn dispatch_frames<D: ResponseFrames>(
    frames: &mut FrameReader<D>,
    shared: &Shared,
) -> Result<Option<super::shared::Blocked>, Failure> {
    while let Some((routed, frame)) = frames
        .next_frame_bytes(|frame, within| {
            D::classify(frame).map(|received| match received {
                Received::Response { req_id, envelope } => Routed::Response {
                    req_id,
                    envelope: within.range(envelope),
                },
                Received::StreamMessage { id, message } => Routed::StreamMessage {
                    id,
                    message: within.range(message),
                },
                Received::StreamEnd(id, outcome) => Routed::StreamEnd(id, outcome),
                Received::Ignored => Routed::Ignored,
            })
        })
        .map_err(|e| Failure::Protocol(not_zap(frames.unread(), &e)))?
    {
        let (req_id, envelope) = match routed? {
            Routed::Response { req_id, envelope } => (req_id, envelope),
            Routed::StreamMessage { id, message } => {
                if let Some(blocked) = shared.stream_message(id, frame.slice(message)) {
                    return Ok(Some(blocked));
                }
                continue;
            }
            Routed::StreamEnd(id, outcome) => {
                if let Some(blocked) = shared.stream_end(id, outcome) {
                    return Ok(Some(blocked));
                }
                continue;
            }
            Routed::Ignored => continue,
        };
        let resp = Response::parse(&frame[envelope.clone()])
            .map_err(|e| Failure::Protocol(format!("bad response envelope: {e}")))?;
        // Metadata the answer carries back, after the envelope.
        let metadata = crate::context::answer_metadata(&frame, envelope)
            .map_err(|e| Failure::Protocol(format!("the answer's metadata: {e}")))?
            .map(Box::new);
        let id = req_id.unwrap_or(resp.promise_id);
        if !shared.resolve(
            id,
            resp.status,
            crate::owned::share(&frame, resp.body),
            metadata,
        ) {
            tracing::debug!(
                id,
                promise_id = resp.promise_id,
                status = resp.status.0,
                "zap client: answer for a call nobody waits for (timed out?): {}",
                resp.body_text()
            );
        }
    }
    Ok(None)
}

/// Why the answer bytes `unread` are not ZAP frames (`error`): when they are another
/// protocol's (an HTTP server's answer, a TLS record), say which, and what to connect
/// with instead; otherwise the framing error itself.
fn not_zap(unread: &[u8], error: &dyn std::fmt::Display) -> String {
    match other_protocol(unread) {
        Some(speaks) => {
            format!("the peer does not speak ZAP: {speaks}; its first bytes read as {error}")
        }
        None => error.to_string(),
    }
}

/// The protocol the bytes a server sent first belong to, when they are not ZAP's.
fn other_protocol(unread: &[u8]) -> Option<&'static str> {
    if unread.starts_with(b"HTTP/") {
        Some(
            "it answered in HTTP (an HTTP or JSON-RPC port: POST JSON-RPC to it, or call \
             the server's ZAP port)",
        )
    } else if matches!(unread, [0x14..=0x17, 0x03, ..]) {
        Some("it answered with a TLS record (a TLS port: connect with TLS, `zapc call --tls`)")
    } else if unread.starts_with(b"SSH-") {
        Some("it answered as an SSH server")
    } else {
        None
    }
}

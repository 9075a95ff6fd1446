//! ZAP over QUIC (feature `quic`), as the Go runtime (`zap-proto/go`, `transport/quic`)
//! carries it: every call and every stream gets a client-initiated bidirectional QUIC
//! stream of its own, so a lost packet delays only the call it belongs to.
//!
//! On each QUIC stream:
//!
//! ```text
//! first frame:  [len u32][op u8][request envelope]   len = 1 + envelope length
//!               op 1: a call, op 2: a stream open (PromiseID any, Payload the opening message)
//! later frames: [len u32][bytes]                     both directions, no op, no id
//! ```
//!
//! A call: the client writes its frame and FIN together (a peer that reads only the
//! request must still see the FIN, or the stream never completes and its credit never
//! returns), and reads one frame, the response envelope; the server answers and FINs. A
//! stream: messages both ways, FIN ends a direction, and the server's handler returning
//! FINs its side. Refusals as the Go peer makes them: an unreadable first frame (bad
//! length, early FIN) gets STOP_SENDING and RESET_STREAM, an unknown op or an envelope
//! that does not parse gets RESET_STREAM, all with code 0; a stream of a method that is
//! not a stream, or refused by the capability check, is ended at once (FIN, no message).
//!
//! TLS is TLS 1.3 with ALPN `zap/1` (a client offering no ALPN or another one fails the
//! handshake) and the key exchange of the [`ServerTls`](crate::tls::ServerTls) or
//! [`ClientTls`](crate::tls::ClientTls) given: `X25519MLKEM768` first, with `X25519`
//! accepted unless the settings say [`KeyExchange::PostQuantumOnly`], which is what the
//! Go runtime does. 0-RTT is off (replayable requests would need idempotent methods);
//! connection migration is quinn's default (a client may move; the server does not
//! migrate); no keep-alive from the server (the client may set one).
//!
//! [`KeyExchange::PostQuantumOnly`]: crate::tls::KeyExchange::PostQuantumOnly

mod client;
mod server;

use std::future::Future as _;
use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use quinn::{RecvStream, SendStream, VarInt};
use tokio::sync::mpsc;

use crate::accept::ServerStats;
use crate::budget::{BufferBudget, Held};
use crate::frame::Direction;
use crate::stream::{Incoming, Outbox};

pub use client::{QuicClient, QuicClientConfig};
pub use server::{QuicConfig, QuicServer};

/// The ALPN protocol of ZAP over QUIC.
pub const ALPN: &[u8] = b"zap/1";

/// The first frame's op: a call.
pub const OP_CALL: u8 = 1;
/// The first frame's op: a stream open.
pub const OP_STREAM: u8 = 2;

/// Default largest frame, as the Go runtime bounds them: 64 MiB.
pub const DEFAULT_MAX_FRAME: usize = 64 << 20;

/// Bytes a stream's sender may have waiting before its `send` waits.
const OUTBOX_LIMIT: usize = 64 << 10;

/// Why a frame could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FrameError {
    #[error("the stream ended inside a frame")]
    EarlyEnd,
    #[error("a frame of {len} bytes is over the limit of {max}")]
    TooLarge { len: usize, max: usize },
    #[error("a first frame of length 0 has no op")]
    Empty,
    #[error("{0}")]
    Read(#[from] quinn::ReadError),
}

/// How one side reads and counts frames: the largest it takes, and on the server the
/// budget that partly arrived frames are held against and the counters of its bytes.
#[derive(Clone, Debug)]
pub(crate) struct Side {
    pub(crate) max_frame: usize,
    pub(crate) budget: Option<BufferBudget>,
    pub(crate) stats: Option<ServerStats>,
}

impl Side {
    /// A client: its own bound, no budget, no counters.
    pub(crate) fn client(max_frame: usize) -> Side {
        Side {
            max_frame,
            budget: None,
            stats: None,
        }
    }

    fn read(&self, n: usize) {
        if let Some(stats) = &self.stats {
            stats.read(n);
        }
    }

    pub(crate) fn wrote(&self, n: usize) {
        if let Some(stats) = &self.stats {
            stats.wrote(n);
        }
    }
}

/// Bytes of a frame that arrive before the budget is consulted: small frames never
/// touch it (as a ZAP/TCP connection's first 16 KiB of read buffer).
const UNCOUNTED: usize = 16 << 10;
/// How far ahead of the bytes buffered a frame reserves from the budget.
const STEP: usize = 64 << 10;

/// Read `[len u32][bytes]`; `None` at a FIN between frames. The bytes are one chunk of
/// quinn's when they arrived in one (no copy); memory grows only with bytes received,
/// and past [`UNCOUNTED`] only with the budget's leave: while it is spent the stream
/// is not read, and QUIC's flow control holds the peer back.
pub(crate) async fn read_frame(
    recv: &mut RecvStream,
    side: &Side,
) -> Result<Option<Bytes>, FrameError> {
    let mut word = [0u8; 4];
    let mut got = 0;
    while got < 4 {
        match recv.read(&mut word[got..]).await? {
            None if got == 0 => return Ok(None),
            None => return Err(FrameError::EarlyEnd),
            Some(n) => got += n,
        }
    }
    let len = u32::from_le_bytes(word) as usize;
    if len > side.max_frame {
        return Err(FrameError::TooLarge {
            len,
            max: side.max_frame,
        });
    }
    side.read(4);
    read_exact(recv, len, side).await.map(Some)
}

/// Read the first frame of a stream: its op and envelope.
pub(crate) async fn read_first(
    recv: &mut RecvStream,
    side: &Side,
) -> Result<(u8, Bytes), FrameError> {
    let mut frame = read_frame(recv, side).await?.ok_or(FrameError::EarlyEnd)?;
    if frame.is_empty() {
        return Err(FrameError::Empty);
    }
    let op = frame[0];
    Ok((op, frame.split_off(1)))
}

async fn read_exact(recv: &mut RecvStream, len: usize, side: &Side) -> Result<Bytes, FrameError> {
    let mut whole: Option<BytesMut> = None;
    let mut held = side.budget.as_ref().map(|b| Held::new(b.clone()));
    let mut left = len;
    while left > 0 {
        let buffered = whole.as_ref().map_or(0, BytesMut::len);
        let mut most = left;
        if let Some(held) = held.as_mut().filter(|_| len > UNCOUNTED) {
            most = most.min(STEP);
            held.hold(buffered + most).await;
        }
        let chunk = recv
            .read_chunk(most, true)
            .await?
            .ok_or(FrameError::EarlyEnd)?;
        left -= chunk.bytes.len();
        side.read(chunk.bytes.len());
        match &mut whole {
            None if left == 0 => return Ok(chunk.bytes),
            None => {
                let mut buf = BytesMut::with_capacity(chunk.bytes.len() * 2);
                buf.extend_from_slice(&chunk.bytes);
                whole = Some(buf);
            }
            Some(buf) => buf.extend_from_slice(&chunk.bytes),
        }
    }
    Ok(whole.map(BytesMut::freeze).unwrap_or_default())
}

/// Take the FIN if it has arrived already (it usually comes in the packet that
/// carried the last frame), without waiting: quinn sends STOP_SENDING for a receive
/// side dropped before its end was read, one more frame each way for every call.
pub(crate) fn take_fin(recv: &mut RecvStream) {
    let mut byte = [0u8; 1];
    let read = std::pin::pin!(recv.read(&mut byte));
    let _ = read.poll(&mut std::task::Context::from_waker(std::task::Waker::noop()));
}

/// `[len][bytes]`, or with `op` the first frame's `[len][op][bytes]`, appended to `out`.
pub(crate) fn put_frame(out: &mut Vec<u8>, op: Option<u8>, bytes: &[u8]) {
    let len = bytes.len() + usize::from(op.is_some());
    out.extend_from_slice(&(len as u32).to_le_bytes());
    out.extend(op);
    out.extend_from_slice(bytes);
}

/// The refusal code of every reset and stop, as the Go runtime sends them.
pub(crate) const REFUSED: VarInt = VarInt::from_u32(0);

/// Deliver the peer's messages on `recv` to a stream's queue, and its FIN as the end.
/// Stops reading (STOP_SENDING) when the handler is gone or a frame is bad.
pub(crate) async fn pump_in(mut recv: RecvStream, tx: mpsc::Sender<Incoming>, side: Side) {
    loop {
        match read_frame(&mut recv, &side).await {
            Ok(Some(message)) => {
                if tx.send(Incoming::Message(message)).await.is_err() {
                    let _ = recv.stop(REFUSED);
                    return;
                }
            }
            Ok(None) => {
                let _ = tx.send(Incoming::End).await;
                return;
            }
            // The peer reset the stream with a status (a zapc server's stream that
            // failed): its outcome. Code 0 is the Go runtime's plain refusal.
            Err(FrameError::Read(quinn::ReadError::Reset(code))) if code.into_inner() != 0 => {
                let status =
                    crate::rpc::Status(u32::try_from(code.into_inner()).unwrap_or(u32::MAX));
                let failed = crate::stream::StreamError::Ended {
                    status,
                    message: format!("the peer reset the stream with status {status}"),
                };
                let _ = tx.send(Incoming::Failed(failed)).await;
                return;
            }
            Err(e) => {
                tracing::debug!("quic: a stream's input ended: {e}");
                let _ = recv.stop(REFUSED);
                return; // the queue's sender dropped: the handler sees the stream fail
            }
        }
    }
}

/// Write what a stream's sender puts in `outbox` to `send` as frames, and FIN once it
/// ends its side. A peer that stops reading (STOP_SENDING) closes the outbox: later
/// sends fail, and `Outbound::closed` resolves.
pub(crate) async fn pump_out(outbox: Arc<Outbox>, mut send: SendStream, side: Side) {
    let mut frames = Vec::new();
    let mut out = Vec::new();
    loop {
        frames.clear();
        if !outbox.take_into(&mut frames) {
            // A peer that stops reading (or goes away) while the handler has nothing
            // to send closes the outbox too, so a handler waiting for its stream's
            // end (a health watch between changes) learns at once.
            tokio::select! {
                () = outbox.ready() => continue,
                _ = send.stopped() => {
                    outbox.close("the peer stopped reading this stream");
                    return;
                }
            }
        }
        out.clear();
        let mut ended = None;
        for (dir, _, message) in crate::stream::outbox_frames(&frames) {
            if dir == Direction::StreamEnd as u8 {
                // The outcome, if any: `[status u32][text]`.
                ended = Some(message.first_chunk::<4>().map(|s| u32::from_le_bytes(*s)));
                break;
            }
            put_frame(&mut out, None, message);
        }
        if send.write_all(&out).await.is_err() {
            outbox.close("the peer stopped reading this stream");
            return;
        }
        side.wrote(out.len());
        match ended {
            // A stream that failed is reset with its status as the code: QUIC frames
            // have no room for an outcome the Go runtime would not take as a message.
            Some(Some(status)) if status != crate::rpc::Status::OK.0 => {
                let _ = send.reset(VarInt::from_u32(status));
                return;
            }
            Some(_) => {
                let _ = send.finish();
                return;
            }
            None => {}
        }
    }
}

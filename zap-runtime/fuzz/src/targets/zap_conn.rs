//! The `zap_conn` target: the ZAP/TCP server's whole connection path
//! (`zap_runtime::server::serve_stream`: framing detection, the frame loop, pipelining,
//! cancel frames, streams (dirs 3, 4, 5) under whatever ids the client picks, reused,
//! unknown or ended, and the built-in methods) on the bytes a client sends on one
//! connection, with [`Streamer`], a service with calls and every kind of stream.
//!
//! Input: byte 0 picks the server's settings: bits 0-1 `max_streams` (100, 1, 2, 4),
//! bit 2 a stream queue of 1 message, bit 3 a 512-byte `max_frame`, bit 4
//! `max_in_flight` 1, bit 5 `pipeline_results` 1, bit 6 a 64-byte `write_buffer_limit`.
//! The rest is what the client sends; it then reads until the server closes (its
//! idle timeout, or an error). Time is virtual (tokio's paused clock).
//!
//! Checked, when the bytes are in the RPC framing (the node framing has its own
//! target): the connection ends without a panic, and everything the server wrote is a
//! sequence of whole frames with nothing left over (one answer is never written inside
//! another), each a response (dir 2) with a status this server answers with and the
//! PromiseID of a request the client sent (or 0, for an envelope it could not read), or
//! a stream message or end (dirs 4, 5) of a stream id the client opened.

use std::collections::HashSet;
use std::sync::Arc;

use zap_runtime::frame::{detect, Direction, FrameDecoder, Framing};
use zap_runtime::rpc::Response;
use zap_runtime::server::{serve_stream, CancellationToken, ServerConfig};
use zap_runtime::stream::{StreamIo, Streaming};
use zap_runtime::{Builder, Bytes, CallError, Message, MethodInfo, Reply, Service};

/// Calls 1 (echo) and 2 (fails), streams 3 (server: sends as many messages as the
/// opening's first byte, at most 8), 4 (bidirectional echo), 5 (client: one answer
/// with the count at the end).
pub struct Streamer;

fn one_field(out: &mut Builder, bytes: &[u8]) -> Result<(), CallError> {
    let mut obj = out.start_object(8);
    obj.set_bytes(0, bytes);
    obj.finish_message()?;
    Ok(())
}

impl Service for Streamer {
    const NAME: &'static str = "Streamer";
    const METHODS: &'static [MethodInfo] = &[
        MethodInfo::new(1, "echo", Streaming::Unary),
        MethodInfo::new(2, "fail", Streaming::Unary),
        MethodInfo::new(3, "count", Streaming::Server),
        MethodInfo::new(4, "shout", Streaming::Bidi),
        MethodInfo::new(5, "gather", Streaming::Client),
    ];

    async fn call<'a>(
        &'a self,
        ordinal: u32,
        payload: &'a [u8],
        out: &'a mut Builder,
    ) -> Result<Reply, CallError> {
        match ordinal {
            1 => one_field(out, payload).map(|()| Reply::Message),
            2 => Err(CallError::internal("this method always fails")),
            n => Err(CallError::unknown_method(Self::NAME, n)),
        }
    }

    async fn stream(
        self: Arc<Self>,
        ordinal: u32,
        open: Bytes,
        mut io: StreamIo,
    ) -> Result<(), CallError> {
        let mut out = Builder::new();
        match ordinal {
            3 => {
                for i in 0..open.first().copied().unwrap_or(0).min(8) {
                    out.clear();
                    one_field(&mut out, &[i])?;
                    io.outbound.send(out.as_bytes()).await?;
                }
            }
            4 => {
                while let Some(message) = io.inbound.next().await? {
                    out.clear();
                    one_field(&mut out, &message)?;
                    io.outbound.send(out.as_bytes()).await?;
                }
            }
            5 => {
                let mut count = 0u8;
                while io.inbound.next().await?.is_some() {
                    count = count.wrapping_add(1);
                }
                one_field(&mut out, &[count])?;
                io.outbound.send(out.as_bytes()).await?;
            }
            n => return Err(CallError::unknown_method(Self::NAME, n)),
        }
        Ok(())
    }
}

/// The server's settings for control byte `control` (see the module docs).
pub fn config(control: u8) -> ServerConfig {
    let mut config = ServerConfig {
        max_streams: [100, 1, 2, 4][usize::from(control & 3)],
        ..ServerConfig::default()
    };
    if control & 4 != 0 {
        config.stream_queue = 1;
    }
    if control & 8 != 0 {
        config.max_frame = 512;
        config.max_stream_message = 256;
    }
    if control & 16 != 0 {
        config.max_in_flight = 1;
    }
    if control & 32 != 0 {
        config.pipeline_results = 1;
    }
    if control & 64 != 0 {
        config.write_buffer_limit = 64;
    }
    config
}

/// What the server writes back for `sent` on one connection.
pub fn exchange(config: ServerConfig, sent: &[u8]) -> Vec<u8> {
    // The client does not close its side (the server would end the streams at once):
    // the server closes when its idle timeout passes, at once on the paused clock, or
    // earlier on a framing error.
    crate::support::over_duplex(
        |server| serve_stream(Arc::new(Streamer), config, server, CancellationToken::new()),
        &[sent],
    )
}

/// The statuses a ZAP server answers with.
const STATUSES: [u32; 10] = [200, 400, 401, 403, 404, 408, 413, 500, 503, 504];

/// The PromiseIDs of the requests (dir 1) and the ids of the stream opens (dir 3) that
/// `sent` holds, as far as it decodes under `max_frame`.
fn sent_ids(sent: &[u8], max_frame: u32) -> (HashSet<u32>, HashSet<u32>) {
    let (mut calls, mut streams) = (HashSet::from([0]), HashSet::new());
    let mut decoder = FrameDecoder::new(max_frame);
    let mut at = 0;
    while let Ok(Some((frame, used))) = decoder.decode(&sent[at..]) {
        // What the server reads as the PromiseID when the envelope is malformed: the
        // u32 at byte 4 of the root object, if the message header reads.
        let id = Message::parse(frame.envelope).map_or(0, |m| m.root().u32(4));
        match frame.dir {
            Direction::Request => calls.insert(id),
            Direction::StreamOpen => streams.insert(id),
            _ => false,
        };
        at += used;
    }
    (calls, streams)
}

pub fn run(data: &[u8]) {
    let Some((&control, sent)) = data.split_first() else {
        return;
    };
    let config = config(control);
    let max_frame = config.max_frame;
    let answer = exchange(config, sent);
    if !matches!(detect(sent), Ok(Some(Framing::Rpc))) {
        return;
    }
    let (calls, streams) = sent_ids(sent, max_frame);
    let mut decoder = FrameDecoder::new(u32::MAX);
    let mut at = 0;
    while at < answer.len() {
        let (frame, used) = match decoder.decode(&answer[at..]) {
            Ok(Some(next)) => next,
            Ok(None) => panic!(
                "the server's output ends inside a frame: {} bytes left at {at}",
                answer.len() - at
            ),
            Err(e) => panic!("the server wrote a bad frame at {at}: {e}"),
        };
        match frame.dir {
            Direction::Response => {
                let response = Response::parse(frame.envelope)
                    .unwrap_or_else(|e| panic!("a response envelope that does not read: {e}"));
                assert!(
                    STATUSES.contains(&response.status.0),
                    "status {}",
                    response.status
                );
                assert!(
                    calls.contains(&response.promise_id),
                    "a response to PromiseID {} which no request carried",
                    response.promise_id
                );
            }
            Direction::StreamMessage | Direction::StreamEnd => {
                let (id, _) = frame
                    .stream_body()
                    .expect("a stream frame names its stream");
                assert!(
                    streams.contains(&id),
                    "a frame of stream {id}, never opened"
                );
            }
            other => panic!("the server wrote a frame of direction {other:?}"),
        }
        at += used;
    }
}

//! The `node_framing` target: the node transport's decoder and framing detection on an
//! arbitrary stream, as a server meets the first bytes of a connection.
//!
//! Input: byte 0 chooses where the stream is cut into reads (a seed) and whether the
//! decoder starts before or after the NodeID handshake (low bit); the rest is the
//! stream. Checked: nothing panics; decoding the stream read by read gives exactly the
//! frames and the error of decoding it in one piece; every call frame re-encodes to the
//! bytes it was decoded from; and detection never changes its mind as more bytes arrive
//! (once it has said RPC, node or refused, a longer prefix says the same).

use zap_runtime::frame::node::{
    encode_node_frame, Flag, NodeFrame, NodeFrameDecoder, NODE_DEFAULT_MAX_FRAME,
};
use zap_runtime::frame::{detect, DETECT_LEN};

use crate::seed_of;

/// The bytes a handshake frame takes: its length word and the 80-byte message.
pub const HANDSHAKE_BYTES: usize = 4 + zap_runtime::frame::node::HANDSHAKE_FRAME_LEN as usize;

/// What decoding produced, owned, with the bytes each frame took.
#[derive(Debug, PartialEq)]
enum Step {
    Handshake(String),
    Call(u32, Flag, Vec<u8>, usize),
    Error(String),
}

fn decoder(after_handshake: bool) -> NodeFrameDecoder {
    if after_handshake {
        NodeFrameDecoder::after_handshake(NODE_DEFAULT_MAX_FRAME)
    } else {
        NodeFrameDecoder::new(NODE_DEFAULT_MAX_FRAME)
    }
}

/// Decode `stream` arriving in reads that end at `ends`, as the connection loop does.
fn decode(mut dec: NodeFrameDecoder, stream: &[u8], ends: &[usize]) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut start = 0;
    for &end in ends {
        loop {
            match dec.decode(&stream[start..end]) {
                Ok(Some((frame, used))) => {
                    steps.push(match frame {
                        NodeFrame::Handshake(id) => Step::Handshake(id.to_string()),
                        NodeFrame::Call(c) => {
                            Step::Call(c.req_id, c.flag, c.envelope.to_vec(), used)
                        }
                    });
                    start += used;
                }
                Ok(None) => break,
                Err(e) => {
                    steps.push(Step::Error(e.to_string()));
                    return steps;
                }
            }
        }
    }
    steps
}

/// The body of the `node_framing` fuzz target.
pub fn run(data: &[u8]) {
    let Some((&control, stream)) = data.split_first() else {
        return;
    };
    let after_handshake = control & 1 == 1;
    let whole = decode(decoder(after_handshake), stream, &[stream.len()]);
    // Cut points from a seed of the input and the control byte.
    let mut seed = seed_of(data) ^ u64::from(control);
    let mut ends = Vec::new();
    let mut at = 0;
    while at < stream.len() {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        at = (at + 1 + (seed >> 59) as usize).min(stream.len());
        ends.push(at);
    }
    ends.push(stream.len());
    let pieces = decode(decoder(after_handshake), stream, &ends);
    assert_eq!(whole, pieces, "reads split differently decode differently");
    // Every call frame re-encodes to the bytes it was decoded from.
    let mut at = 0;
    for step in &whole {
        match step {
            Step::Call(req_id, flag, envelope, used) => {
                let mut again = Vec::new();
                encode_node_frame(&mut again, *req_id, *flag, envelope).expect("re-encode");
                assert_eq!(again[..], stream[at..at + used], "re-encoded call frame");
                at += used;
            }
            Step::Handshake(_) => at += crate::targets::node_framing::HANDSHAKE_BYTES,
            Step::Error(_) => break,
        }
    }
    // Detection is decided once and kept.
    let mut decided = None;
    for len in 0..=stream.len().min(DETECT_LEN + 8) {
        let verdict = detect(&stream[..len]).map_err(|e| e.to_string());
        match (&decided, verdict) {
            (None, Ok(None)) => {}
            (None, v) => decided = Some(v),
            (Some(d), v) => assert_eq!(d, &v, "detection changed its mind at {len} bytes"),
        }
    }
}

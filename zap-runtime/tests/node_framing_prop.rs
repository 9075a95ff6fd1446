//! Property tests of the node transport's decoder and of framing detection, the
//! network-facing parts added with the node transport (the cargo-fuzz targets cover
//! the RPC framing; these cover the node framing the same way): on any bytes, split
//! anywhere, nothing panics, and the frames and the error come out the same as when the
//! bytes arrive in one piece; valid streams round-trip whatever their split.

use proptest::prelude::*;
use zap_runtime::frame::node::{
    encode_handshake, encode_node_frame, Flag, NodeFrame, NodeFrameDecoder, NodeFrameError, NodeId,
};
use zap_runtime::frame::{detect, Framing, DETECT_LEN};

/// What decoding produced, owned.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Handshake(String),
    Call(u32, Flag, Vec<u8>),
    Error(NodeFrameError),
}

fn own(frame: NodeFrame<'_>) -> Step {
    match frame {
        NodeFrame::Handshake(id) => Step::Handshake(id.to_string()),
        NodeFrame::Call(c) => Step::Call(c.req_id, c.flag, c.envelope.to_vec()),
    }
}

/// Decode `bytes` arriving in pieces cut at `cuts` (sorted offsets), the way the
/// connection loop does: decode whatever is whole after every arrival.
fn decode_in_pieces(mut dec: NodeFrameDecoder, bytes: &[u8], cuts: &[usize]) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut start = 0;
    let ends = cuts.iter().copied().chain([bytes.len()]);
    for end in ends {
        loop {
            match dec.decode(&bytes[start..end]) {
                Ok(Some((frame, used))) => {
                    steps.push(own(frame));
                    start += used;
                }
                Ok(None) => break,
                Err(e) => {
                    steps.push(Step::Error(e));
                    return steps;
                }
            }
        }
    }
    steps
}

fn cuts(len: usize, raw: Vec<usize>) -> Vec<usize> {
    let mut cuts: Vec<usize> = raw.into_iter().map(|c| c % (len + 1)).collect();
    cuts.sort_unstable();
    cuts
}

fn decoder(after_handshake: bool, max: u32) -> NodeFrameDecoder {
    if after_handshake {
        NodeFrameDecoder::after_handshake(max)
    } else {
        NodeFrameDecoder::new(max)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Any bytes, split anywhere: no panic, and the same steps as in one piece.
    #[test]
    fn any_bytes_any_split_same_steps(
        bytes in proptest::collection::vec(any::<u8>(), 0..300),
        raw_cuts in proptest::collection::vec(any::<usize>(), 0..8),
        after_handshake in any::<bool>(),
        max in prop_oneof![Just(0u32), Just(8), 0u32..400, Just(u32::MAX)],
    ) {
        let whole = decode_in_pieces(decoder(after_handshake, max), &bytes, &[]);
        let cuts = cuts(bytes.len(), raw_cuts);
        let pieces = decode_in_pieces(decoder(after_handshake, max), &bytes, &cuts);
        prop_assert_eq!(whole, pieces);
    }

    /// Node-looking bytes (a handshake, then frames with random words) exercise the
    /// paths past the first length word.
    #[test]
    fn mutated_node_streams_any_split_same_steps(
        frames in proptest::collection::vec(
            (any::<u32>(), 0u32..4, proptest::collection::vec(any::<u8>(), 0..40)), 0..6),
        flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..4),
        raw_cuts in proptest::collection::vec(any::<usize>(), 0..8),
    ) {
        let mut bytes = Vec::new();
        encode_handshake(&mut bytes, &NodeId::new("prop").unwrap());
        for (req_id, flag, envelope) in &frames {
            encode_node_frame(&mut bytes, *req_id, Flag::Request, envelope).unwrap();
            let at = bytes.len() - envelope.len() - 4;
            bytes[at..at + 4].copy_from_slice(&flag.to_le_bytes());
        }
        for (at, byte) in flips {
            let at = at % bytes.len();
            bytes[at] ^= byte;
        }
        let whole = decode_in_pieces(NodeFrameDecoder::new(1 << 10), &bytes, &[]);
        let cuts = cuts(bytes.len(), raw_cuts);
        let pieces = decode_in_pieces(NodeFrameDecoder::new(1 << 10), &bytes, &cuts);
        prop_assert_eq!(whole, pieces);
    }

    /// A valid stream decodes to what was encoded, whatever its split.
    #[test]
    fn valid_streams_round_trip(
        id in "[a-z0-9-]{1,60}",
        frames in proptest::collection::vec(
            (any::<u32>(), any::<bool>(), proptest::collection::vec(any::<u8>(), 0..64)), 0..8),
        raw_cuts in proptest::collection::vec(any::<usize>(), 0..10),
    ) {
        let mut bytes = Vec::new();
        encode_handshake(&mut bytes, &NodeId::new(&id).unwrap());
        let mut want = vec![Step::Handshake(id.clone())];
        for (req_id, request, envelope) in frames {
            let flag = if request { Flag::Request } else { Flag::Response };
            encode_node_frame(&mut bytes, req_id, flag, &envelope).unwrap();
            want.push(Step::Call(req_id, flag, envelope));
        }
        let cuts = cuts(bytes.len(), raw_cuts);
        prop_assert_eq!(decode_in_pieces(NodeFrameDecoder::default(), &bytes, &cuts), want);
        prop_assert_eq!(detect(&bytes), Ok(Some(Framing::Node)));
    }

    /// Detection never panics, needs at most 5 bytes, and never changes its mind as more
    /// bytes arrive.
    #[test]
    fn detection_is_decided_once(bytes in proptest::collection::vec(any::<u8>(), 0..12)) {
        let full = detect(&bytes);
        if bytes.len() >= DETECT_LEN {
            prop_assert!(!matches!(full, Ok(None)));
        }
        for k in 0..bytes.len() {
            match detect(&bytes[..k]) {
                Ok(None) => {}
                decided => prop_assert_eq!(decided, full),
            }
        }
    }
}

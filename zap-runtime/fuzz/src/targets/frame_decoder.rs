//! The TCP frame decoder on an arbitrary stream delivered in chunks.
//!
//! Input: byte 0 chooses the chunking pattern (low 3 bits) and the maximum frame length
//! (high bits); the rest is the stream. The stream is appended to a read buffer chunk by
//! chunk; after each chunk the decoder runs until `None`/`Err` and consumed bytes are
//! drained, as a connection loop would. Every step is compared with the spec §6 model,
//! the chunked run must equal a single-read run, and the decoded frames re-encoded with
//! `encode_frame` must equal the consumed bytes.

use crate::{is_view_of, model_frame_step, seed_of, Step};
use zap_runtime::frame::{encode_frame, Direction, FrameDecoder, DEFAULT_MAX_FRAME, FRAME_HEADER};
use zap_runtime::FrameError;

const MAXES: [u32; 8] = [DEFAULT_MAX_FRAME, 0, 1, 2, 16, 300, u32::MAX - 4, u32::MAX];

/// Chunk lengths for a stream of `len` bytes, per pattern.
fn chunks(pattern: u8, stream: &[u8]) -> Vec<usize> {
    let len = stream.len();
    let mut out = Vec::new();
    let mut seed = seed_of(stream);
    let mut rest = len;
    while rest > 0 {
        let n = match pattern {
            0 => rest, // one read
            1 => 1,    // byte by byte
            2 => 4,    // exactly a length word at a time
            3 => 5,    // a frame header at a time
            4 => 3,    // never aligned with anything
            5 => {
                // pseudo-random 1..=16
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                1 + (seed >> 60) as usize
            }
            6 => {
                if out.len() % 2 == 0 {
                    1
                } else {
                    7
                }
            }
            _ => rest.div_ceil(2).max(1), // halves
        };
        let n = n.min(rest);
        out.push(n);
        rest -= n;
    }
    out
}

type Outcome = (Vec<(u8, Vec<u8>)>, usize, Result<usize, FrameError>);

/// Decode `stream` fed in `sizes` chunks. Returns the frames, the bytes consumed, and the
/// end: the error, or the bytes left in the read buffer.
fn decode_stream(max: u32, stream: &[u8], sizes: &[usize]) -> Outcome {
    let mut dec = FrameDecoder::new(max);
    let mut rbuf: Vec<u8> = Vec::new();
    let mut frames = Vec::new();
    let mut consumed = 0usize;
    let mut at = 0;
    for &n in sizes {
        rbuf.extend_from_slice(&stream[at..at + n]);
        at += n;
        loop {
            let want = model_frame_step(&rbuf, max);
            match dec.decode(&rbuf) {
                Ok(None) => {
                    assert_eq!(want, Step::Need);
                    break;
                }
                Ok(Some((frame, used))) => {
                    assert_eq!(
                        want,
                        Step::Frame {
                            dir: frame.dir as u8,
                            envelope_len: frame.envelope.len()
                        }
                    );
                    assert_eq!(used, FRAME_HEADER + frame.envelope.len());
                    assert!(used <= rbuf.len());
                    assert!(is_view_of(&rbuf, frame.envelope, &(FRAME_HEADER..used)));
                    frames.push((frame.dir as u8, frame.envelope.to_vec()));
                    rbuf.drain(..used);
                    consumed += used;
                }
                Err(e) => {
                    let (step, offset) = match e {
                        FrameError::Empty { offset } => (Step::Empty, offset),
                        FrameError::TooLarge {
                            offset,
                            len,
                            max: m,
                        } => {
                            assert!(m == max && len > m);
                            (Step::TooLarge, offset)
                        }
                        FrameError::UnknownDirection { offset, dir } => {
                            assert!(Direction::from_byte(dir).is_none());
                            (Step::BadDir, offset)
                        }
                        FrameError::EnvelopeTooLarge { .. } => panic!("decoder returned {e}"),
                    };
                    assert_eq!(want, step);
                    assert_eq!(offset, consumed as u64);
                    return (frames, consumed, Err(e));
                }
            }
        }
    }
    assert_eq!(at, stream.len());
    (frames, consumed, Ok(rbuf.len()))
}

/// The body of the `frame_decoder` fuzz target.
pub fn run(data: &[u8]) {
    let Some((&control, stream)) = data.split_first() else {
        return;
    };
    let max = MAXES[(control >> 5) as usize];
    let sizes = chunks(control & 7, stream);
    assert_eq!(sizes.iter().sum::<usize>(), stream.len());

    let chunked = decode_stream(max, stream, &sizes);
    let whole = decode_stream(max, stream, &[stream.len()]);
    assert_eq!(chunked, whole, "chunking changed the outcome");

    let (frames, consumed, end) = chunked;
    if let Ok(left) = end {
        assert_eq!(consumed + left, stream.len());
    }
    let mut again = Vec::with_capacity(consumed);
    for (dir, env) in &frames {
        encode_frame(&mut again, Direction::from_byte(*dir).unwrap(), env).unwrap();
    }
    assert_eq!(
        &again[..],
        &stream[..consumed],
        "re-encoding differs from the stream"
    );
}

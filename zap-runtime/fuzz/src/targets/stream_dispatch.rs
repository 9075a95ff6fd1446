//! A connection's byte stream, split at random points, decoded and answered the way the
//! server does, through a real generated `Service` (`StoreService` of
//! `schemas/service.zap` over the `EchoStore` handler).
//!
//! Input: byte 0 picks the maximum frame length (top 2 bits) and the largest chunk
//! (low 3 bits: chunks of 1..=2^k bytes at pseudo-random split points); the rest is the
//! stream. After each chunk every complete frame is decoded. A request frame is
//! answered like the server answers it: a malformed envelope or PromiseID 0 gets 400, a
//! `Target` runs on the result of an earlier call of this stream (400 when there is
//! none), anything else goes through `Service::call`, whose status and answer must be
//! what the handler and the generated dispatch predict (200/400/404/500). Each answer is
//! framed as a response, decoded back by a client-side decoder and must carry the same
//! status, PromiseID and body. A frame that is not a request, or a framing error, ends
//! the connection, as on the server.

use std::collections::HashMap;

use crate::schemas::service::{Answer, StoreService};
use crate::seed_of;
use crate::support::{block_on, expected_store, EchoStore};
use zap_runtime::frame::{encode_frame, Direction, FrameDecoder, DEFAULT_MAX_FRAME};
use zap_runtime::rpc::{Request, Response, Status, NO_TARGET};
use zap_runtime::{Builder, Message, Reply, Service, ZapStruct};

const MAXES: [u32; 4] = [DEFAULT_MAX_FRAME, 64, 300, 4096];

/// One answer, as the server would send it.
struct Answered {
    status: Status,
    promise_id: u32,
    body: Vec<u8>,
}

fn dispatch(
    service: &StoreService<EchoStore>,
    envelope: &[u8],
    results: &mut HashMap<u32, Option<Vec<u8>>>,
    out: &mut Builder,
) -> Answered {
    let bad = |promise_id, text: &str| Answered {
        status: Status::BAD_REQUEST,
        promise_id,
        body: text.as_bytes().to_vec(),
    };
    let req = match Request::parse(envelope) {
        Ok(req) => req,
        Err(e) => {
            let id = Message::parse(envelope).map_or(0, |m| m.root().u32(4));
            return bad(id, &e.to_string());
        }
    };
    if req.promise_id == 0 {
        return bad(0, "PromiseID 0");
    }
    let earlier;
    let payload = if req.target == NO_TARGET {
        req.payload
    } else {
        match results.get(&req.target) {
            Some(Some(body)) => {
                earlier = body.clone();
                &earlier[..]
            }
            _ => {
                results.insert(req.promise_id, None);
                return bad(req.promise_id, "unknown target");
            }
        }
    };
    out.clear();
    let (want_status, want_answer) = expected_store(req.method, payload);
    let (status, body) = match block_on(service.call(req.method, payload, out)) {
        Ok(Reply::Message) => (Status::OK, out.as_bytes().to_vec()),
        Ok(Reply::Empty) => (Status::OK, Vec::new()),
        Err(e) => (e.status, e.message.as_bytes().to_vec()),
    };
    assert_eq!(status.0, want_status, "method {} status", req.method);
    match want_answer {
        Some(want) => assert_eq!(Answer::decode(&body).expect("an Answer message"), want),
        None if status == Status::OK => assert!(body.is_empty(), "an empty reply"),
        None => assert!(!body.is_empty(), "an error has a text"),
    }
    results.insert(req.promise_id, (status == Status::OK).then(|| body.clone()));
    Answered {
        status,
        promise_id: req.promise_id,
        body,
    }
}

/// The body of the `stream_dispatch` fuzz target.
pub fn run(data: &[u8]) {
    let Some((&control, stream)) = data.split_first() else {
        return;
    };
    let max = MAXES[usize::from(control >> 6)];
    let largest = 1usize << (control & 7);
    let service = StoreService::new(EchoStore);
    let mut decoder = FrameDecoder::new(max);
    let mut client = FrameDecoder::new(DEFAULT_MAX_FRAME);
    let (mut rbuf, mut wbuf) = (Vec::new(), Vec::new());
    let mut results = HashMap::new();
    let mut out = Builder::new();
    let mut b = Builder::new();
    let mut seed = seed_of(stream) ^ u64::from(control);
    let mut at = 0;
    'conn: while at < stream.len() {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let n = (1 + (seed >> 33) as usize % largest).min(stream.len() - at);
        rbuf.extend_from_slice(&stream[at..at + n]);
        at += n;
        let mut pos = 0;
        loop {
            let (frame, used) = match decoder.decode(&rbuf[pos..]) {
                Ok(Some(decoded)) => decoded,
                Ok(None) => break,
                Err(_) => break 'conn, // the server closes the connection
            };
            if frame.dir != Direction::Request {
                break 'conn;
            }
            let answer = dispatch(&service, frame.envelope, &mut results, &mut out);
            pos += used;

            // Frame the answer as the server does and read it back as a client.
            wbuf.clear();
            let env = Response {
                status: answer.status,
                promise_id: answer.promise_id,
                body: &answer.body,
            }
            .encode(&mut b);
            encode_frame(&mut wbuf, Direction::Response, env.unwrap())
                .expect("an answer fits a frame");
            let (frame, used) = client
                .decode(&wbuf)
                .expect("a framed answer decodes")
                .expect("a whole frame");
            assert_eq!((frame.dir, used), (Direction::Response, wbuf.len()));
            let resp = Response::parse(frame.envelope).expect("an answer parses");
            assert_eq!(
                (resp.status, resp.promise_id, resp.body),
                (answer.status, answer.promise_id, &answer.body[..])
            );
        }
        rbuf.drain(..pos);
    }
}

//! ZAP/TCP: raw frames, written and read here (no client library in the way), in either
//! framing: `[len u32][dir u8][envelope]` (RPC transport), or after a NodeID handshake
//! `[len u32][reqID u32][flag u32][envelope]` (node transport, reqID = PromiseID).
//! Request frames are built once per ledger account; each send patches the PromiseID
//! (and reqID) and the request's `Id` in place.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use zap_runtime::frame::node::{
    encode_handshake, encode_node_frame, Flag, NodeFrame, NodeFrameDecoder, NodeId,
    NODE_FRAME_HEADER,
};
use zap_runtime::frame::{encode_frame, Direction, FrameDecoder, Framing};
use zap_runtime::rpc::{Request, Response, Status, NO_TARGET};
use zap_runtime::Builder;

use super::{expected, write_then_read, Clock, ConnStats, Expected, LoadConfig, Target, BLOCK};
use crate::generated::eth::{BalanceRequestBuilder, BalanceResponseReader};

/// The method ordinal of `getBalance`.
const GET_BALANCE: u32 = 1;

/// A request frame for one account, and where to patch it.
struct Template {
    frame: Vec<u8>,
    /// Offset of the envelope's PromiseID in `frame`.
    promise_at: usize,
    /// Offset of the payload's `Id` in `frame`.
    id_at: usize,
    /// Offset of the node frame's reqID in `frame` (node transport).
    req_at: Option<usize>,
    /// The account asked about (what an echo must carry back).
    account: [u8; 20],
    expected: Expected,
}

/// The call context `Target::ZapContext` sends after every envelope.
fn context_extension() -> Vec<u8> {
    use zap_runtime::context::{write_extension, Metadata};
    let mut metadata = Metadata::new();
    for (key, value) in [
        ("request-id", "0f8e2c1a-7d3b"),
        ("tenant", "acme"),
        ("trace", "00-4bf92f35"),
    ] {
        metadata
            .insert(key, value.as_bytes().to_vec())
            .expect("a valid pair");
    }
    let mut out = Vec::new();
    write_extension(&mut out, Some(Duration::from_secs(60)), &metadata);
    out
}

/// The call context `Target::ZapTraced` sends after every envelope: a W3C
/// `traceparent`, what a call inside a trace carries.
fn trace_extension() -> Vec<u8> {
    use zap_runtime::context::{write_extension, Metadata};
    let mut metadata = Metadata::new();
    metadata
        .insert(
            zap_runtime::trace::TRACEPARENT,
            &b"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"[..],
        )
        .expect("a valid pair");
    let mut out = Vec::new();
    write_extension(&mut out, None, &metadata);
    out
}

/// The call context extension `target` sends after every envelope, if any.
fn extension_of(target: Target) -> Option<Vec<u8>> {
    match target {
        Target::ZapContext => Some(context_extension()),
        Target::ZapTraced => Some(trace_extension()),
        _ => None,
    }
}

fn template(
    account: &[u8; 20],
    expected: Expected,
    framing: Framing,
    context: Option<&[u8]>,
) -> Result<Template, String> {
    let mut b = Builder::new();
    let mut req = BalanceRequestBuilder::new(&mut b);
    req.set_id(0).set_block(BLOCK).set_account(account);
    let payload = req.finish_message().map_err(|e| e.to_string())?.to_vec();
    let mut env = Builder::new();
    let envelope = Request {
        method: GET_BALANCE,
        promise_id: 1,
        target: NO_TARGET,
        cap: &[],
        payload: &payload,
    }
    .encode(&mut env)
    .map_err(|e| e.to_string())?;
    let parsed = Request::parse(envelope).map_err(|e| e.to_string())?;
    let mut with_context = envelope.to_vec();
    if let Some(extension) = context {
        with_context.extend_from_slice(extension);
    }
    // Byte offsets from the positions of the parsed views inside the envelope.
    let payload_at = parsed.payload.as_ptr() as usize - envelope.as_ptr() as usize;
    let root = |msg: &[u8]| u32::from_le_bytes([msg[8], msg[9], msg[10], msg[11]]) as usize;
    let mut frame = Vec::new();
    let (header, req_at) = match framing {
        Framing::Rpc => {
            encode_frame(&mut frame, Direction::Request, &with_context)
                .map_err(|e| e.to_string())?;
            (zap_runtime::frame::FRAME_HEADER, None)
        }
        Framing::Node => {
            encode_node_frame(&mut frame, 1, Flag::Request, &with_context)
                .map_err(|e| e.to_string())?;
            (NODE_FRAME_HEADER, Some(4))
        }
    };
    let promise_at = header + root(envelope) + zap_runtime::rpc::request::PROMISE_ID;
    let id_at = header + payload_at + root(&payload);
    Ok(Template {
        frame,
        promise_at,
        id_at,
        req_at,
        account: *account,
        expected,
    })
}

fn templates(
    ledger: &eth_rpc::ledger::Ledger,
    framing: Framing,
    context: Option<&[u8]>,
) -> Result<Vec<Template>, String> {
    (0..ledger.len())
        .map(|i| {
            let (address, want) = expected(ledger, i);
            template(&address, want, framing, context)
        })
        .collect()
}

/// The decoder of the connection's framing.
enum Decoder {
    Rpc(FrameDecoder),
    Node(NodeFrameDecoder),
}

/// One decoded frame: its direction (a node response counts as `Response`), its reqID
/// (node transport), its envelope and its length.
type Decoded<'a> = (Direction, Option<u32>, &'a [u8], usize);

impl Decoder {
    fn decode<'a>(&mut self, buf: &'a [u8]) -> Result<Option<Decoded<'a>>, String> {
        match self {
            Decoder::Rpc(d) => Ok(d
                .decode(buf)
                .map_err(|e| e.to_string())?
                .map(|(f, used)| (f.dir, None, f.envelope, used))),
            Decoder::Node(d) => match d.decode(buf).map_err(|e| e.to_string())? {
                None => Ok(None),
                Some((NodeFrame::Handshake(id), _)) => {
                    Err(format!("server sent a second handshake ({id})"))
                }
                Some((NodeFrame::Call(c), used)) => {
                    let dir = match c.flag {
                        Flag::Request => Direction::Request,
                        Flag::Response => Direction::Response,
                    };
                    Ok(Some((dir, Some(c.req_id), c.envelope, used)))
                }
            },
        }
    }
}

/// Send our NodeID handshake and read the server's; what was read past it stays in
/// `read`.
async fn node_handshake<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    decoder: &mut NodeFrameDecoder,
    read: &mut Vec<u8>,
    config: &LoadConfig,
) -> Result<(), String> {
    let mut hello = Vec::new();
    encode_handshake(&mut hello, &NodeId::from_static("loadgen"));
    stream
        .write_all(&hello)
        .await
        .map_err(|e| format!("write handshake: {e}"))?;
    loop {
        match decoder.decode(read).map_err(|e| e.to_string())? {
            Some((NodeFrame::Handshake(_), used)) => {
                read.drain(..used);
                return Ok(());
            }
            Some((NodeFrame::Call(_), _)) => return Err("a frame before the handshake".into()),
            None => {}
        }
        read.reserve(4096);
        let n = tokio::time::timeout(config.stall_timeout, stream.read_buf(read))
            .await
            .map_err(|_| format!("no handshake within {:?}", config.stall_timeout))?
            .map_err(|e| format!("read: {e}"))?;
        if n == 0 {
            return Err("server closed the connection during the handshake".into());
        }
    }
}

/// A request in flight.
struct Sent {
    promise: u32,
    id: u64,
    account: usize,
    at: Instant,
}

pub(super) async fn drive<S: AsyncRead + AsyncWrite + Unpin>(
    mut stream: S,
    config: &LoadConfig,
    clock: &Clock,
    ledger: &eth_rpc::ledger::Ledger,
    first_id: u64,
) -> Result<ConnStats, String> {
    let framing = match config.target {
        Target::ZapNode => Framing::Node,
        _ => Framing::Rpc,
    };
    let extension = extension_of(config.target);
    let mut templates = templates(ledger, framing, extension.as_deref())?;
    let mut stats = ConnStats::default();
    let mut inflight: VecDeque<Sent> = VecDeque::with_capacity(config.depth);
    let mut write = Vec::with_capacity(config.depth * 128);
    let mut read = Vec::with_capacity(64 << 10);
    let mut decoder = match framing {
        Framing::Rpc => Decoder::Rpc(FrameDecoder::default()),
        Framing::Node => {
            let mut node = NodeFrameDecoder::default();
            node_handshake(&mut stream, &mut node, &mut read, config).await?;
            Decoder::Node(node)
        }
    };
    let mut next_promise: u32 = 1;
    let mut next_id = first_id;
    let mut sending = true;
    loop {
        let now = Instant::now();
        while sending && inflight.len() < config.depth {
            if !clock.take(now) {
                sending = false;
                break;
            }
            let account = (next_id as usize) % templates.len();
            let t = &mut templates[account];
            t.frame[t.promise_at..t.promise_at + 4].copy_from_slice(&next_promise.to_le_bytes());
            t.frame[t.id_at..t.id_at + 8].copy_from_slice(&next_id.to_le_bytes());
            if let Some(at) = t.req_at {
                t.frame[at..at + 4].copy_from_slice(&next_promise.to_le_bytes());
            }
            write.extend_from_slice(&t.frame);
            inflight.push_back(Sent {
                promise: next_promise,
                id: next_id,
                account,
                at: now,
            });
            next_promise = next_promise.checked_add(1).unwrap_or(1);
            next_id += 1;
        }
        if inflight.is_empty() {
            // Nothing in flight and nothing more to send: the run is over for this
            // connection (a request is always sent before it can be in flight).
            return Ok(stats);
        }
        write_then_read(
            &mut stream,
            &mut write,
            &mut read,
            inflight.len(),
            config.stall_timeout,
        )
        .await?;
        let done = Instant::now();
        let mut pos = 0;
        while let Some((dir, req_id, envelope, used)) = decoder.decode(&read[pos..])? {
            let sent = check(config.target, dir, envelope, &mut inflight, &templates)?;
            if req_id.is_some_and(|id| id != sent.promise) {
                return Err(format!(
                    "answer with PromiseID {} carries reqID {req_id:?}",
                    sent.promise
                ));
            }
            stats.answered_at(clock, sent.at, done);
            pos += used;
        }
        read.drain(..pos);
    }
}

/// Check one answer against the requests in flight; returns the request it answers.
fn check(
    target: Target,
    dir: Direction,
    envelope: &[u8],
    inflight: &mut VecDeque<Sent>,
    templates: &[Template],
) -> Result<Sent, String> {
    let (promise, body) = if target == Target::ZapEcho {
        if dir != Direction::Request {
            return Err(format!("echo answered a {dir:?} frame"));
        }
        let req = Request::parse(envelope).map_err(|e| format!("echoed envelope: {e}"))?;
        (req.promise_id, req.payload)
    } else {
        if dir != Direction::Response {
            return Err(format!("server answered a {dir:?} frame"));
        }
        let resp = Response::parse(envelope).map_err(|e| format!("response envelope: {e}"))?;
        if resp.status != Status::OK {
            return Err(format!(
                "promise {}: status {}: {}",
                resp.promise_id,
                resp.status,
                resp.body_text()
            ));
        }
        (resp.promise_id, resp.body)
    };
    // Answers come in order; look further only if one is out of order.
    let at = inflight
        .iter()
        .position(|s| s.promise == promise)
        .ok_or_else(|| format!("answer for PromiseID {promise}, which is not in flight"))?;
    let sent = inflight.remove(at).unwrap_or_else(|| unreachable!());
    if matches!(target, Target::ZapEcho | Target::ZapRpcEcho) {
        // The request itself: its id, block and account (a balance answer, whose first
        // field is also the id, is no echo).
        let echo = crate::generated::eth::BalanceRequestReader::parse(body)
            .map_err(|e| format!("echoed payload: {e}"))?;
        let account = templates[sent.account].account;
        if (echo.id(), echo.block(), echo.account()) != (sent.id, BLOCK, &account) {
            return Err(format!(
                "echo of request {} carries id {}, block {}",
                sent.id,
                echo.id(),
                echo.block()
            ));
        }
        return Ok(sent);
    }
    let r = BalanceResponseReader::parse(body).map_err(|e| format!("response body: {e}"))?;
    let want = templates[sent.account].expected;
    let got = (r.id(), r.balance(), r.nonce());
    if got != (sent.id, want.balance, want.nonce) {
        return Err(format!(
            "promise {promise}: got (id, balance, nonce) {got:?}, want {:?}",
            (sent.id, want.balance, want.nonce)
        ));
    }
    Ok(sent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patched_template_parses_to_the_patched_values() {
        let ledger = eth_rpc::ledger::Ledger::default();
        let (address, want) = expected(&ledger, 3);
        let mut t = template(&address, want, Framing::Rpc, None).unwrap();
        t.frame[t.promise_at..t.promise_at + 4].copy_from_slice(&77u32.to_le_bytes());
        t.frame[t.id_at..t.id_at + 8].copy_from_slice(&12345u64.to_le_bytes());
        let (frame, used) = FrameDecoder::default().decode(&t.frame).unwrap().unwrap();
        assert_eq!(used, t.frame.len());
        let req = Request::parse(frame.envelope).unwrap();
        assert_eq!((req.method, req.promise_id, req.target), (1, 77, 0));
        let body = crate::generated::eth::BalanceRequestReader::parse(req.payload).unwrap();
        assert_eq!(
            (body.id(), body.block(), body.account()),
            (12345, BLOCK, &address)
        );
    }

    #[test]
    fn patched_node_template_parses_to_the_patched_values() {
        let ledger = eth_rpc::ledger::Ledger::default();
        let (address, want) = expected(&ledger, 5);
        let mut t = template(&address, want, Framing::Node, None).unwrap();
        let at = t.req_at.unwrap();
        t.frame[at..at + 4].copy_from_slice(&77u32.to_le_bytes());
        t.frame[t.promise_at..t.promise_at + 4].copy_from_slice(&77u32.to_le_bytes());
        t.frame[t.id_at..t.id_at + 8].copy_from_slice(&12345u64.to_le_bytes());
        let (frame, used) = NodeFrameDecoder::after_handshake(1 << 20)
            .decode(&t.frame)
            .unwrap()
            .unwrap();
        assert_eq!(used, t.frame.len());
        let NodeFrame::Call(call) = frame else {
            panic!("not a call: {frame:?}")
        };
        assert_eq!((call.req_id, call.flag), (77, Flag::Request));
        let req = Request::parse(call.envelope).unwrap();
        assert_eq!((req.method, req.promise_id, req.target), (1, 77, 0));
        let body = crate::generated::eth::BalanceRequestReader::parse(req.payload).unwrap();
        assert_eq!((body.id(), body.account()), (12345, &address));
    }

    #[test]
    fn context_template_carries_its_extension_after_the_envelope() {
        let ledger = eth_rpc::ledger::Ledger::default();
        let (address, want) = expected(&ledger, 2);
        let extension = extension_of(Target::ZapContext).unwrap();
        let mut t = template(&address, want, Framing::Rpc, Some(&extension)).unwrap();
        t.frame[t.promise_at..t.promise_at + 4].copy_from_slice(&9u32.to_le_bytes());
        let (frame, used) = FrameDecoder::default().decode(&t.frame).unwrap().unwrap();
        assert_eq!(used, t.frame.len());
        let req = Request::parse(frame.envelope).unwrap();
        assert_eq!((req.method, req.promise_id), (1, 9));
        let size = u32::from_le_bytes(frame.envelope[12..16].try_into().unwrap()) as usize;
        let extension = zap_runtime::context::Extension::parse(&frame.envelope[size..]).unwrap();
        assert_eq!(extension.budget(), Some(Duration::from_secs(60)));
        assert_eq!(extension.len(), 3);
    }
}

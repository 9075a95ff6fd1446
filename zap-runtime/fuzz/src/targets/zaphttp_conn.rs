//! The `zaphttp_conn` target: the zaphttp codec on every frame of the input, and the
//! zaphttp server's whole connection path (`zap_runtime::zaphttp::serve_stream`) on the
//! bytes a client sends on one connection, with a service that echoes what it got and
//! streams an answer when asked.
//!
//! Input: byte 0 picks the server's settings: bit 0 a 512-byte `max_frame`, bit 1 a
//! service that fails on `/fail` (a panic is not fuzzed: libFuzzer aborts at any panic,
//! even one the server catches; the integration tests answer one with 500). The rest is what the client sends; it then reads
//! until the server closes (its idle timeout, or a refusal). Time is virtual (tokio's
//! paused clock).
//!
//! Checked: parsing never panics, and a frame that parses is written again by the
//! encoder into one that parses to the same fields; the connection ends without a
//! panic; everything the server wrote is a sequence of whole, valid frames (one answer
//! is never written inside another): whole responses, or a head, data frames and an
//! end; never more answers than the requests sent; an answer to a request that parsed
//! and whose fields HTTP accepts echoes its method, target and body, and a refusal is a
//! 400 that ends the connection.

use std::convert::Infallible;
use std::time::Duration;

use http_body_util::BodyExt;
use zap_runtime::zaphttp::codec::{self, Encoder, Frame, FrameKind, Pairs};
use zap_runtime::zaphttp::{serve_stream, Body, ServerConfig};

/// Each length-prefixed frame at the start of `bytes` (stops at the first that is
/// incomplete).
pub fn frames(mut bytes: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    while bytes.len() >= 4 {
        let len = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
        let Some(frame) = bytes.get(4..4 + len) else {
            break;
        };
        out.push(frame);
        bytes = &bytes[4 + len..];
    }
    out
}

fn pairs(p: Pairs<'_>) -> Vec<(Vec<u8>, Vec<u8>)> {
    p.iter().map(|(k, v)| (k.to_vec(), v.to_vec())).collect()
}

/// Write `frame`'s fields again with the encoder and check they read back the same.
fn reencode(frame: &Frame<'_>) {
    let mut out = Vec::new();
    match frame {
        Frame::Request(r) => {
            let mut e = Encoder::begin(&mut out, FrameKind::Request);
            e.bytes(codec::request::METHOD, r.method)
                .bytes(codec::request::TARGET, r.target)
                .bytes(codec::request::PROTO, r.proto)
                .pairs(codec::request::HEADERS, r.headers, false)
                .bytes(codec::request::BODY, r.body)
                .pairs(codec::request::TRAILER, r.trailer, false);
            e.finish();
        }
        Frame::Response(r) | Frame::ResponseHead(r) => {
            let mut e = Encoder::begin(&mut out, frame.kind());
            e.status(r.status)
                .bytes(codec::response::REASON, r.reason)
                .bytes(codec::response::PROTO, r.proto)
                .pairs(codec::response::HEADERS, r.headers, false)
                .bytes(codec::response::BODY, r.body)
                .pairs(codec::response::TRAILER, r.trailer, false);
            e.finish();
        }
        Frame::Data(chunk) => {
            let mut e = Encoder::begin(&mut out, FrameKind::Data);
            e.bytes(0, chunk);
            e.finish();
        }
        Frame::End(trailer) => {
            let mut e = Encoder::begin(&mut out, FrameKind::End);
            e.pairs(0, *trailer, false);
            e.finish();
        }
    }
    let again = Frame::parse(&out[4..]).expect("what the encoder writes parses");
    let same = match (frame, &again) {
        (Frame::Request(a), Frame::Request(b)) => {
            (a.method, a.target, a.proto, a.body) == (b.method, b.target, b.proto, b.body)
                && pairs(a.headers) == pairs(b.headers)
                && pairs(a.trailer) == pairs(b.trailer)
        }
        (Frame::Response(a), Frame::Response(b))
        | (Frame::ResponseHead(a), Frame::ResponseHead(b)) => {
            (a.status, a.reason, a.proto, a.body) == (b.status, b.reason, b.proto, b.body)
                && pairs(a.headers) == pairs(b.headers)
                && pairs(a.trailer) == pairs(b.trailer)
        }
        (Frame::Data(a), Frame::Data(b)) => a == b,
        (Frame::End(a), Frame::End(b)) => pairs(*a) == pairs(*b),
        _ => false,
    };
    assert!(same, "re-encoded {frame:?} reads back as {again:?}");
}

/// The echo service: `/stream` streams its body back in two chunks; `/fail` fails when
/// `fails`; anything else answers `METHOD TARGET` in a header and the body.
fn service(
    fails: bool,
) -> impl zap_runtime::zaphttp::HttpService<http_body_util::combinators::BoxBody<bytes::Bytes, Infallible>>
{
    tower::service_fn(move |request: http::Request<Body>| async move {
        let (parts, body) = request.into_parts();
        let body = body
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        if fails && parts.uri.path() == "/fail" {
            return Err("asked to fail");
        }
        let echo = format!("{} {}", parts.method, parts.uri);
        let answer = if parts.uri.path() == "/stream" {
            let half = body.len() / 2;
            let chunks = [body.slice(..half), body.slice(half..)]
                .map(|c| Ok::<_, Infallible>(http_body::Frame::data(c)));
            http_body_util::StreamBody::new(futures_util::stream::iter(chunks)).boxed()
        } else {
            http_body_util::Full::new(body).boxed()
        };
        let mut response = http::Response::new(answer);
        response
            .headers_mut()
            .insert("x-echo", http::HeaderValue::from_str(&echo).unwrap());
        Ok::<_, &'static str>(response)
    })
}

/// What a request frame should be answered with, if it is one HTTP accepts: its
/// `METHOD TARGET` and body.
fn expected(frame: &[u8]) -> Option<Option<(String, Vec<u8>)>> {
    match Frame::parse(frame) {
        Ok(Frame::Request(r)) => {
            let method = match r.method {
                b"" => http::Method::GET,
                m => http::Method::from_bytes(m).ok()?,
            };
            let target = match r.target {
                b"" => http::Uri::from_static("/"),
                t => http::Uri::try_from(t).ok()?,
            };
            let names_ok = r.headers.iter().chain(r.trailer.iter()).all(|(k, v)| {
                http::HeaderName::from_bytes(k).is_ok() && http::HeaderValue::from_bytes(v).is_ok()
            });
            names_ok.then(|| Some((format!("{method} {target}"), r.body.to_vec())))
        }
        _ => None,
    }
    .or(Some(None))
}

pub fn run(data: &[u8]) {
    let Some((&settings, sent)) = data.split_first() else {
        return;
    };
    for frame in frames(sent) {
        if let Ok(parsed) = Frame::parse(frame) {
            reencode(&parsed);
        }
    }
    let config = ServerConfig {
        max_frame: if settings & 1 != 0 { 512 } else { 1 << 20 },
        idle_timeout: Duration::from_secs(5),
        read_timeout: Duration::from_secs(5),
        ..ServerConfig::default()
    };
    let max_frame = config.max_frame;
    let fails = settings & 2 != 0;
    let answer = crate::support::over_duplex(
        move |io| async move { serve_stream(service(fails), config, io).await },
        &[sent],
    );
    // The requests the server read, in order: what each should get.
    let requests: Vec<_> = frames(sent)
        .into_iter()
        .take_while(|f| f.len() <= max_frame)
        .map(expected)
        .collect();
    let mut answered = 0usize;
    let mut rest = &answer[..];
    while !rest.is_empty() {
        assert!(
            rest.len() >= 4,
            "a partial length prefix at the end of the answer"
        );
        let len = u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        let frame = rest.get(4..4 + len).expect("a whole frame");
        rest = &rest[4 + len..];
        let parsed = Frame::parse(frame).expect("every frame the server writes parses");
        let streamed_end = |rest: &mut &[u8]| loop {
            let len = u32::from_be_bytes(rest[..4].try_into().unwrap()) as usize;
            let frame = &rest[4..4 + len];
            *rest = &rest[4 + len..];
            match Frame::parse(frame).expect("a valid frame") {
                Frame::Data(_) => continue,
                Frame::End(_) => break,
                other => panic!("{other:?} inside a streamed answer"),
            }
        };
        let want = requests
            .get(answered)
            .expect("no more answers than requests");
        answered += 1;
        match (parsed, want) {
            (Frame::Response(r), None) => {
                assert_eq!(r.status, 400, "a request that is not one gets 400");
                assert!(rest.is_empty(), "the connection closes after a 400");
            }
            (Frame::Response(r), Some(None)) => assert_eq!(r.status, 400),
            (Frame::Response(r), Some(Some((echo, body)))) => {
                if r.status == 500 {
                    assert!(
                        fails && echo.contains("/fail"),
                        "500 from a service that did not fail"
                    );
                    continue;
                }
                assert_eq!(r.status, 200);
                assert_eq!(r.body, &body[..]);
                let header = r
                    .headers
                    .iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case(b"x-echo"));
                assert_eq!(header.map(|(_, v)| v), Some(echo.as_bytes()));
            }
            (Frame::ResponseHead(_), Some(Some((echo, _)))) => {
                assert!(echo.contains("/stream"), "only /stream is streamed");
                streamed_end(&mut rest);
            }
            (other, want) => panic!("{other:?} answers {want:?}"),
        }
    }
}

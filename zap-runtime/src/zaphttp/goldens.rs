//! The frames the Go implementation writes (`tests/data/zaphttp/go-frames.txt`, captured
//! on the wire from `zaphttp-peer` by `tests/zaphttp_go.rs`): every one is read, and
//! written again byte for byte from what was read, both by the codec and through the
//! `http` types the server and the client hand over.

use bytes::Bytes;
use http_body_util::BodyExt;

use super::codec::{Frame, FrameKind};
use super::convert::{
    decode_request, decode_response, decode_response_head, encode_data, encode_end, encode_request,
    encode_response, header_map,
};

/// `(exchange, frame)` for every frame of the goldens.
fn goldens() -> Vec<(String, Bytes)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/zaphttp/go-frames.txt"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut exchange = String::new();
    let mut frames = Vec::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix('[') {
            exchange = name.split(']').next().unwrap().to_owned();
        } else if let Some((_, hex)) = line.split_once(' ').filter(|_| !line.starts_with('#')) {
            frames.push((exchange.clone(), Bytes::from(hex::decode(hex).unwrap())));
        }
    }
    assert!(frames.len() >= 25, "{} frames in the goldens", frames.len());
    frames
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(future)
}

/// With its length prefix, as the encoder writes it.
fn framed(message: &[u8]) -> Vec<u8> {
    let mut out = (message.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(message);
    out
}

#[test]
fn every_go_frame_is_written_again_byte_for_byte() {
    for (exchange, frame) in goldens() {
        let parsed = Frame::parse(&frame).unwrap_or_else(|e| panic!("[{exchange}]: {e}"));
        let mut out = Vec::new();
        match parsed {
            Frame::Request(parts) => {
                let request = decode_request(&frame, parts).unwrap();
                let (head, body) = request.into_parts();
                let body = block_on(body.collect()).unwrap();
                let trailers = body.trailers().cloned();
                encode_request(&mut out, &head, &body.to_bytes(), trailers.as_ref());
            }
            Frame::Response(parts) => {
                let response = decode_response(&frame, parts).unwrap();
                let (head, body) = response.into_parts();
                let body = block_on(body.collect()).unwrap();
                let trailers = body.trailers().cloned();
                encode_response(
                    &mut out,
                    FrameKind::Response,
                    &head,
                    &body.to_bytes(),
                    trailers.as_ref(),
                );
            }
            Frame::ResponseHead(parts) => {
                let (head, ()) = decode_response_head(&frame, &parts)
                    .unwrap()
                    .body(())
                    .unwrap()
                    .into_parts();
                encode_response(&mut out, FrameKind::ResponseHead, &head, &[], None);
            }
            Frame::Data(chunk) => encode_data(&mut out, chunk),
            Frame::End(pairs) => {
                let trailers = header_map(&frame, pairs, "trailer").unwrap();
                encode_end(&mut out, Some(&trailers));
            }
        }
        assert_eq!(
            hex::encode(&out),
            hex::encode(framed(&frame)),
            "[{exchange}] a {} frame",
            parsed.kind()
        );
    }
}

#[test]
fn the_goldens_say_what_was_sent() {
    let frames = goldens();
    let first = |name: &str| frames.iter().find(|(e, _)| e == name).unwrap().1.clone();
    let (echo, headers, trailer) = (first("echo"), first("headers"), first("request-trailer"));
    let Frame::Request(echo) = Frame::parse(&echo).unwrap() else {
        panic!()
    };
    assert_eq!(
        (echo.method, echo.target, echo.body),
        (&b"POST"[..], &b"/echo"[..], &b"hello"[..])
    );
    let Frame::Request(headers) = Frame::parse(&headers).unwrap() else {
        panic!()
    };
    let pairs: Vec<_> = headers.headers.iter().collect();
    assert!(
        pairs.contains(&(&b"Host"[..], &b"example.com"[..])),
        "{pairs:?}"
    );
    let xa: Vec<_> = pairs
        .iter()
        .filter(|(k, _)| k == b"X-A")
        .map(|(_, v)| *v)
        .collect();
    assert_eq!(xa, [b"1", b"2"]);
    let Frame::Request(trailer) = Frame::parse(&trailer).unwrap() else {
        panic!()
    };
    assert_eq!(
        trailer.trailer.iter().collect::<Vec<_>>(),
        [(&b"X-T"[..], &b"v"[..])]
    );
    let stream: Vec<_> = frames.iter().filter(|(e, _)| e == "stream").collect();
    let kinds: Vec<_> = stream
        .iter()
        .map(|(_, f)| Frame::parse(f).unwrap().kind())
        .collect();
    assert_eq!(kinds.first(), Some(&FrameKind::Request));
    assert_eq!(kinds.get(1), Some(&FrameKind::ResponseHead));
    assert_eq!(kinds.last(), Some(&FrameKind::End));
}

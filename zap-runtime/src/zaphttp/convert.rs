//! Between `http` types and zaphttp frames.

use bytes::Bytes;
use http::header::{CONTENT_LENGTH, HOST, TRAILER};
use http::{
    HeaderMap, HeaderName, HeaderValue, Method, Request, Response, StatusCode, Uri, Version,
};

use super::codec::{self, Encoder, FrameKind, Pairs, RequestParts, ResponseParts};
use super::{Body, Error};

/// The protocol written in frames (what fasthttp reports).
const PROTO: &[u8] = b"HTTP/1.1";

/// The headers sent as pairs: all but those the frame owns.
fn wire_headers(headers: &HeaderMap) -> impl Iterator<Item = (&[u8], &[u8])> {
    headers
        .iter()
        .filter(|(name, _)| !frame_owned(name))
        .map(|(name, value)| (name.as_str().as_bytes(), value.as_bytes()))
}

fn frame_owned(name: &HeaderName) -> bool {
    name == CONTENT_LENGTH || name == TRAILER
}

fn trailer_pairs(trailers: Option<&HeaderMap>) -> impl Iterator<Item = (&[u8], &[u8])> {
    trailers
        .into_iter()
        .flat_map(|t| t.iter())
        .map(|(name, value)| (name.as_str().as_bytes(), value.as_bytes()))
}

fn proto_of(version: Version) -> &'static [u8] {
    match version {
        Version::HTTP_10 => b"HTTP/1.0",
        _ => PROTO,
    }
}

fn version_of(proto: &[u8]) -> Version {
    match proto {
        b"HTTP/1.0" => Version::HTTP_10,
        b"HTTP/2" | b"HTTP/2.0" => Version::HTTP_2,
        _ => Version::HTTP_11,
    }
}

/// Append a request frame for `parts` with a whole body.
pub(crate) fn encode_request(
    dst: &mut Vec<u8>,
    parts: &http::request::Parts,
    body: &[u8],
    trailers: Option<&HeaderMap>,
) {
    use codec::request::*;
    let target = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let host = match parts.headers.contains_key(HOST) {
        true => None,
        false => parts
            .uri
            .authority()
            .map(|a| (&b"host"[..], a.as_str().as_bytes())),
    };
    let mut e = Encoder::begin(dst, FrameKind::Request);
    e.bytes(METHOD, parts.method.as_str().as_bytes())
        .bytes(TARGET, target.as_bytes())
        .bytes(PROTO, proto_of(parts.version))
        .pairs(
            HEADERS,
            host.into_iter().chain(wire_headers(&parts.headers)),
            true,
        )
        .bytes(BODY, body)
        .pairs(TRAILER, trailer_pairs(trailers), true);
    e.finish();
}

/// Append a response frame (`Response`, or `ResponseHead` with no body) for `parts`.
pub(crate) fn encode_response(
    dst: &mut Vec<u8>,
    kind: FrameKind,
    parts: &http::response::Parts,
    body: &[u8],
    trailers: Option<&HeaderMap>,
) {
    use codec::response::*;
    let status = parts.status.as_u16();
    let mut e = Encoder::begin(dst, kind);
    e.status(status)
        .bytes(REASON, codec::reason_phrase(status).as_bytes())
        .bytes(PROTO, proto_of(parts.version))
        .pairs(HEADERS, wire_headers(&parts.headers), true)
        .bytes(BODY, body)
        .pairs(TRAILER, trailer_pairs(trailers), true);
    e.finish();
}

/// Append a data frame.
pub(crate) fn encode_data(dst: &mut Vec<u8>, chunk: &[u8]) {
    let mut e = Encoder::begin(dst, FrameKind::Data);
    e.bytes(0, chunk);
    e.finish();
}

/// Append an end frame with `trailers`.
pub(crate) fn encode_end(dst: &mut Vec<u8>, trailers: Option<&HeaderMap>) {
    let mut e = Encoder::begin(dst, FrameKind::End);
    e.pairs(0, trailer_pairs(trailers), true);
    e.finish();
}

/// Headers from a block; `skip_owned` drops those the frame owns.
pub(crate) fn header_map(frame: &Bytes, pairs: Pairs<'_>, what: &str) -> Result<HeaderMap, Error> {
    let mut map = HeaderMap::with_capacity(pairs.len());
    for (name, value) in pairs {
        let name = HeaderName::from_bytes(name).map_err(|_| {
            Error::Invalid(format!(
                "{what} name {:?} is not a valid HTTP header name",
                String::from_utf8_lossy(name)
            ))
        })?;
        if frame_owned(&name) {
            continue;
        }
        let value = HeaderValue::from_maybe_shared(frame.slice_ref(value)).map_err(|_| {
            Error::Invalid(format!(
                "{what} {name}: {:?} is not a valid HTTP header value",
                String::from_utf8_lossy(value)
            ))
        })?;
        map.append(name, value);
    }
    Ok(map)
}

/// The `http::Request` a request frame carries; its body and header values are slices
/// of `frame`.
pub(crate) fn decode_request(
    frame: &Bytes,
    parts: RequestParts<'_>,
) -> Result<Request<Body>, Error> {
    let method = match parts.method {
        b"" => Method::GET,
        m => Method::from_bytes(m).map_err(|_| {
            Error::Invalid(format!(
                "method {:?} is not an HTTP method",
                String::from_utf8_lossy(m)
            ))
        })?,
    };
    let uri = match parts.target {
        b"" => Uri::from_static("/"),
        t => Uri::from_maybe_shared(frame.slice_ref(t))
            .map_err(|e| Error::Invalid(format!("target {:?}: {e}", String::from_utf8_lossy(t))))?,
    };
    let mut headers = header_map(frame, parts.headers, "header")?;
    if !parts.body.is_empty() {
        headers.insert(CONTENT_LENGTH, HeaderValue::from(parts.body.len()));
    }
    let trailers = header_map(frame, parts.trailer, "trailer")?;
    let mut request = Request::new(Body::whole(frame.slice_ref(parts.body), Some(trailers)));
    *request.method_mut() = method;
    *request.uri_mut() = uri;
    *request.version_mut() = version_of(parts.proto);
    *request.headers_mut() = headers;
    Ok(request)
}

/// The head of the `http::Response` a response or response-head frame carries.
pub(crate) fn decode_response_head(
    frame: &Bytes,
    parts: &ResponseParts<'_>,
) -> Result<http::response::Builder, Error> {
    let status = StatusCode::from_u16(parts.status)
        .map_err(|_| Error::Invalid(format!("status {} is not an HTTP status", parts.status)))?;
    let mut builder = Response::builder()
        .status(status)
        .version(version_of(parts.proto));
    if let Some(headers) = builder.headers_mut() {
        *headers = header_map(frame, parts.headers, "header")?;
    }
    Ok(builder)
}

/// The whole `http::Response` a response frame carries.
pub(crate) fn decode_response(
    frame: &Bytes,
    parts: ResponseParts<'_>,
) -> Result<Response<Body>, Error> {
    let trailers = header_map(frame, parts.trailer, "trailer")?;
    let mut builder = decode_response_head(frame, &parts)?;
    if !parts.body.is_empty() {
        if let Some(headers) = builder.headers_mut() {
            headers.insert(CONTENT_LENGTH, HeaderValue::from(parts.body.len()));
        }
    }
    builder
        .body(Body::whole(frame.slice_ref(parts.body), Some(trailers)))
        .map_err(|e| Error::Invalid(e.to_string()))
}

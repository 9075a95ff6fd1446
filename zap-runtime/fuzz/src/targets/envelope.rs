//! RPC envelopes on arbitrary bytes: `Request::parse` and `Response::parse` must not
//! panic, must accept exactly the spec §5 shape, must return views of the message, and a
//! parsed envelope re-encoded (`encode`) must parse back to equal fields. The payload and
//! body (complete ZAP messages in well-formed traffic) get the full read walk. The bytes
//! after a parsed message are read as a call context extension (`zap_runtime::context`):
//! never a panic, and an accepted extension re-encodes to the very same bytes, with every
//! metadata pair within its limits.

use crate::{inside, model_parse};
use zap_runtime::context::{write_extension, Extension, Metadata, MAX_METADATA_BYTES, MAX_PAIRS};
use zap_runtime::rpc::{Request, Response, RPC_FLAGS};
use zap_runtime::{Builder, Bytes, Message};

/// Spec §5 acceptance: a message whose root object's whole fixed section fits.
fn accepts(data: &[u8], fixed: usize) -> bool {
    model_parse(data).is_some_and(|size| {
        let root = u32::from_le_bytes(data[8..12].try_into().unwrap()) as usize;
        root >= 16 && root < size && root + fixed <= size
    })
}

/// The body of the `envelope` fuzz target.
pub fn run(data: &[u8]) {
    let mut b = Builder::new();
    let msg = model_parse(data).map(|size| &data[..size]);

    let req = Request::parse(data);
    assert_eq!(req.is_ok(), accepts(data, 28), "request verdict");
    if let Ok(req) = req {
        let msg = msg.unwrap();
        assert!(inside(msg, req.cap) && inside(msg, req.payload));
        let wire = req.encode(&mut b).unwrap().to_vec();
        let m = Message::parse(&wire).expect("re-encoded request is a message");
        assert_eq!((m.version(), m.flags()), (2, RPC_FLAGS));
        assert_eq!(
            Request::parse(&wire).expect("re-encoded request parses"),
            req
        );
        crate::walk(req.payload);
        crate::walk(req.cap);
    }

    if let Some(size) = model_parse(data) {
        extension(&data[size..]);
    }

    let resp = Response::parse(data);
    assert_eq!(resp.is_ok(), accepts(data, 20), "response verdict");
    if let Ok(resp) = resp {
        assert!(inside(msg.unwrap(), resp.body));
        let _ = resp.body_text();
        let _ = resp.status.to_string();
        let wire = resp.encode(&mut b).unwrap().to_vec();
        assert_eq!(
            Response::parse(&wire).expect("re-encoded response parses"),
            resp
        );
        crate::walk(resp.body);
    }
}

/// The bytes after an envelope, read as a call context extension.
fn extension(rest: &[u8]) {
    let Ok(extension) = Extension::parse(rest) else {
        return;
    };
    assert!(extension.len() <= MAX_PAIRS);
    let frame = Bytes::copy_from_slice(rest);
    let metadata = Metadata::from_extension(&extension, &frame, 0);
    assert_eq!(metadata.len(), extension.len());
    let bytes: usize = metadata.iter().map(|(k, v)| k.len() + v.len()).sum();
    assert!(bytes <= MAX_METADATA_BYTES);
    let mut again = Vec::new();
    write_extension(&mut again, extension.budget(), &metadata);
    assert_eq!(
        again, rest,
        "an accepted extension re-encodes to its own bytes"
    );
}

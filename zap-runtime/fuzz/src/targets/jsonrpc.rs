//! The JSON-RPC decoder, `zap_runtime::http::handle_jsonrpc`, on arbitrary bytes, with
//! the generated `StoreService` of `schemas/service.zap` behind it.
//!
//! Input: byte 0 picks `max_batch` (0, 1, 2 or 16); the rest is the HTTP body. The
//! answer must be well-formed JSON-RPC 2.0: one response object, or a non-empty array of
//! them, each with `"jsonrpc": "2.0"`, an `id`, and exactly one of `result` / `error`
//! (an error with a known code and a message). For a body that is JSON, the answers
//! match the requests: one per member that is not a valid notification, in order, each
//! echoing the request's id, and `store_get`/`store_put` results carry the body the
//! handler writes for the id they echo. A request object that names `jsonrpc`, `id`,
//! `method` or `params` twice (escapes resolved) is answered -32600 with id null: the
//! oracle reads each member's names itself, since a `Value` keeps only the last.

use crate::schemas::service::StoreService;
use crate::support::{block_on, echo_body, EchoStore};
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;
use zap_runtime::http::{code, handle_jsonrpc};
use zap_runtime::BuilderPool;

const BATCH: [usize; 4] = [0, 1, 2, 16];
const CODES: [i64; 9] = [
    code::PARSE_ERROR,
    code::INVALID_REQUEST,
    code::METHOD_NOT_FOUND,
    code::INVALID_PARAMS,
    code::INTERNAL_ERROR,
    code::SERVER_ERROR,
    code::UNAUTHORIZED,
    code::FORBIDDEN,
    code::LIMIT_EXCEEDED,
];

/// The member names of a JSON object in order, escapes resolved; `None` for anything
/// else.
fn member_names(raw: &RawValue) -> Option<Vec<String>> {
    struct Names;
    impl<'de> Visitor<'de> for Names {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<String>, A::Error> {
            let mut names = Vec::new();
            while let Some(name) = map.next_key::<String>()? {
                map.next_value::<IgnoredAny>()?;
                names.push(name);
            }
            Ok(names)
        }
    }
    let mut de = serde_json::Deserializer::from_str(raw.get());
    serde::Deserializer::deserialize_map(&mut de, Names).ok()
}

/// True when the request object names one of the envelope's members twice.
fn repeats_a_member(raw: &RawValue) -> bool {
    let Some(names) = member_names(raw) else {
        return false;
    };
    ["jsonrpc", "id", "method", "params"]
        .iter()
        .any(|m| names.iter().filter(|n| n == m).count() > 1)
}

/// The requests of a JSON body (a batch's members, or the single one) as raw text, for
/// what a `Value` forgets (repeated members).
fn raw_requests(body: &[u8]) -> Vec<&RawValue> {
    let text = std::str::from_utf8(body).expect("JSON is UTF-8");
    match serde_json::from_str::<Vec<&RawValue>>(text) {
        Ok(batch) => batch,
        Err(_) => vec![serde_json::from_str::<&RawValue>(text).expect("JSON")],
    }
}

/// The id a request is answered with, or `None` if it is a valid notification (not
/// answered at all). Invalid requests are answered, with id null unless theirs is valid;
/// one that repeats a member (`repeated`) always with id null.
fn answered_id(request: &Value, repeated: bool) -> Option<Value> {
    let Value::Object(fields) = request else {
        return Some(Value::Null);
    };
    if repeated {
        return Some(Value::Null);
    }
    let id = match fields.get("id") {
        None => None,
        Some(id @ (Value::Null | Value::Number(_) | Value::String(_))) => Some(id.clone()),
        Some(_) => return Some(Value::Null),
    };
    let valid = fields.get("jsonrpc") == Some(&Value::from("2.0"))
        && matches!(fields.get("method"), Some(Value::String(_)));
    if valid {
        id
    } else {
        Some(id.unwrap_or(Value::Null))
    }
}

/// One response object is well-formed; returns it as an object.
pub(crate) fn check_response(r: &Value) -> &serde_json::Map<String, Value> {
    let obj = r.as_object().expect("a response is an object");
    assert_eq!(obj.get("jsonrpc"), Some(&Value::from("2.0")));
    assert!(obj.contains_key("id"), "a response has an id");
    match (obj.get("result"), obj.get("error")) {
        (Some(_), None) => {}
        (None, Some(Value::Object(e))) => {
            let code = e
                .get("code")
                .and_then(Value::as_i64)
                .expect("an error code");
            assert!(CODES.contains(&code), "unknown error code {code}");
            assert!(e.get("message").is_some_and(Value::is_string));
        }
        other => panic!("not exactly one of result/error: {other:?}"),
    }
    obj
}

/// The body of the `jsonrpc` fuzz target.
pub fn run(data: &[u8]) {
    let Some((&control, body)) = data.split_first() else {
        return;
    };
    let max_batch = BATCH[usize::from(control & 3)];
    let service = StoreService::new(EchoStore);
    let pool = BuilderPool::new();
    let answer = block_on(handle_jsonrpc(&service, &pool, body, max_batch));
    let parsed: Option<Value> = serde_json::from_slice(body).ok();
    // JSON by its grammar, read as the server reads it: raw slices, so a number too large
    // for a `Value` (1e400) is still JSON.
    let grammatical = serde_json::from_slice::<serde::de::IgnoredAny>(body).is_ok();

    let Some(answer) = answer else {
        // Nothing to answer: only when every call was a valid notification.
        let Some(parsed) = parsed else {
            assert!(grammatical, "no answer only for JSON");
            return;
        };
        let requests = match parsed {
            Value::Array(batch) => batch,
            single => vec![single],
        };
        assert!(!requests.is_empty() && requests.len() <= max_batch.max(1));
        let raws = raw_requests(body);
        assert!(requests
            .iter()
            .zip(&raws)
            .all(|(r, raw)| answered_id(r, repeats_a_member(raw)).is_none()));
        return;
    };
    let answer: Value = serde_json::from_slice(&answer).expect("the answer is JSON");
    let responses = match &answer {
        Value::Array(items) => {
            assert!(
                !items.is_empty(),
                "an empty batch answer is sent as no answer"
            );
            items.iter().map(check_response).collect::<Vec<_>>()
        }
        single => vec![check_response(single)],
    };
    let Some(parsed) = parsed else {
        // Not JSON: one parse error. Or: a batch over `max_batch` is refused after its
        // members past the limit were checked as JSON grammar only (so a number too
        // large for a `Value`, e.g. 1e400, is not an error there), but only for UTF-8.
        if grammatical {
            // JSON that a `Value` cannot hold: answered call by call, checked above.
            return;
        }
        let e = &responses[0]["error"];
        let too_large = e["code"] == code::INVALID_REQUEST
            && std::str::from_utf8(body).is_ok_and(|b| b.trim_start().starts_with('['));
        assert!(e["code"] == code::PARSE_ERROR || too_large, "{e}");
        assert_eq!(responses.len(), 1);
        return;
    };
    let requests = match parsed {
        Value::Array(batch) if batch.is_empty() || batch.len() > max_batch => {
            assert_eq!(responses.len(), 1);
            assert_eq!(responses[0]["error"]["code"], code::INVALID_REQUEST);
            return;
        }
        Value::Array(batch) => {
            assert!(answer.is_array(), "a batch is answered with an array");
            batch
        }
        single => vec![single],
    };
    let raws = raw_requests(body);
    assert_eq!(raws.len(), requests.len());
    let expected: Vec<(Value, &Value, bool)> = requests
        .iter()
        .zip(&raws)
        .filter_map(|(r, raw)| {
            let repeated = repeats_a_member(raw);
            answered_id(r, repeated).map(|id| (id, r, repeated))
        })
        .collect();
    assert_eq!(
        responses.len(),
        expected.len(),
        "one answer per answered request"
    );
    for (resp, (id, req, repeated)) in responses.iter().zip(&expected) {
        assert_eq!(&resp["id"], id, "the id is echoed");
        if *repeated {
            assert_eq!(resp["error"]["code"], code::INVALID_REQUEST, "{resp:?}");
            continue;
        }
        let method = req.get("method").and_then(Value::as_str);
        if let (Some(m @ ("store_get" | "store_put")), Some(result)) = (method, resp.get("result"))
        {
            let id = result["id"].as_u64().expect("a u64 id");
            assert_eq!(result["body"], echo_body(&m[6..], id));
        }
    }
}

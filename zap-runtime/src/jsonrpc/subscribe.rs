//! Subscriptions: server streams that JSON-RPC clients open with `<namespace>_subscribe`
//! and receive as `<namespace>_subscription` notifications, as geth serves them for
//! any namespace over WebSocket and IPC (`eth_subscribe("newHeads")` for Ethereum's). A
//! method is one when its schema says `json(subscription = "newHeads")`; its namespace
//! is what its JSON-RPC name has before the first underscore (`eth` of `eth_newHeads`,
//! [`namespace`]).
//!
//! This module speaks the JSON; a transport that can push messages (the WebSocket
//! server) implements [`Subscriptions`] to run the streams and deliver what they send.

use std::borrow::Cow;

use bytes::Bytes;
use serde_json::value::RawValue;

use super::{code, raw_str, Gate, JsonCall, RpcError};
use crate::service::{MethodInfo, Service};
use crate::BuilderPool;

/// The method that opens a subscription of the `eth` namespace: `params` are its name,
/// then its own params. Every namespace has its own: `<namespace>_subscribe`.
pub const SUBSCRIBE: &str = "eth_subscribe";
/// The method that ends one: `params` are `[id]`; the result is whether it was live.
pub const UNSUBSCRIBE: &str = "eth_unsubscribe";
/// The method of the `eth` namespace's notifications: `params` are
/// `{"subscription": id, "result": ...}`. Every namespace has its own:
/// `<namespace>_subscription`.
pub const NOTIFICATION: &str = "eth_subscription";

/// The JSON-RPC namespace of a method: what its JSON-RPC name has before the first
/// underscore (`eth` of `eth_newHeads`), the whole name when it has none.
pub fn namespace(method: &MethodInfo) -> &'static str {
    let name = method.json_name;
    name.split_once('_')
        .map_or(name, |(namespace, _)| namespace)
}

/// Whether `method` opens (`true`) or ends (`false`) a subscription of a namespace
/// that has one on this service (`prices_subscribe` when a stream method of the
/// `prices` namespace is a subscription), and that namespace.
pub(super) fn subscription_call<S: Service>(method: &str) -> Option<(&str, bool)> {
    let (namespace, opens) = if let Some(namespace) = method.strip_suffix("_subscribe") {
        (namespace, true)
    } else {
        (method.strip_suffix("_unsubscribe")?, false)
    };
    S::METHODS
        .iter()
        .any(|m| m.subscription.is_some() && self::namespace(m) == namespace)
        .then_some((namespace, opens))
}

/// What a transport that delivers notifications provides: it runs each subscription's
/// stream and sends what it yields as [`notification`]s.
pub trait Subscriptions: Send {
    /// Start a subscription to the server stream `method`, whose opening message is
    /// `open`; its id, or why not (a limit).
    fn subscribe(&mut self, method: &'static MethodInfo, open: Bytes) -> Result<u64, RpcError>;
    /// End subscription `id`; whether it was live.
    fn unsubscribe(&mut self, id: u64) -> bool;
}

/// A subscription id as Ethereum clients expect one: a `0x` quantity string.
pub fn subscription_id(id: u64) -> String {
    format!("0x{id:x}")
}

/// The notification carrying `result_json` (the JSON of one message) for subscription
/// `id` of `namespace` (method `<namespace>_subscription`), appended to `out`.
pub fn notification(namespace: &str, id: u64, result_json: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(br#"{"jsonrpc":"2.0","method":""#);
    out.extend_from_slice(namespace.as_bytes());
    out.extend_from_slice(br#"_subscription","params":{"subscription":""#);
    out.extend_from_slice(subscription_id(id).as_bytes());
    out.extend_from_slice(br#"","result":"#);
    out.extend_from_slice(result_json);
    out.extend_from_slice(b"}}");
}

/// The last notification of subscription `id` of `namespace`, whose stream ended
/// with `error`: the subscription's method with `params: {"subscription": id, "error": {code, message}}`
/// instead of a result, appended to `out`. Nothing follows it for this subscription.
pub fn error_notification(namespace: &str, id: u64, error: &super::RpcError, out: &mut Vec<u8>) {
    let value = serde_json::json!({
        "jsonrpc": "2.0",
        "method": format!("{namespace}_subscription"),
        "params": { "subscription": subscription_id(id), "error": error },
    });
    // A JSON value always serializes.
    let _ = serde_json::to_writer(out, &value);
}

/// `<namespace>_subscribe` (`opens`) or `<namespace>_unsubscribe`: answered into `out`
/// (the result's JSON).
pub(super) fn dispatch<S: Service>(
    pool: &BuilderPool,
    call: &JsonCall<'_>,
    (namespace, opens): (&str, bool),
    gate: &mut Gate<'_, '_>,
    subs: Option<&mut (dyn Subscriptions + '_)>,
    out: &mut Vec<u8>,
) -> Result<(), RpcError> {
    let params = positional(call.params)?;
    if !opens {
        gate.check(0)?;
        let id = match params.as_slice() {
            [id] => raw_str(id).as_deref().and_then(parse_id),
            _ => None,
        };
        let Some(id) = id else {
            return Err(RpcError::new(
                code::INVALID_PARAMS,
                format!("Invalid params: {namespace}_unsubscribe takes one subscription id, a 0x hex string"),
            ));
        };
        let live = subs.is_some_and(|subs| subs.unsubscribe(id));
        out.extend_from_slice(if live { b"true" } else { b"false" });
        return Ok(());
    }
    let name: Option<Cow<'_, str>> = params.first().and_then(|p| raw_str(p));
    let method = name.as_deref().and_then(|name| {
        S::METHODS
            .iter()
            .find(|m| m.subscription == Some(name) && self::namespace(m) == namespace)
    });
    // Before the name is looked at, so only an authorised caller learns which exist.
    gate.check(method.map_or(0, |m| m.ordinal))?;
    let Some(method) = method else {
        let known: Vec<&str> = S::METHODS
            .iter()
            .filter(|m| self::namespace(m) == namespace)
            .filter_map(|m| m.subscription)
            .collect();
        return Err(RpcError::new(
            code::INVALID_PARAMS,
            format!(
                "Invalid params: no subscription {:?} (this server has: {})",
                name.unwrap_or_default(),
                known.join(", ")
            ),
        ));
    };
    let Some(subs) = subs else {
        return Err(RpcError::new(
            code::METHOD_NOT_FOUND,
            "Method not found: subscriptions need a connection that can carry notifications: \
             connect over WebSocket (ws:// or wss://) to this same URL",
        ));
    };
    let mut request = pool.get();
    let rest = &params[1..];
    let joined;
    // No params of its own: the opening message's defaults (every field zero).
    let none: &RawValue = serde_json::from_str("{}")
        .map_err(|e| RpcError::new(code::INTERNAL_ERROR, format!("Internal error: {e}")))?;
    let own_params: Option<&RawValue> = match rest {
        [] => Some(none),
        [one] if one.get().starts_with('{') => Some(one),
        many => {
            let items: Vec<&str> = many.iter().map(|p| p.get()).collect();
            joined = RawValue::from_string(format!("[{}]", items.join(",")))
                .map_err(|e| RpcError::new(code::INVALID_PARAMS, format!("Invalid params: {e}")))?;
            Some(&*joined)
        }
    };
    (method.params_to_wire)(own_params, method.positional, &mut request)
        .map_err(|e| RpcError::invalid_params(&e))?;
    let open = match method.request {
        Some(_) => Bytes::copy_from_slice(request.as_bytes()),
        None => Bytes::new(),
    };
    let id = subs.subscribe(method, open)?;
    out.push(b'"');
    out.extend_from_slice(subscription_id(id).as_bytes());
    out.push(b'"');
    Ok(())
}

/// `params` as an array of raw values (absent: none).
fn positional(params: Option<&RawValue>) -> Result<Vec<&RawValue>, RpcError> {
    match params {
        None => Ok(Vec::new()),
        Some(p) => serde_json::from_str(p.get()).map_err(|_| {
            RpcError::new(
                code::INVALID_PARAMS,
                "Invalid params: subscription params are an array: [\"newHeads\"]",
            )
        }),
    }
}

/// `0x1f` → 31.
fn parse_id(text: &str) -> Option<u64> {
    let digits = text.strip_prefix("0x")?;
    if digits.is_empty() || digits.len() > 16 {
        return None;
    }
    u64::from_str_radix(digits, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_quantities_both_ways() {
        for id in [1u64, 0x1f, u64::MAX] {
            assert_eq!(parse_id(&subscription_id(id)), Some(id));
        }
        for bad in ["", "0x", "1f", "0xg", "0x11111111111111111"] {
            assert_eq!(parse_id(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_notification_is_the_ethereum_shape() {
        let mut out = Vec::new();
        notification("eth", 0x2a, br#"{"number":"0x1"}"#, &mut out);
        let value: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(
            value,
            serde_json::json!({
                "jsonrpc": "2.0",
                "method": "eth_subscription",
                "params": {"subscription": "0x2a", "result": {"number": "0x1"}},
            })
        );
    }

    #[test]
    fn a_failed_subscription_ends_with_an_error_notification() {
        let mut out = Vec::new();
        let error = super::super::RpcError::from_call_error(&crate::CallError::new(
            crate::rpc::Status::DEADLINE_EXCEEDED,
            "deadline exceeded",
        ));
        error_notification("prices", 7, &error, &mut out);
        let value: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(value["method"], "prices_subscription");
        assert_eq!(value["params"]["subscription"], "0x7");
        assert_eq!(value["params"]["error"]["code"], -32004);
        assert_eq!(value["params"]["error"]["data"]["status"], 504);
        assert!(value["params"].get("result").is_none());
    }
}

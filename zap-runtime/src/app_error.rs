//! Application errors: the failures a service means its callers to tell apart ("no such
//! item", "insufficient funds"), kept apart from the protocol's own statuses (400 bad
//! request, 404 unknown method, 500 handler failure, ...).
//!
//! An application error has a [code](AppCode) from 10 to 99 chosen by the service, a
//! message for people and optional JSON data for programs. It travels as
//!
//! | transport | the code | the message and data |
//! | --- | --- | --- |
//! | ZAP | status `32000 + code` (32010..=32099) | the body: `{"message":"…","data":…}` (JSON, UTF-8) |
//! | JSON-RPC | error code `-(32000 + code)` (-32010..=-32099, the server-error range) | the error object's `message` and `data` |
//!
//! so one handler's error reads the same to a ZAP client ([`ClientError::App`]) and to
//! a JSON-RPC client, and never looks like a protocol error: the runtime's own JSON-RPC
//! codes are -32700..=-32600 and -32000..=-32009.
//!
//! ```
//! use zap_runtime::{AppCode, AppError, CallError};
//!
//! /// The one error `complete` answers with.
//! const NO_SUCH_ITEM: AppCode = AppCode::new(10);
//!
//! let err: CallError = AppError::new(NO_SUCH_ITEM, "no item 999")
//!     .with_data(serde_json::json!({ "id": 999 }))
//!     .into();
//! assert_eq!(err.status.0, 32010);
//! assert_eq!(err.app_error().unwrap().code, NO_SUCH_ITEM);
//! ```
//!
//! [`ClientError::App`]: crate::ClientError::App

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::rpc::Status;

/// The ZAP status of application error code 0 (never used: codes start at 10).
const STATUS_BASE: u32 = 32_000;

/// The code of an application error: a number from 10 to 99, chosen by the service.
///
/// Declare codes as constants, so a code out of range is a compile-time error:
/// `const NO_SUCH_ITEM: AppCode = AppCode::new(10);`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AppCode(u8);

impl AppCode {
    /// The smallest application code.
    pub const MIN: u8 = 10;
    /// The largest application code.
    pub const MAX: u8 = 99;

    /// The code `code`.
    ///
    /// # Panics
    ///
    /// When `code` is outside 10..=99 (at compile time when evaluated in a `const`).
    pub const fn new(code: u8) -> AppCode {
        assert!(
            code >= Self::MIN && code <= Self::MAX,
            "an application error code is a number from 10 to 99"
        );
        AppCode(code)
    }

    /// The code `code`, or `None` when it is outside 10..=99.
    pub const fn try_new(code: u8) -> Option<AppCode> {
        if code >= Self::MIN && code <= Self::MAX {
            Some(AppCode(code))
        } else {
            None
        }
    }

    /// The number, 10..=99.
    pub const fn get(self) -> u8 {
        self.0
    }

    /// The ZAP status this code travels as: `32000 + code`.
    pub const fn status(self) -> Status {
        Status(STATUS_BASE + self.0 as u32)
    }

    /// The JSON-RPC error code this code travels as: `-(32000 + code)`.
    pub const fn json_rpc_code(self) -> i64 {
        -((STATUS_BASE + self.0 as u32) as i64)
    }

    /// The application code a ZAP status carries, if it is one (32010..=32099).
    pub const fn from_status(status: Status) -> Option<AppCode> {
        match status.0.checked_sub(STATUS_BASE) {
            Some(code) if code <= Self::MAX as u32 => Self::try_new(code as u8),
            _ => None,
        }
    }
}

impl core::fmt::Display for AppCode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.0.fmt(f)
    }
}

/// An application error: what a handler returns (converted into a [`CallError`]) and
/// what a client receives ([`ClientError::App`]).
///
/// [`CallError`]: crate::CallError
/// [`ClientError::App`]: crate::ClientError::App
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppError {
    /// Which error: the service's own numbering, 10..=99.
    pub code: AppCode,
    /// For people: what went wrong.
    pub message: Cow<'static, str>,
    /// For programs: any JSON value, or none.
    pub data: Option<Value>,
}

impl AppError {
    /// An error with `code` and `message` and no data.
    pub fn new(code: AppCode, message: impl Into<Cow<'static, str>>) -> Self {
        AppError {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// The same error carrying `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// The ZAP response body: `{"message":…,"data":…}` (`data` left out when there is
    /// none).
    pub fn body(&self) -> String {
        let body = Body {
            message: Cow::Borrowed(&self.message),
            data: self.data.clone(),
        };
        // A struct of a string and a JSON value always serializes.
        serde_json::to_string(&body).unwrap_or_default()
    }

    /// The error a ZAP answer of `code` with `body` carries. A body that is not the JSON
    /// object [`body`](Self::body) writes (a peer that answers plain text) is taken
    /// whole, as text, for the message.
    pub fn from_body(code: AppCode, body: &[u8]) -> Self {
        match serde_json::from_slice::<Body<'_>>(body) {
            Ok(parsed) => AppError {
                code,
                message: Cow::Owned(parsed.message.into_owned()),
                data: parsed.data,
            },
            Err(_) => AppError::new(code, String::from_utf8_lossy(body).into_owned()),
        }
    }
}

impl core::fmt::Display for AppError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "application error {}: {}", self.code, self.message)
    }
}

impl std::error::Error for AppError {}

/// The ZAP body of an application error.
#[derive(Serialize, Deserialize)]
struct Body<'a> {
    #[serde(borrow)]
    message: Cow<'a, str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    data: Option<Value>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_map_to_their_status_and_json_rpc_code_and_back() {
        for n in AppCode::MIN..=AppCode::MAX {
            let code = AppCode::new(n);
            assert_eq!(code.status().0, 32_000 + u32::from(n));
            assert_eq!(code.json_rpc_code(), -(32_000 + i64::from(n)));
            assert_eq!(AppCode::from_status(code.status()), Some(code));
        }
        for status in [0, 200, 400, 404, 500, 32_000, 32_009, 32_100, u32::MAX] {
            assert_eq!(AppCode::from_status(Status(status)), None, "{status}");
        }
        assert_eq!(AppCode::try_new(9), None);
        assert_eq!(AppCode::try_new(100), None);
    }

    #[test]
    #[should_panic(expected = "from 10 to 99")]
    fn a_code_out_of_range_panics() {
        let _ = AppCode::new(100);
    }

    #[test]
    fn the_body_reads_back() {
        let code = AppCode::new(42);
        let plain = AppError::new(code, "no \"item\" 7");
        assert_eq!(plain.body(), r#"{"message":"no \"item\" 7"}"#);
        assert_eq!(AppError::from_body(code, plain.body().as_bytes()), plain);
        let rich = plain.with_data(serde_json::json!({"id": 7}));
        assert_eq!(AppError::from_body(code, rich.body().as_bytes()), rich);
    }

    #[test]
    fn a_plain_text_body_is_the_message() {
        let code = AppCode::new(10);
        let got = AppError::from_body(code, b"not json \xff");
        assert_eq!(got.message, "not json \u{fffd}");
        assert_eq!(got.data, None);
    }
}

//! The methods every server answers beside its service's own: **reflection** (what the
//! server serves: its service, the methods with their ordinals, the schema's files and
//! their SHA-256) and **health** (whether it still takes work, asked once or watched as
//! a stream).
//!
//! They are methods like any other on the wire, at ordinals every interface reserves
//! (zapc refuses `@N` from [`RESERVED_FROM`] up), so any ZAP runtime can call them and
//! implement them; their messages are declared in `zap-runtime/schema/builtin.zap`, and
//! `docs/interop.md` gives their wire:
//!
//! | ordinal | method | request | answer |
//! |---|---|---|---|
//! | [`DESCRIBE`] `0xFFFFFF01` | Describe | none | [`Description`] |
//! | [`HEALTH_CHECK`] `0xFFFFFF02` | Check | [`HealthRequest`] | [`HealthResponse`] |
//! | [`HEALTH_WATCH`] `0xFFFFFF03` | Watch (a server stream) | [`HealthRequest`] | a [`HealthResponse`] at once and at every change |
//!
//! The ZAP/TCP and QUIC servers answer them; under a capability policy they are
//! refused like any method the policy's table lacks, so a policy grants them
//! explicitly (`PolicyBuilder::method(builtin::DESCRIBE, bits)`). Health follows the
//! server's [`Readiness`](crate::shutdown::Readiness) (`ServerConfig::readiness`): serving
//! until draining starts (SIGTERM, through [`Shutdown`](crate::shutdown::Shutdown)), not
//! serving from then on, which is what `GET /health` reports too when the HTTP server
//! shares it.
//!
//! The client side works over any [`Transport`]:
//!
//! ```no_run
//! # async fn demo() -> Result<(), zap_runtime::ClientError> {
//! use zap_runtime::builtin::{self, HealthStatus};
//! use zap_runtime::client::Client;
//!
//! let client = Client::connect("127.0.0.1:9999").await?;
//! let description = builtin::describe(&client).await?;
//! for service in &description.services {
//!     println!("{} ({} methods)", service.name, service.methods.len());
//! }
//! assert_eq!(builtin::check(&client, "").await?, HealthStatus::Serving);
//! # Ok(()) }
//! ```

#[rustfmt::skip]
mod messages;

// The messages with their readers and builders, as generated code has them.
pub use messages::*;

use crate::service::Service;
use crate::stream::Streaming;
use crate::transport::{ClientError, Transport};
use crate::zap_struct::ZapStruct;

/// The first ordinal reserved for these methods: no interface may use it or any above.
pub const RESERVED_FROM: u32 = 0xFFFF_FF00;
/// Reflection: no request; answers a [`Description`].
pub const DESCRIBE: u32 = 0xFFFF_FF01;
/// Health, once: a [`HealthRequest`]; answers a [`HealthResponse`].
pub const HEALTH_CHECK: u32 = 0xFFFF_FF02;
/// Health, watched: a server stream opened with a [`HealthRequest`], which sends a
/// [`HealthResponse`] at once and another at every change.
pub const HEALTH_WATCH: u32 = 0xFFFF_FF03;

/// Whether `ordinal` is one of the reserved ordinals.
#[inline]
pub const fn is_builtin(ordinal: u32) -> bool {
    ordinal >= RESERVED_FROM
}

/// A health answer, as gRPC's health protocol has it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum HealthStatus {
    /// Status 0: the server cannot say (also any value this runtime does not know).
    Unknown = 0,
    /// 1: taking work.
    Serving = 1,
    /// 2: not taking new work: the server is draining.
    NotServing = 2,
    /// 3: the server serves no service of that name.
    ServiceUnknown = 3,
}

impl HealthStatus {
    /// The status a [`HealthResponse`] carries.
    pub const fn from_u8(value: u8) -> Self {
        match value {
            1 => HealthStatus::Serving,
            2 => HealthStatus::NotServing,
            3 => HealthStatus::ServiceUnknown,
            _ => HealthStatus::Unknown,
        }
    }

    /// As gRPC names it: `SERVING`, `NOT_SERVING`, `SERVICE_UNKNOWN`, `UNKNOWN`.
    pub const fn as_str(self) -> &'static str {
        match self {
            HealthStatus::Unknown => "UNKNOWN",
            HealthStatus::Serving => "SERVING",
            HealthStatus::NotServing => "NOT_SERVING",
            HealthStatus::ServiceUnknown => "SERVICE_UNKNOWN",
        }
    }
}

impl core::fmt::Display for HealthStatus {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a server serving `S` answers [`DESCRIBE`] with.
pub fn description<S: Service>() -> Description {
    let methods = S::METHODS
        .iter()
        .map(|m| MethodDescription {
            name: m.name.into(),
            json_name: m.json_name.into(),
            request: m.request.unwrap_or_default().into(),
            response: m.response.unwrap_or_default().into(),
            permissions: m.permissions,
            ordinal: m.ordinal,
            kind: match m.streaming {
                Streaming::Unary => 0,
                Streaming::Server => 1,
                Streaming::Client => 2,
                Streaming::Bidi => 3,
            },
        })
        .collect();
    let (files, schema_hash) = match S::SCHEMA {
        Some(schema) => (
            schema
                .files
                .iter()
                .map(|(path, text)| SchemaFile {
                    path: (*path).into(),
                    text: (*text).into(),
                })
                .collect(),
            schema.sha256.to_vec(),
        ),
        None => (Vec::new(), Vec::new()),
    };
    Description {
        runtime: concat!("zap-runtime ", env!("CARGO_PKG_VERSION")).into(),
        services: vec![ServiceDescription {
            name: S::NAME.into(),
            package: S::PACKAGE.into(),
            schema_hash,
            files,
            methods,
        }],
    }
}

/// The health of `service` (empty: the whole server) on a server serving `S`, draining
/// or not.
pub fn health_of<S: Service>(service: &str, draining: bool) -> HealthStatus {
    if !service.is_empty() && service != S::NAME {
        HealthStatus::ServiceUnknown
    } else if draining {
        HealthStatus::NotServing
    } else {
        HealthStatus::Serving
    }
}

/// Ask a server what it serves ([`DESCRIBE`]). A server that does not implement
/// reflection (the Go runtime, for one) answers an error status, typically 404.
pub async fn describe<T: Transport>(transport: &T) -> Result<Description, ClientError> {
    let body = transport.call(DESCRIBE, &[]).await?;
    Description::decode(&body).map_err(|e| {
        ClientError::Protocol(format!("the answer to Describe is not a Description: {e}"))
    })
}

/// Ask a server for the health of `service` (empty: the whole server) once
/// ([`HEALTH_CHECK`]).
pub async fn check<T: Transport>(
    transport: &T,
    service: &str,
) -> Result<HealthStatus, ClientError> {
    let request = HealthRequest {
        service: service.into(),
    };
    let body = transport.call(HEALTH_CHECK, &encode(&request)?).await?;
    read_status(&body)
}

/// Watch the health of `service` (empty: the whole server): the server sends the
/// status at once and again at every change ([`HEALTH_WATCH`]).
pub async fn watch<T: Transport>(transport: &T, service: &str) -> Result<HealthWatch, ClientError> {
    let request = HealthRequest {
        service: service.into(),
    };
    let mut io = transport
        .open_stream(HEALTH_WATCH, &encode(&request)?)
        .await?;
    io.outbound.end();
    Ok(HealthWatch { io })
}

/// The statuses a [`watch`] receives.
#[derive(Debug)]
pub struct HealthWatch {
    io: crate::stream::StreamIo,
}

impl HealthWatch {
    /// The next status; `None` when the server ended the stream (it stopped, or the
    /// connection closed).
    pub async fn next(&mut self) -> Result<Option<HealthStatus>, ClientError> {
        match self.io.inbound.next().await {
            Ok(Some(message)) => read_status(&message).map(Some),
            Ok(None) => Ok(None),
            Err(e) => Err(ClientError::Protocol(e.to_string())),
        }
    }
}

fn encode<T: ZapStruct>(message: &T) -> Result<Vec<u8>, ClientError> {
    message
        .to_bytes()
        .map_err(|e| ClientError::Protocol(format!("cannot encode {}: {e}", T::NAME)))
}

fn read_status(body: &[u8]) -> Result<HealthStatus, ClientError> {
    HealthResponse::decode(body)
        .map(|r| HealthStatus::from_u8(r.status))
        .map_err(|e| {
            ClientError::Protocol(format!("the health answer is not a HealthResponse: {e}"))
        })
}

#[cfg(feature = "server")]
pub(crate) mod serve;

/// The reserved stream method at `ordinal` (Watch), for the checks of a stream open.
#[cfg(any(feature = "server", feature = "jsonrpc"))]
pub(crate) fn stream_method(ordinal: u32) -> Option<&'static crate::service::MethodInfo> {
    (ordinal == HEALTH_WATCH).then_some(&WATCH)
}

/// Watch as a method, for the checks every stream open goes through. It has no JSON-RPC
/// side.
#[cfg(any(feature = "server", feature = "jsonrpc"))]
static WATCH: crate::service::MethodInfo = crate::service::MethodInfo {
    ordinal: HEALTH_WATCH,
    permissions: 0,
    name: "Watch",
    streaming: Streaming::Server,
    json_name: "",
    request: Some("HealthRequest"),
    response: Some("HealthResponse"),
    positional: &[],
    result_to_json: |_, _, _| {
        Err(crate::json::ResultError::Serialize(
            "Watch has no JSON side".into(),
        ))
    },
    params_to_wire: |_, _, _| Err(crate::json::ParamsError::Unexpected),
    result_field: None,
    subscription: None,
};

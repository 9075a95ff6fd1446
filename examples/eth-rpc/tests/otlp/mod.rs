//! An OTLP/HTTP trace receiver for the tests: what an OpenTelemetry collector does with
//! `POST /v1/traces` (protobuf `ExportTraceServiceRequest`, decoded with the
//! `opentelemetry-proto` message types), keeping each span it is sent.

#![allow(dead_code)] // each test file uses a different part

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use prost::Message;
use tokio::net::TcpListener;

/// A span as the collector received it.
#[derive(Clone, Debug)]
pub struct Span {
    /// The resource's `service.name`.
    pub service: String,
    pub name: String,
    /// OTLP's span kind: 2 server, 3 client.
    pub kind: i32,
    pub trace_id: String,
    pub span_id: String,
    pub parent_id: String,
    /// Text and integer attributes, as text.
    pub attributes: HashMap<String, String>,
    /// OTLP's status code: 0 unset, 1 ok, 2 error.
    pub status: i32,
}

impl Span {
    pub fn attribute(&self, key: &str) -> Option<&str> {
        self.attributes.get(key).map(String::as_str)
    }
}

/// A receiver on 127.0.0.1, port 0.
pub struct Collector {
    pub addr: SocketAddr,
    spans: Arc<Mutex<Vec<Span>>>,
    /// Requests received, and how many were not valid OTLP.
    requests: Arc<Mutex<(u64, u64)>>,
}

impl Collector {
    pub async fn start() -> Collector {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let spans = Arc::new(Mutex::new(Vec::new()));
        let requests = Arc::new(Mutex::new((0, 0)));
        let (kept, counted) = (spans.clone(), requests.clone());
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let (kept, counted) = (kept.clone(), counted.clone());
                let service = hyper::service::service_fn(move |request| {
                    let (kept, counted) = (kept.clone(), counted.clone());
                    async move { Ok::<_, Infallible>(receive(request, &kept, &counted).await) }
                });
                tokio::spawn(
                    hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(stream), service),
                );
            }
        });
        Collector {
            addr,
            spans,
            requests,
        }
    }

    /// The endpoint to give `--otlp-endpoint`.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every span received so far.
    pub fn spans(&self) -> Vec<Span> {
        self.spans.lock().unwrap().clone()
    }

    /// (requests, requests that were not a valid export).
    pub fn requests(&self) -> (u64, u64) {
        *self.requests.lock().unwrap()
    }
}

async fn receive(
    request: hyper::Request<hyper::body::Incoming>,
    kept: &Mutex<Vec<Span>>,
    counted: &Mutex<(u64, u64)>,
) -> hyper::Response<Full<Bytes>> {
    let path_ok = request.method() == hyper::Method::POST && request.uri().path() == "/v1/traces";
    let protobuf = request
        .headers()
        .get("content-type")
        .is_some_and(|v| v == "application/x-protobuf");
    let body = request.into_body().collect().await.map(|b| b.to_bytes());
    let decoded = match body {
        Ok(body) if path_ok && protobuf => ExportTraceServiceRequest::decode(body).ok(),
        _ => None,
    };
    counted.lock().unwrap().0 += 1;
    let Some(export) = decoded else {
        counted.lock().unwrap().1 += 1;
        return hyper::Response::builder()
            .status(400)
            .body(Full::new(Bytes::new()))
            .unwrap();
    };
    let mut spans = kept.lock().unwrap();
    for resource in export.resource_spans {
        let service = resource
            .resource
            .iter()
            .flat_map(|r| &r.attributes)
            .find(|kv| kv.key == "service.name")
            .and_then(|kv| text(kv.value.as_ref()?.value.as_ref()?))
            .unwrap_or_default();
        for scope in resource.scope_spans {
            for span in scope.spans {
                spans.push(Span {
                    service: service.clone(),
                    name: span.name,
                    kind: span.kind,
                    trace_id: hex::encode(&span.trace_id),
                    span_id: hex::encode(&span.span_id),
                    parent_id: hex::encode(&span.parent_span_id),
                    attributes: span
                        .attributes
                        .iter()
                        .filter_map(|kv| {
                            Some((kv.key.clone(), text(kv.value.as_ref()?.value.as_ref()?)?))
                        })
                        .collect(),
                    status: span.status.map_or(0, |s| s.code),
                });
            }
        }
    }
    let answer = ExportTraceServiceResponse::default().encode_to_vec();
    hyper::Response::builder()
        .header("content-type", "application/x-protobuf")
        .body(Full::new(Bytes::from(answer)))
        .unwrap()
}

fn text(value: &Value) -> Option<String> {
    match value {
        Value::StringValue(s) => Some(s.clone()),
        Value::IntValue(i) => Some(i.to_string()),
        Value::BoolValue(b) => Some(b.to_string()),
        _ => None,
    }
}

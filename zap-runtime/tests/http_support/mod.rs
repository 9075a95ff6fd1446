//! Shared by the `http_*` tests: a hand-written [`Service`] (`Calc`), a server started
//! on an ephemeral port, and a raw HTTP/1.1 client over a plain `TcpStream`, so the tests
//! see exactly the bytes on the wire.

#![allow(dead_code)] // each test file uses a different part

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use zap_runtime::http::{CancellationToken, HttpConfig, HttpServer, ServerStats};
use zap_runtime::rpc::Status;
use zap_runtime::ZapStruct;
use zap_runtime::{
    json, Builder, CallError, DecodeBudget, MethodInfo, Object, ObjectBuilder, Reply, Service,
};

/// Request of `calc_add`: two numbers.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Pair {
    #[serde(with = "json::u64_lenient")]
    pub a: u64,
    #[serde(with = "json::u64_lenient")]
    pub b: u64,
}

impl ZapStruct for Pair {
    const NAME: &'static str = "Pair";
    const SIZE: usize = 16;
    const JSON_FIELDS: &'static [&'static str] = &["a", "b"];
    const INLINE: bool = true;
    type Reader<'a> = Object<'a>;
    fn from_reader_in(r: Object<'_>, _: &mut DecodeBudget) -> Self {
        Pair {
            a: r.u64(0),
            b: r.u64(8),
        }
    }
    fn write_fields(&self, obj: &mut ObjectBuilder<'_>) {
        obj.set_u64(0, self.a);
        obj.set_u64(8, self.b);
    }
}

/// One number: the result of `calc_add`, the request of `calc_fail` (a ZAP status) and
/// of `calc_slow` (milliseconds).
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Number {
    #[serde(with = "json::u64_lenient")]
    pub value: u64,
}

impl ZapStruct for Number {
    const NAME: &'static str = "Number";
    const SIZE: usize = 8;
    const JSON_FIELDS: &'static [&'static str] = &["value"];
    const INLINE: bool = true;
    type Reader<'a> = Object<'a>;
    fn from_reader_in(r: Object<'_>, _: &mut DecodeBudget) -> Self {
        Number { value: r.u64(0) }
    }
    fn write_fields(&self, obj: &mut ObjectBuilder<'_>) {
        obj.set_u64(0, self.value);
    }
}

/// A response type whose JSON serialization always fails (its wire form is a
/// [`Number`]'s): what a broken `Serialize` implementation looks like to the server.
#[derive(Debug, Default)]
pub struct Unserializable;

impl Serialize for Unserializable {
    fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom(
            "Unserializable refuses to be JSON",
        ))
    }
}

impl ZapStruct for Unserializable {
    const NAME: &'static str = "Unserializable";
    const SIZE: usize = 8;
    const JSON_FIELDS: &'static [&'static str] = &[];
    const INLINE: bool = true;
    type Reader<'a> = Object<'a>;
    fn from_reader_in(_: Object<'_>, _: &mut DecodeBudget) -> Self {
        Unserializable
    }
    fn write_fields(&self, _: &mut ObjectBuilder<'_>) {}
}

/// How many `calc_slow` calls have started, so a test can wait for one to be in flight.
pub static SLOW_CALLS_STARTED: AtomicUsize = AtomicUsize::new(0);

/// The milliseconds asked of each `calc_slow` call dropped before it finished
/// (cancelled): a test waits for its own value.
pub static SLOW_CALLS_DROPPED: std::sync::Mutex<Vec<u64>> = std::sync::Mutex::new(Vec::new());

/// Records a `calc_slow` call of `.1` ms dropped before it finished.
struct Unfinished(bool, u64);

impl Drop for Unfinished {
    fn drop(&mut self) {
        if !self.0 {
            SLOW_CALLS_DROPPED.lock().unwrap().push(self.1);
        }
    }
}

/// Wait (up to 5 s) until more than `before` `calc_slow` calls have started.
pub async fn wait_for_slow_call(before: usize) {
    let started = async {
        while SLOW_CALLS_STARTED.load(Ordering::SeqCst) <= before {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(5), started)
        .await
        .expect("the slow call starts within 5 s");
}

/// A hand-written service with one method per behaviour the HTTP layer must handle.
#[derive(Debug, Default)]
pub struct Calc;

const fn method(
    ordinal: u32,
    name: &'static str,
    json_name: &'static str,
    request: Option<&'static str>,
    params_to_wire: zap_runtime::service::ParamsToWire,
    result_to_json: zap_runtime::service::ResultToJson,
) -> MethodInfo {
    MethodInfo {
        ordinal,
        permissions: 0,
        name,
        json_name,
        streaming: zap_runtime::stream::Streaming::Unary,
        request,
        response: Some("Number"),
        // The request's fields in declaration order, as zapc generates by default.
        positional: match (request, ordinal) {
            (Some(_), 1) => Pair::JSON_FIELDS,
            (Some(_), _) => Number::JSON_FIELDS,
            (None, _) => &[],
        },
        result_field: None,
        params_to_wire,
        result_to_json,
        subscription: None,
    }
}

impl Service for Calc {
    const NAME: &'static str = "Calc";
    const METHODS: &'static [MethodInfo] = &[
        // a + b (wrapping).
        method(
            1,
            "add",
            "calc_add",
            Some("Pair"),
            json::params_to_wire::<Pair>,
            json::result_to_json::<Number>,
        ),
        // Fails with the ZAP status given as `value`.
        method(
            2,
            "fail",
            "calc_fail",
            Some("Number"),
            json::params_to_wire::<Number>,
            json::result_to_json::<Number>,
        ),
        // No params, no result.
        method(
            3,
            "ping",
            "calc_ping",
            None,
            json::no_params,
            json::no_result,
        ),
        // Sleeps `value` milliseconds, then answers `value`.
        method(
            4,
            "slow",
            "calc_slow",
            Some("Number"),
            json::params_to_wire::<Number>,
            json::result_to_json::<Number>,
        ),
        // Claims a message but writes none.
        method(
            5,
            "broken",
            "calc_broken",
            None,
            json::no_params,
            json::result_to_json::<Number>,
        ),
        // Answers a valid message whose JSON serialization fails.
        method(
            6,
            "unserializable",
            "calc_unserializable",
            None,
            json::no_params,
            json::result_to_json::<Unserializable>,
        ),
        // A server stream of 1, 2, ... `value`, then the end: the subscription
        // `counter` of the `calc` namespace (`calc_subscribe`).
        MethodInfo {
            streaming: zap_runtime::stream::Streaming::Server,
            subscription: Some("counter"),
            ..method(
                7,
                "count",
                "calc_count",
                Some("Number"),
                json::params_to_wire::<Number>,
                json::result_to_json::<Number>,
            )
        },
    ];

    async fn stream(
        self: Arc<Self>,
        ordinal: u32,
        open: bytes::Bytes,
        mut io: zap_runtime::stream::StreamIo,
    ) -> Result<(), CallError> {
        if ordinal != 7 {
            return Err(CallError::unknown_method("Calc", ordinal));
        }
        let count = Number::decode(&open)
            .map_err(|e| CallError::bad_payload("Number", e))?
            .value;
        let mut out = Builder::new();
        for value in 1..=count {
            out.clear();
            Number { value }.encode(&mut out)?;
            io.outbound
                .send(out.as_bytes())
                .await
                .map_err(|e| CallError::new(Status::INTERNAL, format!("the stream closed: {e}")))?;
        }
        Ok(())
    }

    async fn call<'a>(
        &'a self,
        ordinal: u32,
        payload: &'a [u8],
        out: &'a mut Builder,
    ) -> Result<Reply, CallError> {
        let number = || Number::decode(payload).map_err(|e| CallError::bad_payload("Number", e));
        match ordinal {
            1 => {
                let pair = Pair::decode(payload).map_err(|e| CallError::bad_payload("Pair", e))?;
                Number {
                    value: pair.a.wrapping_add(pair.b),
                }
                .encode(out)
                .unwrap();
                Ok(Reply::Message)
            }
            2 => {
                let status = u32::try_from(number()?.value).unwrap_or(u32::MAX);
                Err(CallError::new(
                    Status(status),
                    format!("failing with {status} as asked"),
                ))
            }
            3 => {
                assert!(
                    payload.is_empty(),
                    "a method without params gets no payload"
                );
                // Answer metadata, for a caller that sent a context.
                let _ = zap_runtime::context::Context::current()
                    .set_answer_metadata("served-by", "calc");
                Ok(Reply::Empty)
            }
            4 => {
                let ms = number()?.value;
                SLOW_CALLS_STARTED.fetch_add(1, Ordering::SeqCst);
                let mut running = Unfinished(false, ms);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                running.0 = true;
                Number { value: ms }.encode(out).unwrap();
                Ok(Reply::Message)
            }
            5 => Ok(Reply::Message),
            6 => {
                Number { value: 6 }.encode(out)?;
                Ok(Reply::Message)
            }
            _ => Err(CallError::unknown_method("Calc", ordinal)),
        }
    }
}

/// A running server: its address and counters, and the means to stop it and wait for it.
pub struct Server {
    pub addr: SocketAddr,
    pub stats: ServerStats,
    stop: CancellationToken,
    task: JoinHandle<std::io::Result<()>>,
}

impl Server {
    /// Start `Calc` on 127.0.0.1 on an ephemeral port.
    pub async fn start(config: HttpConfig) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = HttpServer::new(listener, Arc::new(Calc), config);
        let stats = server.stats();
        let stop = CancellationToken::new();
        let task = tokio::spawn(server.run(stop.clone()));
        Server {
            addr,
            stats,
            stop,
            task,
        }
    }

    /// Ask for a graceful shutdown (returns at once).
    pub fn begin_shutdown(&mut self) {
        self.stop.cancel();
    }

    /// Shut down and wait until `serve_http` has returned.
    pub async fn shutdown(mut self) {
        self.begin_shutdown();
        tokio::time::timeout(Duration::from_secs(10), self.task)
            .await
            .expect("serve_http returns after shutdown")
            .expect("the server task does not panic")
            .expect("serve_http returns Ok");
    }

    /// A new raw connection.
    pub async fn connect(&self) -> RawClient {
        RawClient::connect(self.addr).await
    }

    /// POST `body` to /rpc on a new connection; the status and the body as JSON (or
    /// `Value::Null` for an empty body).
    pub async fn rpc(&self, body: &str) -> (u16, Value) {
        let response = self.connect().await.post("/rpc", body).await;
        (response.status, response.json())
    }
}

/// An HTTP response as read off the socket.
#[derive(Debug)]
pub struct HttpResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl HttpResponse {
    /// The first header of this (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON; `Value::Null` when empty.
    pub fn json(&self) -> Value {
        if self.body.is_empty() {
            return Value::Null;
        }
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "body is not JSON ({e}): {:?}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }
}

/// HTTP/1.1 by hand over one TCP connection (keep-alive: several requests in turn).
pub struct RawClient {
    stream: BufReader<TcpStream>,
}

impl RawClient {
    pub async fn connect(addr: SocketAddr) -> RawClient {
        let stream = TcpStream::connect(addr).await.unwrap();
        RawClient {
            stream: BufReader::new(stream),
        }
    }

    /// Write raw bytes.
    pub async fn send(&mut self, bytes: &[u8]) {
        self.stream.get_mut().write_all(bytes).await.unwrap();
    }

    /// POST a JSON body and read the answer.
    pub async fn post(&mut self, path: &str, body: &str) -> HttpResponse {
        self.post_with_headers(path, "", body).await
    }

    /// POST a JSON body with `headers` (whole lines, each ending in CRLF) besides the
    /// usual ones, and read the answer.
    pub async fn post_with_headers(
        &mut self,
        path: &str,
        headers: &str,
        body: &str,
    ) -> HttpResponse {
        self.send_post(path, headers, body).await;
        self.read_response().await
    }

    /// Send a POST of a JSON body with `headers` besides the usual ones; read nothing.
    pub async fn send_post(&mut self, path: &str, headers: &str, body: &str) {
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n{headers}Content-Length: {}\r\n\r\n",
            body.len()
        );
        self.send(head.as_bytes()).await;
        self.send(body.as_bytes()).await;
    }

    /// Read one response (Content-Length framed, as this server always sends), within
    /// five seconds.
    pub async fn read_response(&mut self) -> HttpResponse {
        tokio::time::timeout(Duration::from_secs(5), self.read_response_inner())
            .await
            .expect("a response within 5 s")
    }

    async fn read_response_inner(&mut self) -> HttpResponse {
        let mut status_line = String::new();
        self.stream.read_line(&mut status_line).await.unwrap();
        let status = status_line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("bad status line {status_line:?}"));
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            self.stream.read_line(&mut line).await.unwrap();
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':').expect("header line has a colon");
            headers.push((name.trim().to_string(), value.trim().to_string()));
        }
        let mut response = HttpResponse {
            status,
            headers,
            body: Vec::new(),
        };
        let length: usize = response
            .header("content-length")
            .map(|v| v.parse().unwrap())
            .unwrap_or(0);
        response.body.resize(length, 0);
        self.stream.read_exact(&mut response.body).await.unwrap();
        response
    }

    /// True when the server has closed the connection (reads end of stream within 5 s).
    pub async fn is_closed_by_server(&mut self) -> bool {
        let mut byte = [0u8; 1];
        matches!(
            tokio::time::timeout(Duration::from_secs(5), self.stream.read(&mut byte)).await,
            Ok(Ok(0)) | Ok(Err(_))
        )
    }
}

/// A JSON-RPC request body.
pub fn request(id: Value, method: &str, params: Value) -> String {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// The `error.code` of a response object.
pub fn error_code(response: &Value) -> i64 {
    response["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error response: {response}"))
}

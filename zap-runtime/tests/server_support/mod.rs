//! Shared by the server and client tests: a hand-written `Calc` service, a server on
//! 127.0.0.1:0 with a shutdown switch, and raw-socket helpers for hostile clients.
#![allow(dead_code)] // each test file uses part of it

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use zap_runtime::frame::{encode_frame, Direction, FrameDecoder};
use zap_runtime::rpc::{Request, Response, Status};
use zap_runtime::server::{CancellationToken, Server, ServerConfig, ServerStats};
use zap_runtime::{Builder, CallError, Message, MethodInfo, Reply, Service};

/// Method ordinals of [`Calc`].
pub const ADD: u32 = 1;
pub const FAIL: u32 = 2;
pub const SLOW: u32 = 3;
pub const DOUBLE: u32 = 4;
pub const NOTHING: u32 = 5;
pub const GATED: u32 = 6;

/// A tiny service written by hand against the `Service` contract:
/// 1 add(u64 @0, u64 @8) → {u64 @0}; 2 always 500; 3 sleep(u64 @0 ms) then
/// echo {u64 @8 at @0}; 4 double(u64 @0) → {u64 @0}; 5 → empty body;
/// 6 enter the [`Gate`], wait there until released, then echo {u64 @0}.
#[derive(Default)]
pub struct Calc {
    pub gate: Arc<Gate>,
}

/// Where a `GATED` call stops: the test learns the handler is running (`entered`)
/// and decides when it may finish (`release`), so nothing depends on a clock.
#[derive(Default)]
pub struct Gate {
    entered: Notify,
    release: Notify,
}

impl Gate {
    /// Wait (up to 5 s) until a `GATED` handler is running.
    pub async fn entered(&self) {
        tokio::time::timeout(Duration::from_secs(5), self.entered.notified())
            .await
            .expect("the gated call starts within 5 s");
    }

    /// Let one waiting (or the next) `GATED` handler finish.
    pub fn release(&self) {
        self.release.notify_one();
    }
}

fn parse(payload: &[u8]) -> Result<Message<'_>, CallError> {
    Message::parse(payload)
        .map_err(|e| CallError::bad_request(format!("payload is not a Calc message: {e}")))
}

fn answer(out: &mut Builder, v: u64) -> Result<Reply, CallError> {
    let mut obj = out.start_object(8);
    obj.set_u64(0, v);
    obj.finish_message().unwrap();
    Ok(Reply::Message)
}

impl Service for Calc {
    const NAME: &'static str = "Calc";
    const METHODS: &'static [MethodInfo] = &[];

    async fn call<'a>(
        &'a self,
        ordinal: u32,
        payload: &'a [u8],
        out: &'a mut Builder,
    ) -> Result<Reply, CallError> {
        match ordinal {
            ADD => {
                let m = parse(payload)?.root();
                answer(out, m.u64(0).wrapping_add(m.u64(8)))
            }
            FAIL => Err(CallError::internal("calc: method 2 always fails")),
            SLOW => {
                let m = parse(payload)?.root();
                tokio::time::sleep(Duration::from_millis(m.u64(0))).await;
                answer(out, m.u64(8))
            }
            DOUBLE => answer(out, parse(payload)?.root().u64(0).wrapping_mul(2)),
            NOTHING => Ok(Reply::Empty),
            GATED => {
                let v = parse(payload)?.root().u64(0);
                self.gate.entered.notify_one();
                self.gate.release.notified().await;
                answer(out, v)
            }
            n => Err(CallError::unknown_method(Self::NAME, n)),
        }
    }
}

/// A payload with `a` at 0 and `b` at 8.
pub fn pair(a: u64, b: u64) -> Vec<u8> {
    let mut builder = Builder::new();
    let mut obj = builder.start_object(16);
    obj.set_u64(0, a);
    obj.set_u64(8, b);
    obj.finish_message().unwrap().to_vec()
}

/// The u64 at 0 of a result message (panics on a non-message: tests only).
pub fn value(body: &[u8]) -> u64 {
    Message::parse(body)
        .expect("result is a message")
        .root()
        .u64(0)
}

/// A running server, its counters, its service's gate, and the switch that shuts it
/// down.
pub struct TestServer {
    pub addr: SocketAddr,
    pub stats: ServerStats,
    pub gate: Arc<Gate>,
    stop: CancellationToken,
    task: Option<JoinHandle<io::Result<()>>>,
}

impl TestServer {
    /// Serve `Calc` on 127.0.0.1:0 with `config`.
    pub async fn start(config: ServerConfig) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        TestServer::start_on(listener, config)
    }

    /// Serve `Calc` on `listener` with `config`.
    pub fn start_on(listener: TcpListener, config: ServerConfig) -> TestServer {
        let addr = listener.local_addr().expect("local addr");
        let calc = Calc::default();
        let gate = Arc::clone(&calc.gate);
        let server = Server::new(listener, Arc::new(calc), config);
        let stats = server.stats();
        let stop = CancellationToken::new();
        let task = tokio::spawn(server.run(stop.clone()));
        TestServer {
            addr,
            stats,
            gate,
            stop,
            task: Some(task),
        }
    }

    /// Trigger shutdown (returns at once: the server stops accepting and its
    /// connections finish what they have read).
    pub fn begin_shutdown(&self) {
        self.stop.cancel();
    }

    /// Trigger shutdown and wait (bounded) for `serve` to return.
    pub async fn shutdown(mut self) {
        self.stop.cancel();
        let task = self.task.take().expect("not shut down twice");
        let done = tokio::time::timeout(Duration::from_secs(20), task)
            .await
            .expect("serve returns after shutdown");
        done.expect("serve task").expect("serve result");
    }
}

/// A request frame, for raw sockets.
pub fn request_frame(method: u32, promise_id: u32, target: u32, payload: &[u8]) -> Vec<u8> {
    request_frame_with_cap(method, promise_id, target, payload, b"")
}

/// A request frame carrying `cap` in its `Cap` field.
pub fn request_frame_with_cap(
    method: u32,
    promise_id: u32,
    target: u32,
    payload: &[u8],
    cap: &[u8],
) -> Vec<u8> {
    let mut b = Builder::new();
    let env = Request {
        method,
        promise_id,
        target,
        cap,
        payload,
    }
    .encode(&mut b);
    frame(Direction::Request, env.unwrap())
}

/// A frame around any envelope bytes.
pub fn frame(dir: Direction, envelope: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    encode_frame(&mut out, dir, envelope).expect("frame");
    out
}

/// Decodes answers from any byte stream.
#[derive(Default)]
pub struct Answers {
    buf: Vec<u8>,
    decoder: FrameDecoder,
}

/// One decoded answer: (status, promise id, body).
pub type Answer = (Status, u32, Vec<u8>);

impl Answers {
    /// The next answer read from `r`, or `None` if it closed (or failed) within 5 s.
    pub async fn next<R: AsyncRead + Unpin>(&mut self, r: &mut R) -> Option<Answer> {
        let read = async {
            loop {
                if let Some((f, used)) = self.decoder.decode(&self.buf).expect("server framing") {
                    assert_eq!(f.dir, Direction::Response);
                    let resp = Response::parse(f.envelope).expect("response envelope");
                    let answer = (resp.status, resp.promise_id, resp.body.to_vec());
                    self.buf.drain(..used);
                    return Some(answer);
                }
                let mut chunk = [0u8; 4096];
                match r.read(&mut chunk).await {
                    Ok(0) | Err(_) => return None,
                    Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(5), read)
            .await
            .expect("an answer or a close within 5 s")
    }
}

/// A raw connection reading response frames.
pub struct Raw {
    pub stream: TcpStream,
    answers: Answers,
}

impl Raw {
    pub async fn connect(addr: SocketAddr) -> Raw {
        Raw {
            stream: TcpStream::connect(addr).await.expect("connect"),
            answers: Answers::default(),
        }
    }

    pub async fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).await.expect("send");
    }

    /// The next answer, or `None` if the server closed the connection (within 5 s).
    pub async fn answer(&mut self) -> Option<Answer> {
        self.answers.next(&mut self.stream).await
    }

    /// Whether the server closes the connection (within 5 s) without another answer.
    pub async fn is_closed_by_server(&mut self) -> bool {
        self.answer().await.is_none()
    }
}

/// Poll `condition` every 5 ms until it holds; panic naming `what` if it does not
/// within 5 s.
pub async fn until(what: &str, mut condition: impl FnMut() -> bool) {
    let polled = async {
        while !condition() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(5), polled)
        .await
        .unwrap_or_else(|_| panic!("not within 5 s: {what}"));
}

/// A short config for tests.
pub fn quick_config() -> ServerConfig {
    ServerConfig {
        drain_timeout: Duration::from_secs(5),
        ..ServerConfig::default()
    }
}

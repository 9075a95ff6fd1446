//! The node transport on the ZAP/TCP server's one port: node clients are served next to
//! RPC clients; hostile node streams (garbage instead of a handshake, a huge or broken
//! handshake, none at all, unknown flags, responses, reused reqIDs, short and oversized
//! frames) each close their own connection or get an error answer, while good clients
//! of both framings on other connections keep getting correct answers. Also: the
//! handler sees the peer's NodeID, the server announces its own, and a node connection
//! drains on shutdown like an RPC one.

use crate::server_support;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use server_support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use zap_runtime::client::{Client, ClientConfig};
use zap_runtime::frame::node::{
    encode_handshake, encode_node_frame, Flag, NodeFrame, NodeFrameDecoder, NodeId,
};
use zap_runtime::frame::Framing;
use zap_runtime::rpc::{Request, Response, Status};
use zap_runtime::server::{CallContext, CancellationToken, Server, ServerConfig};
use zap_runtime::{Builder, CallError, MethodInfo, Reply, Service, Transport};

fn node_config(id: &str) -> ClientConfig {
    ClientConfig {
        framing: Framing::Node,
        node_id: NodeId::new(id).unwrap(),
        ..ClientConfig::default()
    }
}

fn handshake(id: &str) -> Vec<u8> {
    let mut out = Vec::new();
    encode_handshake(&mut out, &NodeId::new(id).unwrap());
    out
}

/// A node frame carrying a request envelope.
fn node_request(req_id: u32, method: u32, promise_id: u32, payload: &[u8]) -> Vec<u8> {
    let mut b = Builder::new();
    let env = Request {
        method,
        promise_id,
        target: 0,
        cap: b"",
        payload,
    }
    .encode(&mut b)
    .unwrap();
    let mut out = Vec::new();
    encode_node_frame(&mut out, req_id, Flag::Request, env).unwrap();
    out
}

/// One answer on the node transport: (reqID, status, PromiseID, body).
type NodeAnswer = (u32, Status, u32, Vec<u8>);

/// A raw node-transport connection.
struct NodeRaw {
    stream: TcpStream,
    buf: Vec<u8>,
    decoder: NodeFrameDecoder,
}

impl NodeRaw {
    async fn connect(addr: SocketAddr) -> NodeRaw {
        NodeRaw {
            stream: TcpStream::connect(addr).await.expect("connect"),
            buf: Vec::new(),
            decoder: NodeFrameDecoder::default(),
        }
    }

    /// Connect and exchange handshakes; panics unless the server answers with one.
    async fn greeted(addr: SocketAddr) -> NodeRaw {
        let mut raw = NodeRaw::connect(addr).await;
        raw.send(&handshake("raw")).await;
        assert!(raw.server_handshake().await.is_some(), "server handshake");
        raw
    }

    async fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).await.expect("send");
    }

    /// The next frame from the server, or `None` once it closed (within 5 s).
    async fn next(&mut self) -> Option<NodeFrame<'static>> {
        let read = async {
            loop {
                let decoded = self.decoder.decode(&self.buf).expect("server framing");
                if let Some((frame, used)) = decoded {
                    let frame = match frame {
                        NodeFrame::Handshake(id) => NodeFrame::Handshake(id),
                        NodeFrame::Call(call) => {
                            // Leak the few test envelopes to hand them out as 'static.
                            let envelope: &'static [u8] = call.envelope.to_vec().leak();
                            NodeFrame::Call(zap_runtime::frame::node::Correlated {
                                envelope,
                                ..call
                            })
                        }
                    };
                    self.buf.drain(..used);
                    return Some(frame);
                }
                let mut chunk = [0u8; 4096];
                match self.stream.read(&mut chunk).await {
                    Ok(0) | Err(_) => return None,
                    Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(5), read)
            .await
            .expect("a frame or a close within 5 s")
    }

    async fn server_handshake(&mut self) -> Option<NodeId> {
        match self.next().await? {
            NodeFrame::Handshake(id) => Some(id),
            other => panic!("expected the server's handshake, got {other:?}"),
        }
    }

    async fn answer(&mut self) -> Option<NodeAnswer> {
        match self.next().await? {
            NodeFrame::Call(call) => {
                assert_eq!(call.flag, Flag::Response);
                let resp = Response::parse(call.envelope).expect("response envelope");
                Some((
                    call.req_id,
                    resp.status,
                    resp.promise_id,
                    resp.body.to_vec(),
                ))
            }
            other => panic!("expected an answer, got {other:?}"),
        }
    }

    /// Whether the server closes the connection without sending anything more.
    async fn is_closed_by_server(&mut self) -> bool {
        self.next().await.is_none()
    }
}

/// A client calling ADD in a loop until told to stop; how many calls it made.
fn good_client(client: Client, stop: Arc<AtomicBool>) -> tokio::task::JoinHandle<u64> {
    tokio::spawn(async move {
        let mut i = 0u64;
        while !stop.load(Ordering::Relaxed) {
            let body = client.call(ADD, &pair(i, 1)).await.expect("good call");
            assert_eq!(value(&body), i + 1);
            i += 1;
        }
        i
    })
}

fn hostile_config() -> ServerConfig {
    ServerConfig {
        max_frame: 1 << 16,
        node_max_frame: 1 << 16,
        handshake_timeout: Duration::from_millis(300),
        ..quick_config()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_handshakes_close_only_their_connection() {
    let server = TestServer::start(hostile_config()).await;
    let stop = Arc::new(AtomicBool::new(false));
    let rpc = Client::connect(server.addr).await.unwrap();
    let node = Client::connect_with(server.addr, node_config("good"))
        .await
        .unwrap();
    let good = [
        good_client(rpc, stop.clone()),
        good_client(node, stop.clone()),
    ];
    let hello = handshake("mallory");

    let mut cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "garbage instead of a handshake",
            b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".to_vec(),
        ),
        (
            "a length word of 80, then neither 'Z' nor a direction",
            vec![80, 0, 0, 0, 0],
        ),
        (
            "a handshake announcing a huge length",
            [&u32::MAX.to_le_bytes()[..], b"ZAP\0"].concat(),
        ),
        (
            "a handshake one byte longer than 80",
            [&81u32.to_le_bytes()[..], &hello[4..], &[0][..]].concat(),
        ),
    ];
    // Garbage before the handshake.
    cases.push((
        "garbage before the handshake",
        [&b"xx"[..], &hello].concat(),
    ));
    let mut bad_magic = hello.clone();
    bad_magic[5] = b'Q';
    cases.push(("a handshake with a bad magic", bad_magic));
    for (n, what) in [(0u8, "NodeID length 0"), (61, "NodeID length 61")] {
        let mut bad = hello.clone();
        bad[4 + 16 + 60] = n;
        cases.push((what, bad));
    }
    let mut not_utf8 = hello.clone();
    not_utf8[4 + 16] = 0xff;
    cases.push(("a NodeID that is not UTF-8", not_utf8));
    // Half a handshake and then nothing: the handshake timeout (300 ms) closes it.
    cases.push(("a handshake never finished", hello[..20].to_vec()));

    for (what, bytes) in &cases {
        let mut raw = NodeRaw::connect(server.addr).await;
        raw.send(bytes).await;
        assert!(raw.is_closed_by_server().await, "{what}");
    }

    stop.store(true, Ordering::Relaxed);
    for client in good {
        assert!(client.await.expect("good client") > 0);
    }
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_node_frames_close_only_their_connection() {
    let server = TestServer::start(hostile_config()).await;
    let stop = Arc::new(AtomicBool::new(false));
    let node = Client::connect_with(server.addr, node_config("good"))
        .await
        .unwrap();
    let good = good_client(node, stop.clone());
    let request = node_request(1, ADD, 1, &pair(1, 2));

    let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
    for (flag, what) in [(0u8, "flag 0"), (3, "flag 3"), (255, "flag 255")] {
        let mut bad = request.clone();
        bad[8] = flag;
        cases.push((what, bad));
    }
    let mut response = request.clone();
    response[8] = Flag::Response as u8;
    cases.push(("a response sent to the server", response));
    cases.push((
        "a frame shorter than reqID and flag",
        vec![7, 0, 0, 0, 1, 0, 0],
    ));
    cases.push((
        "a frame over node_max_frame",
        ((1u32 << 16) + 1).to_le_bytes().to_vec(),
    ));
    cases.push(("a second handshake", handshake("again")));

    for (what, bytes) in &cases {
        let mut raw = NodeRaw::greeted(server.addr).await;
        raw.send(bytes).await;
        assert!(raw.is_closed_by_server().await, "{what}");
    }

    // A reqID reused while the first request with it is in flight (both in one write):
    // the first is answered, then the connection is closed.
    let mut raw = NodeRaw::greeted(server.addr).await;
    let mut twice = node_request(5, ADD, 1, &pair(1, 2));
    twice.extend(node_request(5, ADD, 2, &pair(3, 4)));
    raw.send(&twice).await;
    let (req_id, status, _, body) = raw.answer().await.expect("the first is answered");
    assert_eq!((req_id, status, value(&body)), (5, Status::OK, 3));
    assert!(raw.is_closed_by_server().await, "reused reqID");

    // A malformed envelope is answered 400 with its reqID; the connection stays.
    let mut raw = NodeRaw::greeted(server.addr).await;
    let mut junk = Vec::new();
    encode_node_frame(&mut junk, 77, Flag::Request, b"junk").unwrap();
    raw.send(&junk).await;
    let (req_id, status, _, _) = raw.answer().await.expect("an error answer");
    assert_eq!((req_id, status), (77, Status::BAD_REQUEST));
    raw.send(&node_request(78, ADD, 9, &pair(20, 22))).await;
    let (req_id, status, promise_id, body) = raw.answer().await.expect("an answer");
    assert_eq!(
        (req_id, status, promise_id, value(&body)),
        (78, Status::OK, 9, 42)
    );

    stop.store(true, Ordering::Relaxed);
    assert!(good.await.expect("good client") > 0);
    server.shutdown().await;
}

#[tokio::test]
async fn a_node_stream_split_at_every_byte_is_served() {
    let server = TestServer::start(quick_config()).await;
    let mut stream = handshake("dribbler");
    stream.extend(node_request(1, ADD, 10, &pair(1, 2)));
    stream.extend(node_request(u32::MAX, DOUBLE, 11, &pair(21, 0)));
    let mut raw = NodeRaw::connect(server.addr).await;
    for byte in &stream {
        raw.send(std::slice::from_ref(byte)).await;
    }
    assert_eq!(
        raw.server_handshake()
            .await
            .map(|id| id.to_string())
            .as_deref(),
        Some("Calc"),
        "the default NodeID is the service name"
    );
    let (req_id, status, promise_id, body) = raw.answer().await.unwrap();
    assert_eq!(
        (req_id, status, promise_id, value(&body)),
        (1, Status::OK, 10, 3)
    );
    let (req_id, status, promise_id, body) = raw.answer().await.unwrap();
    assert_eq!(
        (req_id, status, promise_id, value(&body)),
        (u32::MAX, Status::OK, 11, 42)
    );
    server.shutdown().await;
}

#[tokio::test]
async fn pipelining_and_errors_on_the_node_transport() {
    let server = TestServer::start(quick_config()).await;
    let client = Client::connect_with(server.addr, node_config("pipeliner"))
        .await
        .unwrap();
    // ADD with PromiseID a, then DOUBLE pipelined on it (Target = a), back to back.
    let a = client.next_promise_id();
    let payload = pair(40, 2);
    let (first, second) = tokio::join!(
        client.call_raw_with_id(a, ADD, 0, &payload),
        client.call_raw(DOUBLE, a, b""),
    );
    assert_eq!(value(&first.unwrap().1), 42);
    assert_eq!(value(&second.unwrap().1), 84);
    let (status, body) = client.call_raw(99, 0, b"").await.unwrap();
    assert_eq!(status, Status::NOT_FOUND);
    assert!(String::from_utf8_lossy(&body).contains("ordinal 99"));
    let (status, _) = client.call_raw(FAIL, 0, b"").await.unwrap();
    assert_eq!(status, Status::INTERNAL);
    server.shutdown().await;
}

/// Answers who is calling, from the call context.
struct Whoami;

impl Service for Whoami {
    const NAME: &'static str = "Whoami";
    const METHODS: &'static [MethodInfo] = &[];

    async fn call<'a>(
        &'a self,
        ordinal: u32,
        _: &'a [u8],
        out: &'a mut Builder,
    ) -> Result<Reply, CallError> {
        if ordinal != 1 {
            return Err(CallError::unknown_method(Self::NAME, ordinal));
        }
        let ctx = CallContext::current().ok_or_else(|| CallError::internal("no context"))?;
        let who = match ctx.peer_node_id() {
            Some(id) => format!("{:?} {id}", ctx.framing()),
            None => format!("{:?}", ctx.framing()),
        };
        let mut obj = out.start_object(8);
        obj.set_text(0, &who);
        obj.finish_message()?;
        Ok(Reply::Message)
    }
}

async fn whoami(client: &Client) -> String {
    let body = client.call(1, b"").await.expect("whoami");
    zap_runtime::Message::parse(&body)
        .unwrap()
        .root()
        .text(0)
        .to_string()
}

#[tokio::test]
async fn handlers_see_the_peer_node_id_and_the_server_announces_its_own() {
    for (configured, announced) in [(None, "Whoami"), (Some("eth-node-1"), "eth-node-1")] {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let config = ServerConfig {
            node_id: configured.map(|id| NodeId::new(id).unwrap()),
            ..quick_config()
        };
        let stop = CancellationToken::new();
        let task = tokio::spawn(Server::new(listener, Arc::new(Whoami), config).run(stop.clone()));

        let node = Client::connect_with(addr, node_config("alice"))
            .await
            .unwrap();
        assert_eq!(node.peer_node_id().unwrap().as_str(), announced);
        assert_eq!(whoami(&node).await, "Node alice");
        let rpc = Client::connect(addr).await.unwrap();
        assert_eq!(rpc.peer_node_id(), None);
        assert_eq!(whoami(&rpc).await, "Rpc");

        stop.cancel();
        task.await.unwrap().unwrap();
    }
    assert_eq!(
        CallContext::current(),
        None,
        "no context outside a connection"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_connection_answers_what_it_read_on_shutdown() {
    let server = TestServer::start(quick_config()).await;
    let client = Client::connect_with(server.addr, node_config("drained"))
        .await
        .unwrap();
    let gated = {
        let client = client.clone();
        tokio::spawn(async move { client.call(GATED, &pair(7, 0)).await })
    };
    server.gate.entered().await;
    server.begin_shutdown();
    server.gate.release();
    let body = gated.await.unwrap().expect("answered during the drain");
    assert_eq!(value(&body), 7);
    server.shutdown().await;
}

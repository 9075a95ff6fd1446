//! The async ZAP/TCP client (feature `client`): one connection shared by any number of
//! concurrent callers, with calls pipelined on it.
//!
//! It speaks either TCP framing ([`ClientConfig::framing`]): the RPC transport, or the
//! node transport of luxfi/zap nodes and TypeScript servers (a NodeID handshake on
//! connect, then each call's reqID is its PromiseID).
//!
//! Every call gets a fresh non-zero PromiseID and a slot in a table of waiting callers;
//! its request frame goes to a writer task that batches frames into few writes; a
//! reader task hands each response to the caller with the same PromiseID. When the
//! connection closes, every waiting caller wakes with [`ClientError::Closed`].
//!
//! [`Client`] implements [`Transport`], so a generated client stub runs on it:
//!
//! ```no_run
//! use zap_runtime::client::Client;
//! use zap_runtime::Transport;
//!
//! # async fn run() -> Result<(), zap_runtime::ClientError> {
//! let client = Client::connect("127.0.0.1:9000").await?;
//! // e.g. `EthClient::new(client.clone())`; or raw:
//! let body = client.call(1, b"").await?;
//! # let _ = body; Ok(())
//! # }
//! ```

pub mod balance;
mod io;
mod node;
pub mod reconnect;
mod shared;

pub use balance::{BalanceConfig, Balanced, EndpointHealth};
pub use reconnect::{Connection, ReconnectConfig, Reconnecting, Retry};

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpStream, ToSocketAddrs};
use tokio::sync::mpsc;
use tokio::time::{timeout, timeout_at, Instant};

use self::shared::{Failure, Shared};
use bytes::Bytes;

use crate::context::CallOptions;
use crate::frame::node::{
    Flag, NodeFrameDecoder, NodeId, NODE_DEFAULT_MAX_FRAME, NODE_FRAME_HEADER,
};
use crate::frame::{Direction, Framing, DEFAULT_MAX_FRAME, FRAME_HEADER};
use crate::frame_reader::FrameReader;
use crate::rpc::{Request, Status, NO_TARGET};
use crate::stream::StreamIo;
use crate::transport::{ClientError, Transport};

/// Settings of a [`Client`].
#[derive(Clone, Debug)]
pub struct ClientConfig {
    /// How long a call waits for its answer (queueing included) before failing with
    /// [`ClientError::Timeout`]. Default 30 s.
    pub call_timeout: Duration,
    /// The deadline of every call, sent to the server as the call's budget (see
    /// [`crate::context`]): the server stops the handler when it passes and answers
    /// "deadline exceeded", and the call gives up then with
    /// [`ClientError::DeadlineExceeded`]. A [`CallOptions`]
    /// scope, and the time left of the call a handler is serving, may shorten it.
    /// Default `None`: calls carry no deadline and wait up to `call_timeout`.
    pub deadline: Option<Duration>,
    /// Largest accepted response frame length; a larger one closes the connection with
    /// [`ClientError::Protocol`]. Default [`DEFAULT_MAX_FRAME`] (16 MiB).
    pub max_frame: u32,
    /// How long [`Client::connect_with`] may take. Default 10 s.
    pub connect_timeout: Duration,
    /// Request frames queued for the writer at most; further callers wait for room.
    /// Default 1024.
    pub max_queued: usize,
    /// The capability sent in every call's `Cap` field (a capability message or chain,
    /// e.g. from `zap_runtime::cap::issue`); empty (the default) sends none.
    pub cap: Vec<u8>,
    /// The framing to speak (`docs/transports.md`): [`Framing::Rpc`] (default) or
    /// [`Framing::Node`], for luxfi/zap nodes and TypeScript servers. On the node
    /// transport each call's reqID is its PromiseID.
    pub framing: Framing,
    /// The NodeID announced in the node transport's handshake. Default `zap-rust-client`.
    pub node_id: NodeId,
    /// Messages each open stream queues for its reader; when full, the connection
    /// stops reading until the reader takes one. Default
    /// [`DEFAULT_STREAM_QUEUE`](crate::stream::DEFAULT_STREAM_QUEUE) (16).
    pub stream_queue: usize,
    /// Largest accepted response frame length on the node transport. Default
    /// [`NODE_DEFAULT_MAX_FRAME`] (10 MiB, the peers' cap).
    pub node_max_frame: u32,
    /// Connect over TLS with these settings (feature `tls`): the roots to trust, the
    /// server name to check, optionally a client certificate. `None` (the default)
    /// connects in plain TCP. The handshake counts against
    /// [`ClientConfig::connect_timeout`]; a failed one fails the connect.
    #[cfg(feature = "tls")]
    pub tls: Option<crate::tls::ClientTls>,
}

/// The NodeID a client announces unless configured otherwise.
const CLIENT_NODE_ID: NodeId = NodeId::from_static("zap-rust-client");

impl Default for ClientConfig {
    fn default() -> Self {
        ClientConfig {
            call_timeout: Duration::from_secs(30),
            deadline: None,
            max_frame: DEFAULT_MAX_FRAME,
            connect_timeout: Duration::from_secs(10),
            max_queued: 1024,
            cap: Vec::new(),
            framing: Framing::Rpc,
            node_id: CLIENT_NODE_ID,
            stream_queue: crate::stream::DEFAULT_STREAM_QUEUE,
            node_max_frame: NODE_DEFAULT_MAX_FRAME,
            #[cfg(feature = "tls")]
            tls: None,
        }
    }
}

/// A pipelined ZAP/TCP connection. Cloning is cheap and shares the connection; it is
/// closed when the last clone is dropped.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    queue: mpsc::Sender<Vec<u8>>,
    shared: Arc<Shared>,
    next_id: AtomicU32,
    config: ClientConfig,
    peer: SocketAddr,
    peer_node_id: Option<NodeId>,
    #[cfg(feature = "tls")]
    tls: Option<crate::tls::TlsInfo>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.shared
            .close(Failure::Closed("the client was dropped".into()));
    }
}

impl core::fmt::Debug for Client {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Client")
            .field("peer", &self.inner.peer)
            .field("closed", &self.is_closed())
            .finish_non_exhaustive()
    }
}

/// The error of a connect that took longer than `config.connect_timeout`.
fn connect_timed_out(config: &ClientConfig) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::TimedOut,
        format!("connecting took longer than {:?}", config.connect_timeout),
    )
}

impl Client {
    /// Connect with the default [`ClientConfig`].
    pub async fn connect(addr: impl ToSocketAddrs) -> std::io::Result<Client> {
        Client::connect_with(addr, ClientConfig::default()).await
    }

    /// Connect with `config`. Must be called within a tokio runtime (it spawns the
    /// connection's reader and writer tasks). With [`ClientConfig::tls`] the TLS
    /// handshake runs before the first call, within the same connect timeout.
    pub async fn connect_with(
        addr: impl ToSocketAddrs,
        config: ClientConfig,
    ) -> std::io::Result<Client> {
        let deadline = Instant::now() + config.connect_timeout;
        let timed_out = || connect_timed_out(&config);
        let stream = timeout_at(deadline, TcpStream::connect(addr))
            .await
            .map_err(|_| timed_out())??;
        stream.set_nodelay(true)?;
        let peer = stream.peer_addr()?;
        #[cfg(feature = "tls")]
        if let Some(tls) = &config.tls {
            let (mut stream, info) = timeout_at(deadline, tls.connect(stream))
                .await
                .map_err(|_| timed_out())??;
            let node = Client::node_handshake(&mut stream, &config).await?;
            let (rd, wr) = tokio::io::split(stream);
            return Ok(Client::start(rd, wr, peer, config, node, Some(info)));
        }
        Client::plain(stream, TcpStream::into_split, peer, config).await
    }

    /// Connect to a server on the unix socket `path` (`server::UnixServer`), with
    /// `config`: the same calls, pipelining and streams as over TCP. A unix socket has
    /// no peer address: [`Client::peer_addr`] is the unspecified `0.0.0.0:0`. TLS does not
    /// apply to it, so a `config` asking for TLS is refused rather than ignored.
    #[cfg(unix)]
    pub async fn connect_unix(
        path: impl AsRef<std::path::Path>,
        config: ClientConfig,
    ) -> std::io::Result<Client> {
        #[cfg(feature = "tls")]
        if config.tls.is_some() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "TLS over a unix socket is not supported: the socket file's permissions \
                 guard it; connect without ClientConfig::tls",
            ));
        }
        let path = path.as_ref();
        let stream = timeout_at(
            Instant::now() + config.connect_timeout,
            tokio::net::UnixStream::connect(path),
        )
        .await
        .map_err(|_| connect_timed_out(&config))?
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        let peer = SocketAddr::from(([0, 0, 0, 0], 0));
        Client::plain(stream, tokio::net::UnixStream::into_split, peer, config).await
    }

    /// A client over a connected stream without TLS: the node handshake when the
    /// framing asks for it, then the stream's two halves (`split`) to the reader and
    /// writer tasks.
    async fn plain<St, R, W>(
        mut stream: St,
        split: impl FnOnce(St) -> (R, W),
        peer: SocketAddr,
        config: ClientConfig,
    ) -> std::io::Result<Client>
    where
        St: AsyncRead + AsyncWrite + Unpin,
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let node = Client::node_handshake(&mut stream, &config).await?;
        let (rd, wr) = split(stream);
        Ok(Client::start(
            rd,
            wr,
            peer,
            config,
            node,
            #[cfg(feature = "tls")]
            None,
        ))
    }

    /// On the node transport, the NodeID handshake (over TLS when configured): the
    /// frame reader it leaves and the server's NodeID. `None` on the RPC transport.
    async fn node_handshake<St: AsyncRead + AsyncWrite + Unpin>(
        stream: &mut St,
        config: &ClientConfig,
    ) -> std::io::Result<Option<(FrameReader<NodeFrameDecoder>, NodeId)>> {
        match config.framing {
            Framing::Rpc => Ok(None),
            Framing::Node => node::handshake(stream, config).await.map(Some),
        }
    }

    /// Spawn the reader and writer tasks of a connected stream.
    fn start<R, W>(
        rd: R,
        wr: W,
        peer: SocketAddr,
        config: ClientConfig,
        node: Option<(FrameReader<NodeFrameDecoder>, NodeId)>,
        #[cfg(feature = "tls")] tls: Option<crate::tls::TlsInfo>,
    ) -> Client
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let max_message = config
            .max_frame
            .saturating_sub(crate::stream::MESSAGE_OVERHEAD) as usize;
        let shared = Arc::new(Shared::new(max_message, config.stream_queue));
        let (queue, queued) = mpsc::channel(config.max_queued.max(1));
        tokio::spawn(io::write_loop(wr, queued, Arc::clone(&shared)));
        let reader = Arc::clone(&shared);
        let peer_node_id = node.as_ref().map(|(_, id)| *id);
        match node {
            None => tokio::spawn(io::read_loop(
                rd,
                reader,
                FrameReader::new(config.max_frame),
            )),
            Some((frames, _)) => tokio::spawn(io::read_loop(rd, reader, frames)),
        };
        Client {
            inner: Arc::new(Inner {
                queue,
                shared,
                next_id: AtomicU32::new(1),
                config,
                peer,
                peer_node_id,
                #[cfg(feature = "tls")]
                tls,
            }),
        }
    }

    /// What the TLS handshake negotiated (version, cipher suite, key exchange group:
    /// `X25519MLKEM768` by default), or `None` for a plain TCP connection.
    #[cfg(feature = "tls")]
    pub fn tls_info(&self) -> Option<&crate::tls::TlsInfo> {
        self.inner.tls.as_ref()
    }

    /// The server's address.
    pub fn peer_addr(&self) -> SocketAddr {
        self.inner.peer
    }

    /// The NodeID the server announced (node transport only).
    pub fn peer_node_id(&self) -> Option<NodeId> {
        self.inner.peer_node_id
    }

    /// Whether the connection is closed (every further call fails with
    /// [`ClientError::Closed`]).
    pub fn is_closed(&self) -> bool {
        self.inner.shared.is_closed()
    }

    /// Resolves once the connection is closed (by either side, or a failed socket).
    pub async fn closed(&self) {
        self.inner.shared.closed.cancelled().await;
    }

    /// Take a fresh PromiseID (never 0; wraps after 2³² − 1 calls). Use it with
    /// [`Client::call_raw_with_id`] to know a call's id before it is answered, so a
    /// later call can pipeline on it (its `target`).
    pub fn next_promise_id(&self) -> u32 {
        loop {
            let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
            if id != NO_TARGET {
                return id;
            }
        }
    }

    /// Call method `ordinal` with `payload`, pipelined on the result of promise `target`
    /// (0 for none). Returns the status and body as answered: a non-200 status is not
    /// turned into an error.
    pub async fn call_raw(
        &self,
        ordinal: u32,
        target: u32,
        payload: &[u8],
    ) -> Result<(Status, Vec<u8>), ClientError> {
        self.call_raw_with_id(self.next_promise_id(), ordinal, target, payload)
            .await
    }

    /// As [`Client::call_raw`], with a PromiseID of the caller's choosing (from
    /// [`Client::next_promise_id`]; it must not be in flight already). PromiseID 0 is
    /// sent as given, and a server answers it 400.
    pub async fn call_raw_with_id(
        &self,
        promise_id: u32,
        ordinal: u32,
        target: u32,
        payload: &[u8],
    ) -> Result<(Status, Vec<u8>), ClientError> {
        let (status, body) = self
            .call_raw_bytes_with_id(promise_id, ordinal, target, payload)
            .await?;
        crate::copies::note(body.len());
        Ok((status, Vec::from(body)))
    }

    /// As [`Client::call_raw`], with the body as [`Bytes`]: a slice of the connection's
    /// read buffer, not a copy (keeping it keeps that block of the buffer alive).
    pub async fn call_raw_bytes(
        &self,
        ordinal: u32,
        target: u32,
        payload: &[u8],
    ) -> Result<(Status, Bytes), ClientError> {
        self.call_raw_bytes_with_id(self.next_promise_id(), ordinal, target, payload)
            .await
    }

    /// As [`Client::call_raw_with_id`], with the body as [`Bytes`] (see
    /// [`Client::call_raw_bytes`]).
    pub async fn call_raw_bytes_with_id(
        &self,
        promise_id: u32,
        ordinal: u32,
        target: u32,
        payload: &[u8],
    ) -> Result<(Status, Bytes), ClientError> {
        let request = Request {
            method: ordinal,
            promise_id,
            target,
            cap: &self.inner.config.cap,
            payload,
        };
        let head = match self.inner.config.framing {
            Framing::Rpc => FrameHead::Rpc,
            Framing::Node => FrameHead::Node { req_id: promise_id },
        };
        let (frame, budget) = self.outgoing(&request, head)?;
        // The call waits for its answer until its deadline, or `call_timeout` if that
        // comes first.
        let call_timeout = self.inner.config.call_timeout;
        let (wait, timed_out) = match budget {
            Some(budget) if budget <= call_timeout => {
                (budget, ClientError::DeadlineExceeded(budget))
            }
            _ => (call_timeout, ClientError::Timeout(call_timeout)),
        };
        let deadline = Instant::now() + wait;
        let shared = &self.inner.shared;
        let answer = shared.register(promise_id)?;
        let mut abandon = Abandon {
            shared,
            promise_id,
            tell: None,
        };
        match timeout_at(deadline, self.inner.queue.send(frame)).await {
            Err(_) => return Err(timed_out),
            Ok(Err(_)) => {
                return Err(ClientError::Closed(
                    "the connection's writer stopped".into(),
                ))
            }
            Ok(Ok(())) => {}
        }
        // Sent: a caller that stops waiting from here on tells the server (RPC framing).
        if self.inner.config.framing == Framing::Rpc {
            abandon.tell = Some(&self.inner.queue);
        }
        match timeout_at(deadline, answer).await {
            Err(_) => Err(timed_out),
            Ok(Err(_)) => Err(ClientError::Closed(String::new())),
            Ok(Ok(answer)) => match answer {
                Ok((status, body, metadata)) => {
                    if let Some(metadata) = metadata {
                        CallOptions::deliver_answer(*metadata);
                    }
                    Ok((status, body))
                }
                Err(failure) => Err(failure.to_error()),
            },
        }
    }

    /// Open a stream of method `ordinal` with the opening message `open` (dir 3, with
    /// a fresh PromiseID as the stream id and the configured capability): its two
    /// directions, raw. Generated stubs wrap them in typed halves. The server ends a
    /// stream it does not serve at once (unknown method, refused capability), which
    /// the receiving half sees as an end with no message. The RPC framing only.
    pub async fn open_stream(&self, ordinal: u32, open: &[u8]) -> Result<StreamIo, ClientError> {
        if self.inner.config.framing != Framing::Rpc {
            return Err(ClientError::Protocol(
                "streams need the RPC framing; the node transport has none".into(),
            ));
        }
        let id = self.next_promise_id();
        let request = Request {
            method: ordinal,
            promise_id: id,
            target: NO_TARGET,
            cap: &self.inner.config.cap,
            payload: open,
        };
        // A deadline and metadata travel with the open as with a call; the stream then
        // ends on both sides when the deadline passes.
        let (frame, budget) = self.outgoing(&request, FrameHead::StreamOpen)?;
        let mut io = self.inner.shared.open_stream(id)?;
        if let Some(budget) = budget {
            io.set_deadline(Instant::now() + budget);
        }
        let sent = timeout(self.inner.config.call_timeout, self.inner.queue.send(frame)).await;
        match sent {
            Ok(Ok(())) => Ok(io),
            Ok(Err(_)) => Err(ClientError::Closed(
                "the connection's writer stopped".into(),
            )),
            Err(_) => Err(ClientError::Timeout(self.inner.config.call_timeout)),
        }
    }

    /// The request frame, written straight into one vector of its exact size (the
    /// payload copied once, no builder taken: a generated stub already holds the
    /// thread's warm one for the payload), followed by the call context extension when
    /// the call carries a deadline or metadata, or reads answer metadata; and the call's
    /// budget.
    fn outgoing(
        &self,
        request: &Request<'_>,
        head: FrameHead,
    ) -> Result<(Vec<u8>, Option<Duration>), ClientError> {
        CallOptions::with_outgoing(self.inner.config.deadline, |budget, metadata, answer| {
            let extension =
                (budget.is_some() || !metadata.is_empty() || answer).then_some((budget, metadata));
            Ok((request_frame(request, head, extension)?, budget))
        })
    }
}

/// How a request frame is framed.
#[derive(Clone, Copy)]
enum FrameHead {
    /// `[len][dir 1]`.
    Rpc,
    /// `[len][dir 3]`: a stream open.
    StreamOpen,
    /// `[len][reqID][flag 1]`.
    Node { req_id: u32 },
}

/// A call context extension to append after the envelope: the budget and the metadata.
type Extension<'a> = Option<(Option<Duration>, &'a crate::context::Metadata)>;

/// `request` as a frame: the bytes of `Request::encode` framed by `encode_frame` or
/// `encode_node_frame` (checked by a test), without an intermediate builder, and
/// followed by `extension` when there is one (`crate::context`).
fn request_frame(
    request: &Request<'_>,
    head: FrameHead,
    extension: Extension<'_>,
) -> Result<Vec<u8>, ClientError> {
    use crate::rpc::request as at;
    const FIXED: usize = crate::HEADER_SIZE + at::SIZE;
    let too_large = || {
        ClientError::Protocol(format!(
            "cannot send the call: a request of {} bytes does not fit a frame",
            request.payload.len().saturating_add(request.cap.len())
        ))
    };
    let message = FIXED
        .checked_add(request.cap.len())
        .and_then(|n| n.checked_add(request.payload.len()))
        .and_then(|n| u32::try_from(n).ok())
        .filter(|&n| n as usize <= crate::Builder::MAX_LEN)
        .ok_or_else(too_large)?;
    let head_len = match head {
        FrameHead::Rpc | FrameHead::StreamOpen => FRAME_HEADER,
        FrameHead::Node { .. } => NODE_FRAME_HEADER,
    };
    let extra = extension.map_or(0, |(budget, metadata)| {
        crate::context::extension_len(budget, metadata)
    });
    let frame_len = message
        .checked_add((head_len - 4) as u32)
        .and_then(|n| n.checked_add(u32::try_from(extra).ok()?))
        .ok_or_else(too_large)?;
    let mut out = Vec::with_capacity(head_len + message as usize + extra);
    out.extend_from_slice(&frame_len.to_le_bytes());
    match head {
        FrameHead::Rpc => out.push(Direction::Request as u8),
        FrameHead::StreamOpen => out.push(Direction::StreamOpen as u8),
        FrameHead::Node { req_id } => {
            out.extend_from_slice(&req_id.to_le_bytes());
            out.extend_from_slice(&(Flag::Request as u32).to_le_bytes());
        }
    }
    let mut fixed = [0u8; FIXED];
    crate::wire::Header {
        version: crate::VERSION2,
        flags: crate::rpc::RPC_FLAGS,
        root: crate::HEADER_SIZE as u32,
        size: message,
    }
    .write(&mut fixed);
    let mut put = |pos: usize, bytes: &[u8]| fixed[pos..pos + bytes.len()].copy_from_slice(bytes);
    let obj = crate::HEADER_SIZE;
    put(obj + at::METHOD, &request.method.to_le_bytes());
    put(obj + at::PROMISE_ID, &request.promise_id.to_le_bytes());
    put(obj + at::TARGET, &request.target.to_le_bytes());
    // Payloads follow the fixed section in setter order (cap, then payload), each slot
    // holding the distance from itself to its payload.
    let mut data_at = FIXED;
    for (slot, data) in [(at::CAP, request.cap), (at::PAYLOAD, request.payload)] {
        if data.is_empty() {
            continue;
        }
        let slot = obj + slot;
        put(slot, &((data_at - slot) as u32).to_le_bytes());
        put(slot + 4, &(data.len() as u32).to_le_bytes());
        data_at += data.len();
    }
    out.extend_from_slice(&fixed);
    out.extend_from_slice(request.cap);
    crate::copies::note(request.payload.len());
    out.extend_from_slice(request.payload);
    if let Some((budget, metadata)) = extension {
        crate::context::write_extension(&mut out, budget, metadata);
    }
    Ok(out)
}

/// Removes a caller's table entry if it stops waiting before its answer arrives (its
/// future dropped, its timeout or deadline passed), and then, once the call was sent,
/// tells the server with a cancel frame (dir 6) so that it stops the handler. The frame
/// is queued without waiting: when the writer's queue is full it is not sent, and the
/// server answers the call for nobody.
struct Abandon<'a> {
    shared: &'a Shared,
    promise_id: u32,
    tell: Option<&'a mpsc::Sender<Vec<u8>>>,
}

impl Drop for Abandon<'_> {
    fn drop(&mut self) {
        if self.shared.abandon(self.promise_id) {
            if let Some(queue) = self.tell {
                let _ = queue.try_send(cancel_frame(self.promise_id));
            }
        }
    }
}

/// `[len 5][dir 6][promiseID]`: the caller gave up on call `promise_id`.
fn cancel_frame(promise_id: u32) -> Vec<u8> {
    let mut frame = Vec::with_capacity(FRAME_HEADER + 4);
    frame.extend_from_slice(&5u32.to_le_bytes());
    frame.push(Direction::Cancel as u8);
    frame.extend_from_slice(&promise_id.to_le_bytes());
    frame
}

impl Transport for Client {
    /// Call without pipelining; a non-200 answer becomes [`ClientError::App`] for an
    /// application error, else [`ClientError::Status`] with the body as its message.
    async fn call(&self, ordinal: u32, payload: &[u8]) -> Result<Vec<u8>, ClientError> {
        let body = self.call_bytes(ordinal, payload).await?;
        crate::copies::note(body.len());
        Ok(Vec::from(body))
    }

    /// As [`Transport::call`], the body a slice of the read buffer (no copy).
    async fn call_bytes(&self, ordinal: u32, payload: &[u8]) -> Result<Bytes, ClientError> {
        let (status, body) = self.call_raw_bytes(ordinal, NO_TARGET, payload).await?;
        if status == Status::OK {
            Ok(body)
        } else {
            Err(ClientError::from_answer(status, &body))
        }
    }

    async fn open_stream(&self, ordinal: u32, open: &[u8]) -> Result<StreamIo, ClientError> {
        Client::open_stream(self, ordinal, open).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::encode_frame;
    use crate::frame::node::encode_node_frame;
    use crate::Builder;

    /// The frame written by hand is the builder's envelope in the encoders' framing.
    #[test]
    fn request_frame_matches_builder_and_encoders() {
        let big = vec![7u8; 300];
        for cap in [&b""[..], b"token"] {
            for payload in [&b""[..], b"x", &big[..]] {
                let req = Request {
                    method: 3,
                    promise_id: 77,
                    target: 5,
                    cap,
                    payload,
                };
                let mut b = Builder::new();
                let env = req.encode(&mut b).unwrap().to_vec();
                let mut rpc = Vec::new();
                encode_frame(&mut rpc, Direction::Request, &env).unwrap();
                let mut node = Vec::new();
                encode_node_frame(&mut node, 77, Flag::Request, &env).unwrap();
                assert_eq!(request_frame(&req, FrameHead::Rpc, None).unwrap(), rpc);
                let ours = request_frame(&req, FrameHead::Node { req_id: 77 }, None).unwrap();
                assert_eq!(ours, node);
            }
        }
    }
}

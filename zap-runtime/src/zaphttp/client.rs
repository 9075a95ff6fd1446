//! The zaphttp client: a tower service of `http::Request` over a pool of kept-alive
//! connections, as Go's `Transport`.

use std::fmt;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{Request, Response};
use http_body::Body as HttpBody;
use http_body_util::BodyExt;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;

use super::codec::Frame;
use super::convert::{decode_response, decode_response_head, encode_request, header_map};
use super::io::{write_all, FrameReader, Waits};
use super::{Body, BoxError, Error, FrameError};

/// Where a zaphttp server listens: `HOST:PORT` over TCP, or a unix socket path
/// (`unix:PATH`, or any address with a `/` in it).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Address {
    /// `HOST:PORT`.
    Tcp(String),
    /// A socket file.
    Unix(PathBuf),
}

impl FromStr for Address {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s.strip_prefix("unix:") {
            Some(path) => Address::Unix(path.into()),
            None if s.contains('/') => Address::Unix(s.into()),
            None => Address::Tcp(s.to_owned()),
        })
    }
}

impl From<&str> for Address {
    fn from(s: &str) -> Self {
        match s.parse() {
            Ok(address) => address,
            Err(never) => match never {},
        }
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Address::Tcp(a) => f.write_str(a),
            Address::Unix(p) => write!(f, "unix:{}", p.display()),
        }
    }
}

/// Limits and timeouts of a [`Client`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientConfig {
    /// How long a connection may take to open (default 10 s, as Go).
    pub connect_timeout: Duration,
    /// How long each frame of an answer may take (default 30 s, as Go's response-read
    /// timeout): a server that answers nothing fails the call after this.
    pub read_timeout: Duration,
    /// How long a request may wait to be taken by the server (default 30 s).
    pub write_stall_timeout: Duration,
    /// Most idle connections kept for reuse (default 32, as Go); more are closed.
    pub max_idle: usize,
    /// An idle connection unused this long is closed rather than reused (default 60 s).
    pub idle_timeout: Duration,
    /// Largest frame read (default [`MAX_FRAME`](super::MAX_FRAME)).
    pub max_frame: usize,
}

impl Default for ClientConfig {
    fn default() -> Self {
        ClientConfig {
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(30),
            write_stall_timeout: Duration::from_secs(30),
            max_idle: 32,
            idle_timeout: Duration::from_secs(60),
            max_frame: super::MAX_FRAME,
        }
    }
}

/// A zaphttp client: `tower::Service<http::Request<B>>` answering
/// `http::Response<`[`Body`]`>`, usable where a hyper client is. Cheap to clone; the
/// clones share one pool of connections. Each call takes an idle connection (or opens
/// one), sends its request, reads the answer and gives the connection back; a streamed
/// answer's body holds its connection until its end frame is read.
///
/// ```no_run
/// # async fn doc() -> Result<(), zap_runtime::zaphttp::Error> {
/// use http_body_util::BodyExt;
/// use zap_runtime::zaphttp::{Body, Client};
///
/// let client = Client::new("127.0.0.1:9653");
/// let request = http::Request::get("/health").body(Body::empty()).unwrap();
/// let response = client.send(request).await?;
/// let body = response.into_body().collect().await?.to_bytes();
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Client {
    shared: Arc<Shared>,
}

struct Shared {
    address: Address,
    config: ClientConfig,
    idle: Mutex<Vec<Conn>>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("address", &self.shared.address)
            .field("config", &self.shared.config)
            .finish_non_exhaustive()
    }
}

trait Io: AsyncRead + AsyncWrite + Send + Unpin {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin> Io for T {}

struct Conn {
    io: Box<dyn Io>,
    reader: FrameReader,
    out: Vec<u8>,
    since: Instant,
    reused: bool,
}

impl Client {
    /// A client of the server at `address` with the default limits. Nothing is opened
    /// until the first call.
    pub fn new(address: impl Into<Address>) -> Self {
        Client::with_config(address, ClientConfig::default())
    }

    /// A client of the server at `address` with these limits.
    pub fn with_config(address: impl Into<Address>, config: ClientConfig) -> Self {
        Client {
            shared: Arc::new(Shared {
                address: address.into(),
                config,
                idle: Mutex::new(Vec::new()),
            }),
        }
    }

    /// The server's address.
    pub fn address(&self) -> &Address {
        &self.shared.address
    }

    /// Close every idle connection (those in use close when their exchange ends).
    pub fn close_idle(&self) {
        self.idle().clear();
    }

    fn idle(&self) -> std::sync::MutexGuard<'_, Vec<Conn>> {
        self.shared.idle.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Send `request` (its body read whole first: zaphttp sends request bodies in one
    /// frame) and return the response once its head has arrived. A request on a reused
    /// connection that the server had closed is sent again on a new one if its method is
    /// idempotent.
    pub async fn send<B>(&self, request: Request<B>) -> Result<Response<Body>, Error>
    where
        B: HttpBody,
        B::Error: Into<BoxError>,
    {
        let (parts, body) = request.into_parts();
        let collected = body.collect().await.map_err(|e| Error::Body(e.into()))?;
        let trailers = collected.trailers().cloned();
        let body = collected.to_bytes();
        let mut request = Vec::with_capacity(128 + body.len());
        encode_request(&mut request, &parts, &body, trailers.as_ref());
        if request.len() - 4 > self.shared.config.max_frame {
            return Err(Error::TooLarge {
                len: (request.len() - 4) as u64,
                max: self.shared.config.max_frame,
            });
        }
        let idempotent = parts.method.is_idempotent();
        loop {
            let conn = self.connection().await?;
            let reused = conn.reused;
            match self.exchange(conn, &request).await {
                Err((Error::Closed(_), true)) if reused && idempotent => continue,
                Err((e, _)) => return Err(e),
                Ok(response) => return Ok(response),
            }
        }
    }

    async fn connection(&self) -> Result<Conn, Error> {
        let config = &self.shared.config;
        {
            let mut idle = self.idle();
            while let Some(mut conn) = idle.pop() {
                if conn.since.elapsed() < config.idle_timeout {
                    conn.reused = true;
                    return Ok(conn);
                }
            }
        }
        let io: Box<dyn Io> = match &self.shared.address {
            Address::Tcp(address) => {
                let stream = tokio::time::timeout(
                    config.connect_timeout,
                    tokio::net::TcpStream::connect(address.as_str()),
                )
                .await
                .map_err(|_| Error::Timeout("connecting"))??;
                let _ = stream.set_nodelay(true);
                Box::new(stream)
            }
            #[cfg(unix)]
            Address::Unix(path) => Box::new(
                tokio::time::timeout(
                    config.connect_timeout,
                    tokio::net::UnixStream::connect(path),
                )
                .await
                .map_err(|_| Error::Timeout("connecting"))??,
            ),
            #[cfg(not(unix))]
            Address::Unix(_) => {
                return Err(Error::Invalid("unix sockets need a unix system".into()));
            }
        };
        Ok(Conn {
            io,
            reader: FrameReader::new(config.max_frame),
            out: Vec::new(),
            since: Instant::now(),
            reused: false,
        })
    }

    fn give_back(shared: &Shared, mut conn: Conn) {
        if conn.reader.buffered() != 0 {
            return; // bytes past the answer: the connection is not in a known state
        }
        conn.since = Instant::now();
        conn.out.clear();
        let mut idle = shared.idle.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < shared.config.max_idle {
            idle.push(conn);
        }
    }

    /// One exchange on `conn`. On failure, whether nothing of an answer had arrived.
    async fn exchange(
        &self,
        mut conn: Conn,
        request: &[u8],
    ) -> Result<Response<Body>, (Error, bool)> {
        let config = &self.shared.config;
        write_all(&mut conn.io, request, config.write_stall_timeout)
            .await
            .map_err(|e| match e {
                Error::Io(_) => (Error::Closed("before the request was sent"), true),
                e => (e, false),
            })?;
        let waits = Waits {
            first: Some(config.read_timeout),
            rest: config.read_timeout,
        };
        let frame = match conn.reader.next(&mut conn.io, waits, None).await {
            Ok(Some(frame)) => frame,
            Ok(None) => return Err((Error::Closed("before answering"), true)),
            Err(Error::Io(e)) if e.kind() == std::io::ErrorKind::ConnectionReset => {
                return Err((Error::Closed("before answering"), true))
            }
            Err(e) => return Err((e, false)),
        };
        let parsed = Frame::parse(&frame).map_err(|e| (Error::Frame(e), false))?;
        match parsed {
            Frame::Response(parts) => {
                let response = decode_response(&frame, parts).map_err(|e| (e, false))?;
                drop(frame);
                Client::give_back(&self.shared, conn);
                Ok(response)
            }
            Frame::ResponseHead(parts) => {
                let head = decode_response_head(&frame, &parts).map_err(|e| (e, false))?;
                let (chunks, body) = mpsc::channel(4);
                let shared = Arc::clone(&self.shared);
                tokio::spawn(stream_body(shared, conn, chunks));
                head.body(Body::chunks(body))
                    .map_err(|e| (Error::Invalid(e.to_string()), false))
            }
            other => Err((
                Error::Frame(FrameError::Unexpected {
                    want: "response",
                    got: other.kind(),
                }),
                false,
            )),
        }
    }
}

/// Read a streamed answer's data frames into `chunks` until its end frame, then give
/// the connection back; a body dropped before the end closes it.
async fn stream_body(
    shared: Arc<Shared>,
    mut conn: Conn,
    chunks: mpsc::Sender<Result<http_body::Frame<Bytes>, Error>>,
) {
    let waits = Waits {
        first: Some(shared.config.read_timeout),
        rest: shared.config.read_timeout,
    };
    loop {
        let next = tokio::select! {
            () = chunks.closed() => return,
            next = conn.reader.next(&mut conn.io, waits, None) => next,
        };
        let frame = match next {
            Ok(Some(frame)) => frame,
            Ok(None) => {
                let _ = chunks
                    .send(Err(Error::Closed("in the middle of a streamed body")))
                    .await;
                return;
            }
            Err(e) => {
                let _ = chunks.send(Err(e)).await;
                return;
            }
        };
        let sent = match Frame::parse(&frame) {
            Ok(Frame::Data([])) => continue,
            Ok(Frame::Data(chunk)) => {
                chunks
                    .send(Ok(http_body::Frame::data(frame.slice_ref(chunk))))
                    .await
            }
            Ok(Frame::End(pairs)) => {
                let trailers = header_map(&frame, pairs, "trailer");
                let end = match trailers {
                    Ok(t) if t.is_empty() => None,
                    Ok(t) => Some(Ok(http_body::Frame::trailers(t))),
                    Err(e) => Some(Err(e)),
                };
                let clean = !matches!(end, Some(Err(_)));
                if let Some(end) = end {
                    let _ = chunks.send(end).await;
                }
                if clean {
                    drop(frame);
                    Client::give_back(&shared, conn);
                }
                return;
            }
            Ok(other) => {
                let e = Error::Frame(FrameError::Unexpected {
                    want: "data or end",
                    got: other.kind(),
                });
                let _ = chunks.send(Err(e)).await;
                return;
            }
            Err(e) => {
                let _ = chunks.send(Err(Error::Frame(e))).await;
                return;
            }
        };
        if sent.is_err() {
            return; // the body was dropped: the connection closes with this task
        }
    }
}

impl<B> tower::Service<Request<B>> for Client
where
    B: HttpBody + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    type Response = Response<Body>;
    type Error = Error;
    type Future = Pin<Box<dyn Future<Output = Result<Response<Body>, Error>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let client = self.clone();
        Box::pin(async move { client.send(request).await })
    }
}

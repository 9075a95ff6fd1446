//! Both framings on one port: a connection's decoder decides its framing from the first
//! bytes (`frame::detect`), and [`open`] completes the node transport's handshake
//! before any call is served.

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::time::{sleep_until, timeout_at, Instant};
use tokio_util::sync::CancellationToken;

use super::conn::Close;
use super::ServerConfig;
use crate::frame::node::{encode_handshake, NodeFrame, NodeFrameDecoder, NodeFrameError, NodeId};
use crate::frame::{detect, Frame, FrameDecode, FrameDecoder, Framing, UnknownFraming};
use crate::frame_reader::FrameReader;
use crate::FrameError;

/// The NodeID a server announces when its configuration names none and the service
/// name is empty.
const FALLBACK_NODE_ID: NodeId = NodeId::from_static("zap-server");

/// The server's NodeID for service `name`: the configured one, else the name (cut to
/// 60 bytes).
pub(crate) fn server_node_id(configured: Option<NodeId>, name: &str) -> NodeId {
    configured.unwrap_or_else(|| NodeId::truncated(name, FALLBACK_NODE_ID))
}

/// A connection's decoder: undecided until its first 5 bytes are in, then the decoder
/// of its framing.
#[derive(Debug)]
pub(crate) enum ConnDecoder {
    Detect { max_frame: u32, node_max_frame: u32 },
    Rpc(FrameDecoder),
    Node(NodeFrameDecoder),
}

/// A frame of either framing.
#[derive(Debug)]
pub(crate) enum ConnFrame<'a> {
    Rpc(Frame<'a>),
    Node(NodeFrame<'a>),
}

/// Why a connection's bytes cannot be decoded.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConnError {
    #[error(transparent)]
    Detect(#[from] UnknownFraming),
    #[error(transparent)]
    Rpc(#[from] FrameError),
    #[error(transparent)]
    Node(#[from] NodeFrameError),
}

impl ConnDecoder {
    pub(crate) fn new(config: &ServerConfig) -> Self {
        ConnDecoder::Detect {
            max_frame: config.max_frame,
            node_max_frame: config.node_max_frame,
        }
    }

    /// The framing, deciding it if `prefix` (the first bytes of the connection) is
    /// long enough and it is not decided yet.
    fn detect(&mut self, prefix: &[u8]) -> Result<Option<Framing>, UnknownFraming> {
        if let Some(framing) = self.framing() {
            return Ok(Some(framing));
        }
        let framing = detect(prefix)?;
        if let Some(framing) = framing {
            self.decide(framing);
        }
        Ok(framing)
    }

    /// Use the decoder of `framing` (once, while undecided).
    fn decide(&mut self, framing: Framing) {
        if let ConnDecoder::Detect {
            max_frame,
            node_max_frame,
        } = *self
        {
            *self = match framing {
                Framing::Rpc => ConnDecoder::Rpc(FrameDecoder::new(max_frame)),
                Framing::Node => ConnDecoder::Node(NodeFrameDecoder::new(node_max_frame)),
            };
        }
    }

    fn framing(&self) -> Option<Framing> {
        match self {
            ConnDecoder::Detect { .. } => None,
            ConnDecoder::Rpc(_) => Some(Framing::Rpc),
            ConnDecoder::Node(_) => Some(Framing::Node),
        }
    }
}

impl FrameDecode for ConnDecoder {
    type Frame<'a> = ConnFrame<'a>;
    type Error = ConnError;

    fn decode<'a>(&mut self, buf: &'a [u8]) -> Result<Option<(ConnFrame<'a>, usize)>, ConnError> {
        if self.detect(buf)?.is_none() {
            return Ok(None);
        }
        Ok(match self {
            ConnDecoder::Rpc(d) => d.decode(buf)?.map(|(f, n)| (ConnFrame::Rpc(f), n)),
            ConnDecoder::Node(d) => d.decode(buf)?.map(|(f, n)| (ConnFrame::Node(f), n)),
            ConnDecoder::Detect { .. } => None,
        })
    }
}

/// Read until the connection's framing is known and, on the node transport, the
/// peer's handshake is in; then answer it with ours. Returns the peer's NodeID (node
/// transport) or `None` (RPC transport: nothing consumed).
///
/// The first 5 bytes must come within `first_bytes_timeout`; a node handshake, once
/// begun, must be complete within `handshake_timeout`.
pub(crate) async fn open<St: AsyncRead + AsyncWrite + Unpin>(
    frames: &mut FrameReader<ConnDecoder>,
    stream: &mut St,
    config: &ServerConfig,
    shutdown: &CancellationToken,
) -> Result<Option<NodeId>, Close> {
    let mut deadline = Instant::now() + config.first_bytes_timeout;
    let mut timed_out = Close::FirstBytes;
    loop {
        let framing = match frames.decoder.framing() {
            Some(framing) => Some(framing),
            None => detect(frames.unread()).map_err(|e| Close::Frame(e.into()))?,
        };
        if let Some(framing) = framing {
            frames.decoder.decide(framing);
        }
        match framing {
            Some(Framing::Rpc) => return Ok(None),
            Some(Framing::Node) => {
                if matches!(timed_out, Close::FirstBytes) {
                    deadline = Instant::now() + config.handshake_timeout;
                    timed_out = Close::HandshakeTimeout;
                }
                match frames.next_frame() {
                    Err(e) => return Err(Close::Frame(e)),
                    Ok(Some(ConnFrame::Node(NodeFrame::Handshake(peer)))) => {
                        answer_handshake(stream, config, deadline).await?;
                        return Ok(Some(peer));
                    }
                    // The node decoder yields the handshake first, or nothing.
                    Ok(Some(_)) => return Err(Close::Unexpected("a frame before the handshake")),
                    Ok(None) => {}
                }
            }
            None => {}
        }
        tokio::select! {
            biased;
            () = shutdown.cancelled() => return Err(Close::Shutdown),
            () = sleep_until(deadline) => return Err(timed_out),
            read = frames.read_from(stream) => match read {
                Ok(0) => return Err(Close::Eof { pending: frames.pending() }),
                Ok(_) => {}
                Err(e) => return Err(Close::Io(e)),
            },
        }
    }
}

/// Send our handshake, before `deadline`.
async fn answer_handshake<St: AsyncWrite + Unpin>(
    stream: &mut St,
    config: &ServerConfig,
    deadline: Instant,
) -> Result<(), Close> {
    let mut hello = Vec::with_capacity(84);
    let ours = config.node_id.unwrap_or(FALLBACK_NODE_ID);
    encode_handshake(&mut hello, &ours);
    match timeout_at(deadline, stream.write_all(&hello)).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(Close::Io(e)),
        Err(_) => Err(Close::WriteStalled),
    }
}

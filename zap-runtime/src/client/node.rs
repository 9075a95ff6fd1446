//! The client side of the node transport: the NodeID handshake on connect, and the
//! reader's view of node frames (answers are matched by reqID, which this client sets to
//! the call's PromiseID).

use std::io;

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};

use super::io::{Received, ResponseFrames};
use super::shared::Failure;
use super::ClientConfig;
use crate::frame::node::{encode_handshake, Flag, NodeFrame, NodeFrameDecoder, NodeId};
use crate::frame_reader::FrameReader;

/// Send our handshake and read the server's (within the connect timeout). Returns the
/// reader, holding whatever arrived after the server's handshake, and the server's
/// NodeID.
pub(crate) async fn handshake<St: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut St,
    config: &ClientConfig,
) -> io::Result<(FrameReader<NodeFrameDecoder>, NodeId)> {
    let exchange = async {
        let mut hello = Vec::with_capacity(84);
        encode_handshake(&mut hello, &config.node_id);
        stream.write_all(&hello).await?;
        let mut frames = FrameReader::with_decoder(NodeFrameDecoder::new(config.node_max_frame));
        loop {
            let peer = match frames.next_frame() {
                Ok(Some(NodeFrame::Handshake(peer))) => Some(peer),
                Ok(Some(NodeFrame::Call(_))) | Ok(None) => None,
                Err(e) => return Err(invalid(format!("node transport handshake: {e}"))),
            };
            if let Some(peer) = peer {
                return Ok((frames, peer));
            }
            if frames.read_from(stream).await? == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the server closed the connection during the node transport handshake",
                ));
            }
        }
    };
    tokio::time::timeout(config.connect_timeout, exchange)
        .await
        .map_err(|_| {
            io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "the node transport handshake took longer than {:?}",
                    config.connect_timeout
                ),
            )
        })?
}

fn invalid(why: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why)
}

impl ResponseFrames for NodeFrameDecoder {
    fn classify<'a>(frame: Self::Frame<'a>) -> Result<Received<'a>, Failure> {
        match frame {
            NodeFrame::Call(call) if call.flag == Flag::Response => Ok(Received::Response {
                req_id: Some(call.req_id),
                envelope: call.envelope,
            }),
            NodeFrame::Call(call) => Err(Failure::Protocol(format!(
                "server sent a request (flag 1, reqID {}); this client does not serve calls",
                call.req_id
            ))),
            NodeFrame::Handshake(_) => Err(Failure::Protocol(
                "server sent a second node handshake".into(),
            )),
        }
    }
}

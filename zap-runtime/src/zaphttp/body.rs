//! The body of a zaphttp request or response: whole (what one frame carries) or
//! streamed (the data frames of a streamed response, as they arrive).

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::HeaderMap;
use http_body::{Frame, SizeHint};
use tokio::sync::mpsc;

use super::Error;

/// The body of a request a [`Server`](super::Server) hands its service, and of a
/// response a [`Client`](super::Client) returns: an [`http_body::Body`] of [`Bytes`].
///
/// A body that came in one frame is whole (its [`size_hint`](http_body::Body::size_hint)
/// is exact, and its trailers follow its data). A streamed response's body yields each
/// data frame as it arrives, then the end frame's trailers; the connection it is read
/// from goes back to the client's pool once the end frame is read, and is closed if the
/// body is dropped before.
#[derive(Debug, Default)]
pub struct Body {
    inner: Inner,
}

#[derive(Debug, Default)]
enum Inner {
    #[default]
    Empty,
    Whole {
        data: Option<Bytes>,
        trailers: Option<HeaderMap>,
    },
    Chunks(mpsc::Receiver<Result<Frame<Bytes>, Error>>),
}

impl Body {
    /// A body with no bytes.
    pub fn empty() -> Self {
        Body::default()
    }

    /// A whole body with these bytes and trailers.
    pub fn whole(data: Bytes, trailers: Option<HeaderMap>) -> Self {
        Body {
            inner: Inner::Whole {
                data: (!data.is_empty()).then_some(data),
                trailers: trailers.filter(|t| !t.is_empty()),
            },
        }
    }

    /// A streamed body fed by `chunks`.
    pub(crate) fn chunks(chunks: mpsc::Receiver<Result<Frame<Bytes>, Error>>) -> Self {
        Body {
            inner: Inner::Chunks(chunks),
        }
    }
}

impl From<Bytes> for Body {
    fn from(data: Bytes) -> Self {
        Body::whole(data, None)
    }
}

impl From<Vec<u8>> for Body {
    fn from(data: Vec<u8>) -> Self {
        Body::whole(data.into(), None)
    }
}

impl From<String> for Body {
    fn from(data: String) -> Self {
        Body::whole(data.into(), None)
    }
}

impl From<&'static str> for Body {
    fn from(data: &'static str) -> Self {
        Body::whole(Bytes::from_static(data.as_bytes()), None)
    }
}

impl From<&'static [u8]> for Body {
    fn from(data: &'static [u8]) -> Self {
        Body::whole(Bytes::from_static(data), None)
    }
}

impl http_body::Body for Body {
    type Data = Bytes;
    type Error = Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Error>>> {
        match &mut self.get_mut().inner {
            Inner::Empty => Poll::Ready(None),
            Inner::Whole { data, trailers } => Poll::Ready(match data.take() {
                Some(data) => Some(Ok(Frame::data(data))),
                None => trailers.take().map(|t| Ok(Frame::trailers(t))),
            }),
            Inner::Chunks(chunks) => chunks.poll_recv(cx),
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.inner {
            Inner::Empty => true,
            Inner::Whole { data, trailers } => data.is_none() && trailers.is_none(),
            Inner::Chunks(_) => false,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.inner {
            Inner::Empty => SizeHint::with_exact(0),
            Inner::Whole { data, .. } => {
                SizeHint::with_exact(data.as_ref().map_or(0, |d| d.len() as u64))
            }
            Inner::Chunks(_) => SizeHint::default(),
        }
    }
}

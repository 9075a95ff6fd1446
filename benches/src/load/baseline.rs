//! The two baselines the example server is measured against, on the same runtime:
//!
//! * [`serve_echo`]: a bare length-delimited echo over tokio. It reads frames with the
//!   same `[len u32 LE][payload]` framing as ZAP/TCP and writes each one back unchanged:
//!   the cost of framing and socket I/O with no typed decode and no handler.
//! * [`serve_fixed_http`]: a bare hyper HTTP/1.1 server answering every request with
//!   [`FIXED_BODY`] (it reads the request body first, as any handler must).

use std::convert::Infallible;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the hyper baseline answers: the example server's answer for the first account.
pub const FIXED_BODY: &str = r#"{"jsonrpc":"2.0","result":"0x58b6e1eccdd9d27e","id":1}"#;

/// Largest frame the echo server accepts (as the ZAP server's default).
const MAX_FRAME: usize = 16 << 20;

/// Accept connections forever, echoing frames on each.
pub async fn serve_echo(listener: TcpListener) -> std::io::Result<()> {
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        tokio::spawn(echo(stream));
    }
}

/// Echo every complete frame in each read back in one write, like the ZAP server's
/// read/answer/flush loop without the answering.
async fn echo(mut stream: TcpStream) -> std::io::Result<()> {
    let mut read = Vec::with_capacity(16 << 10);
    let mut write = Vec::with_capacity(16 << 10);
    loop {
        if read.capacity() - read.len() < 4096 {
            read.reserve(4096);
        }
        if stream.read_buf(&mut read).await? == 0 {
            return Ok(());
        }
        let mut pos = 0;
        while let Some(len) = read.get(pos..pos + 4) {
            let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
            if len == 0 || len > MAX_FRAME {
                return Err(std::io::Error::other("bad frame length"));
            }
            let Some(frame) = read.get(pos..pos + 4 + len) else {
                break;
            };
            write.extend_from_slice(frame);
            pos += 4 + len;
        }
        read.drain(..pos);
        if !write.is_empty() {
            stream.write_all(&write).await?;
            write.clear();
        }
    }
}

/// Accept connections forever, answering HTTP/1.1 requests with [`FIXED_BODY`].
pub async fn serve_fixed_http(listener: TcpListener) -> std::io::Result<()> {
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        tokio::spawn(async move {
            let service = service_fn(|req: hyper::Request<hyper::body::Incoming>| async move {
                // Read the request as a handler would; a broken body still gets the answer.
                let _ = req.into_body().collect().await;
                let mut resp =
                    hyper::Response::new(Full::new(Bytes::from_static(FIXED_BODY.as_bytes())));
                resp.headers_mut().insert(
                    hyper::header::CONTENT_TYPE,
                    hyper::header::HeaderValue::from_static("application/json"),
                );
                Ok::<_, Infallible>(resp)
            });
            let _ = http1::Builder::new()
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

//! JSON-RPC over a unix socket, as Ethereum nodes serve it (geth's `--ipcpath`): the
//! client writes JSON values one after another on the stream (a request, a batch),
//! with or without whitespace between them; the server answers each with one JSON
//! value and a newline, and writes subscription notifications between the answers, as
//! over WebSocket. web3.py's `IPCProvider` and `AsyncIPCProvider` and ethers'
//! `IpcSocketProvider` speak it.
//!
//! The socket file is created with mode 0600 (only its owner connects) unless told
//! otherwise, and appears at its path with that mode already set (it is bound under a
//! temporary name first). A socket file left by a killed server is replaced; one a
//! live server listens on is not (binding fails); any other file at the path is left
//! alone (binding fails). The file is removed when the server stops, if it is still
//! the one it bound.
//!
//! A session has the WebSocket session's limits (`HttpConfig::max_body` per value,
//! `max_batch`, `max_answer`, `ws_max_subscriptions`, `ws_idle_timeout`): a value past
//! `max_body`, or bytes that are not a JSON object or array, are answered with a
//! JSON-RPC error (id null) and the connection is closed, since the stream cannot be
//! resynchronised; a client that sends nothing, or reads nothing, for the idle timeout
//! is disconnected. IPC carries no headers, so a caller presents no capability: a
//! server that requires capabilities (`HttpConfig::authorize`) refuses every IPC call,
//! and access is the socket file's permissions.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::BytesMut;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::UnixListener;
use tokio_util::sync::CancellationToken;

use super::ws::{Live, Settings};
use super::HttpConfig;
use crate::jsonrpc::{code, handle_jsonrpc_for, BodyLimits, Caller};
use crate::service::Service;
use crate::BuilderPool;

/// How long a session closed for a bad value reads what the client still sends, so
/// that the close does not reset the connection under its answer.
const LINGER: std::time::Duration = std::time::Duration::from_secs(1);

pub use crate::unix_socket::DEFAULT_MODE;

/// A JSON-RPC server on a unix socket; see the [module documentation](self).
pub struct IpcServer<S> {
    listener: UnixListener,
    path: PathBuf,
    /// The socket file bound, to remove only that one.
    identity: crate::unix_socket::Identity,
    service: Arc<S>,
    config: HttpConfig,
    stats: crate::accept::ServerStats,
}

impl<S> std::fmt::Debug for IpcServer<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IpcServer")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl<S: Service> IpcServer<S> {
    /// Listen on the unix socket `path` (mode [`DEFAULT_MODE`]), serving `service` with
    /// the limits of `config` (those of its WebSocket sessions).
    pub fn bind(path: impl AsRef<Path>, service: Arc<S>, config: HttpConfig) -> io::Result<Self> {
        Self::bind_with_mode(path, service, config, DEFAULT_MODE)
    }

    /// As [`bind`](Self::bind), with the socket file's permission bits (`0o660` lets
    /// the owner's group connect too).
    pub fn bind_with_mode(
        path: impl AsRef<Path>,
        service: Arc<S>,
        config: HttpConfig,
        mode: u32,
    ) -> io::Result<Self> {
        let path = path.as_ref().to_path_buf();
        let (listener, identity) = crate::unix_socket::bind(&path, mode)?;
        Ok(IpcServer {
            listener,
            identity,
            path,
            service,
            config,
            stats: crate::accept::ServerStats::default(),
        })
    }

    /// The socket's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The live counters of this server (open, accepted and refused sessions, bytes).
    pub fn stats(&self) -> crate::accept::ServerStats {
        self.stats.clone()
    }

    /// Serve until `shutdown`: then stop accepting, remove the socket file, and give
    /// the sessions `HttpConfig::drain_timeout` to answer what they have read.
    pub async fn run(self, shutdown: CancellationToken) -> io::Result<()> {
        let IpcServer {
            listener,
            path,
            identity,
            service,
            config,
            stats,
        } = self;
        let settings = Settings::of(&config);
        let socket = crate::unix_socket::Bound {
            listener,
            path,
            identity,
        };
        crate::unix_socket::serve(
            socket,
            "IPC",
            (config.max_connections, config.drain_timeout),
            &stats,
            shutdown,
            || {},
            |stream, shutdown| {
                let service = Arc::clone(&service);
                let (authorize, load_limit) = (config.authorize.clone(), config.load_limit.clone());
                serve(service, stream, settings, authorize, load_limit, shutdown)
            },
        )
        .await;
        Ok(())
    }
}

/// Where the next JSON value of a stream ends.
#[derive(Default)]
struct Values {
    /// Bytes of the buffer looked at already (of the value being read).
    scanned: usize,
    depth: usize,
    in_string: bool,
    escaped: bool,
}

/// What [`Values::next`] found.
#[derive(Debug, PartialEq)]
enum Next {
    /// The buffer holds `skip` bytes of whitespace, then a whole value of `len` bytes.
    Value { skip: usize, len: usize },
    /// Only part of one (or whitespace): read more.
    More,
    /// Not a JSON object or array.
    NotJson,
}

impl Values {
    /// The next value in `buf` (whose first `scanned` bytes were looked at before).
    fn next(&mut self, buf: &[u8]) -> Next {
        let skip = buf
            .iter()
            .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
            .unwrap_or(buf.len());
        let value = &buf[skip..];
        let Some(&first) = value.first() else {
            return Next::More;
        };
        if self.scanned == 0 && first != b'{' && first != b'[' {
            return Next::NotJson;
        }
        for (i, &b) in value.iter().enumerate().skip(self.scanned) {
            if self.in_string {
                match (self.escaped, b) {
                    (true, _) => self.escaped = false,
                    (false, b'\\') => self.escaped = true,
                    (false, b'"') => self.in_string = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        *self = Values::default();
                        return Next::Value { skip, len: i + 1 };
                    }
                }
                _ => {}
            }
        }
        self.scanned = value.len();
        Next::More
    }

    /// Bytes of the value being read so far.
    fn pending(&self) -> usize {
        self.scanned
    }
}

/// Serve one IPC connection until either side closes it, it idles, or shutdown.
async fn serve<S: Service, IO>(
    service: Arc<S>,
    stream: IO,
    settings: Settings,
    authorize: Option<crate::service::Authorizer>,
    load_limit: Option<crate::shed::LoadLimit>,
    shutdown: CancellationToken,
) where
    IO: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + 'static,
{
    let (mut rd, mut wr) = tokio::io::split(stream);
    let pool = BuilderPool::new();
    let mut live = Live::new(Arc::clone(&service), &settings);
    let outbox = live.outbox();
    let caller = Caller {
        authorize: authorize.as_ref(),
        // No headers: no capability is presented.
        cap: Ok(&[]),
        context: None,
        load_limit: load_limit.as_ref(),
    };
    let limits = BodyLimits {
        max_batch: settings.max_batch,
        max_answer: settings.max_answer,
    };
    let mut buf = BytesMut::with_capacity(4096);
    let mut values = Values::default();
    let mut out: Vec<u8> = Vec::new();
    let mut frames = Vec::new();
    let idle = tokio::time::sleep(settings.idle_timeout);
    tokio::pin!(idle);
    loop {
        // Answer every whole value read; a stream that is not JSON values ends here.
        let mut fatal = None;
        loop {
            match values.next(&buf) {
                Next::Value { skip, len } => {
                    let _ = buf.split_to(skip);
                    let value = buf.split_to(len).freeze();
                    let answer = handle_jsonrpc_for(
                        &*service,
                        &pool,
                        &value,
                        limits,
                        &caller,
                        Some(&mut live),
                    )
                    .await;
                    if let Some(answer) = answer {
                        out.extend_from_slice(&answer);
                        out.push(b'\n');
                    }
                }
                Next::More if values.pending() > settings.max_message => {
                    fatal = Some((
                        code::INVALID_REQUEST,
                        format!(
                            "Invalid request: a JSON value over this server's limit of {} bytes",
                            settings.max_message
                        ),
                    ));
                    break;
                }
                Next::More => {
                    // Whitespace before the next value is not kept.
                    if values.pending() == 0 {
                        buf.clear();
                    }
                    break;
                }
                Next::NotJson => {
                    fatal = Some((
                        code::PARSE_ERROR,
                        "Parse error: expected a JSON object or array (a request or a batch)"
                            .to_owned(),
                    ));
                    break;
                }
            }
        }
        if let Some((code, message)) = fatal {
            let error = serde_json::json!({
                "jsonrpc": "2.0",
                "id": null,
                "error": {"code": code, "message": message},
            });
            let _ = serde_json::to_writer(&mut out, &error);
            out.push(b'\n');
            let _ = write_out(&mut wr, &mut out, settings).await;
            // Closing with unread input would reset the connection and could destroy
            // the answer: stop writing, then read what is still coming, briefly.
            let _ = wr.shutdown().await;
            let _ = tokio::time::timeout(LINGER, async {
                let mut sink = [0u8; 4096];
                while let Ok(1..) = rd.read(&mut sink).await {}
            })
            .await;
            break;
        }
        if write_out(&mut wr, &mut out, settings).await.is_err() {
            break;
        }
        tokio::select! {
            () = shutdown.cancelled() => break,
            () = &mut idle => {
                tracing::debug!("IPC: closing a session that sent nothing within the idle timeout");
                break;
            }
            read = rd.read_buf(&mut buf) => match read {
                Ok(0) | Err(_) => break,
                Ok(_) => idle.as_mut().reset(tokio::time::Instant::now() + settings.idle_timeout),
            },
            () = outbox.ready() => {
                frames.clear();
                if outbox.take_into(&mut frames) {
                    for text in live.notifications(&frames) {
                        out.extend_from_slice(text.as_bytes());
                        out.push(b'\n');
                    }
                }
            }
        }
    }
    outbox.close("the IPC session ended");
    live.abort_all();
    let _ = wr.shutdown().await;
}

/// Write `out` whole, within the idle timeout (a client that reads nothing is
/// disconnected), and clear it.
async fn write_out(
    wr: &mut (impl tokio::io::AsyncWrite + Unpin),
    out: &mut Vec<u8>,
    settings: Settings,
) -> io::Result<()> {
    if out.is_empty() {
        return Ok(());
    }
    match tokio::time::timeout(settings.idle_timeout, wr.write_all(out)).await {
        Ok(written) => {
            out.clear();
            written
        }
        Err(_) => Err(io::Error::new(
            io::ErrorKind::TimedOut,
            "the client read nothing within the idle timeout",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(input: &[u8]) -> (Vec<String>, Next) {
        let mut values = Values::default();
        let mut buf = input.to_vec();
        let mut found = Vec::new();
        loop {
            match values.next(&buf) {
                Next::Value { skip, len } => {
                    found.push(String::from_utf8(buf[skip..skip + len].to_vec()).unwrap());
                    buf.drain(..skip + len);
                }
                other => return (found, other),
            }
        }
    }

    #[test]
    fn values_are_split_where_they_end() {
        let (found, rest) = split(b"{\"a\":\"}]\\\"\"}\n[{\"b\":[1,{}]}]  {\"c\":\"\\\\\"}{\"d\"");
        assert_eq!(
            found,
            ["{\"a\":\"}]\\\"\"}", "[{\"b\":[1,{}]}]", "{\"c\":\"\\\\\"}"]
        );
        assert_eq!(rest, Next::More);
        assert_eq!(split(b" \n").1, Next::More);
        assert_eq!(split(b"42").1, Next::NotJson);
        assert_eq!(split(b"{} x").1, Next::NotJson);
    }

    #[test]
    fn a_value_read_in_pieces_is_scanned_once() {
        let mut values = Values::default();
        let whole = b"{\"method\":\"eth_chainId\",\"params\":[\"]\"]}";
        for end in 1..whole.len() {
            assert_eq!(values.next(&whole[..end]), Next::More, "{end}");
        }
        assert_eq!(
            values.next(whole),
            Next::Value {
                skip: 0,
                len: whole.len()
            }
        );
    }
}

//! JSON-RPC over WebSocket on the HTTP port: a `GET` with `Upgrade: websocket` on a
//! JSON-RPC path (`/` or `/rpc`) becomes a session that answers every message (text or
//! binary, as geth reads them) as a JSON-RPC body (a request or a batch) with a text
//! message, through the same code as `POST`, and carries
//! subscriptions: `eth_subscribe` opens a server stream of the service, whose messages
//! go out as `<namespace>_subscription` notifications (`eth_subscription` for `eth`).
//!
//! The upgrade is checked as a `POST` is (Host, and the capability of its
//! `Authorization` header, which every call of the session presents), plus the origin:
//! a browser's `Origin` must be this server's own (its explorer page) or among
//! [`HttpConfig::cors_origins`]. The framing is tokio-tungstenite's.
//!
//! Limits: a message (reassembled from its fragments) and a frame at most
//! [`HttpConfig::max_body`]; at most [`HttpConfig::ws_max_subscriptions`] live
//! subscriptions; what subscriptions send waits in a per-session outbox of 256 KiB,
//! past which their handlers wait (a stream's `send` does not return); a client that
//! does not read its frames is disconnected once a write has stalled for
//! [`HttpConfig::write_stall_timeout`]. A ping goes out every
//! [`HttpConfig::ws_ping_interval`]; a session from which nothing (not even a pong) has
//! arrived for [`HttpConfig::ws_idle_timeout`] is closed. Every subscription ends when
//! its session does; on shutdown the server closes sessions with code 1001.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
// The timer's clock, so that the idle check and the ping ticks agree (also under a
// paused or mocked clock).
use tokio::time::Instant;

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Request, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::task::{AbortHandle, JoinSet};
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Role, WebSocketConfig};
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};
use tokio_tungstenite::WebSocketStream;
use tokio_util::sync::CancellationToken;

use super::routes::{Reply, Shared};
use super::{browser, HttpConfig};
use crate::frame::Direction;
use crate::jsonrpc::{self, code, handle_jsonrpc_for, BodyLimits, Caller, RpcError, Subscriptions};
use crate::service::{MethodInfo, Service};
use crate::stream::{queue, Incoming as StreamIncoming, Outbox, StreamIo};
use crate::BuilderPool;

/// The framing's read buffer, per session.
const READ_BUFFER: usize = 4 << 10;

/// Bytes the subscriptions of one session may have waiting to be written.
const OUTBOX_LIMIT: usize = 256 << 10;

/// A session to run once the connection has been handed over, after the 101.
pub(super) type Session = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Where the route leaves a connection's session for the connection's task to run
/// (so the session counts as the connection it is, for limits and draining).
pub(super) type SessionSlot = Arc<Mutex<Option<Session>>>;

/// Whether `req` asks for a WebSocket.
pub(super) fn is_upgrade(req: &Request<Incoming>) -> bool {
    let has = |name, token: &str| {
        req.headers().get_all(name).iter().any(|v| {
            v.to_str()
                .is_ok_and(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case(token)))
        })
    };
    has(header::UPGRADE, "websocket") && has(header::CONNECTION, "upgrade")
}

/// Whether the page asking is this server's own (the explorer): `Origin` names the host
/// the request is addressed to.
fn same_origin(headers: &hyper::HeaderMap) -> bool {
    let (Some(origin), Some(host)) = (headers.get(header::ORIGIN), headers.get(header::HOST))
    else {
        return false;
    };
    let (Ok(origin), Ok(host)) = (origin.to_str(), host.to_str()) else {
        return false;
    };
    let rest = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"));
    rest.is_some_and(|rest| rest.eq_ignore_ascii_case(host))
}

/// Answer a WebSocket upgrade: 101 and the session left in `slot`, or the refusal.
/// `cap` is the capability the upgrade presented (or why it could not be read).
///
/// The metadata of the upgrade's `Zap-Meta-*` headers (a token, a tenant) is the
/// metadata of every call of the session; a `Zap-Timeout-Ms` header does not apply to
/// them (a session has no deadline).
pub(super) fn upgrade<S: Service>(
    shared: &Shared<S>,
    mut req: Request<Incoming>,
    cap: Result<Vec<u8>, &'static str>,
    metadata: Option<crate::context::Metadata>,
    slot: &SessionSlot,
    shutdown: &CancellationToken,
) -> Reply {
    let config = &shared.config;
    if !config.websocket {
        return super::routes::text(
            StatusCode::BAD_REQUEST,
            "this server does not accept WebSocket connections: POST JSON-RPC requests instead\n"
                .to_owned(),
        );
    }
    if req.headers().contains_key(header::ORIGIN)
        && !same_origin(req.headers())
        && browser::allowed_origin(&config.cors_origins, req.headers()).is_none()
    {
        return super::routes::text(
            StatusCode::FORBIDDEN,
            "WebSocket connections are not allowed from this origin: it is not among the server's CORS origins\n"
                .to_owned(),
        );
    }
    let version_ok = req
        .headers()
        .get(header::SEC_WEBSOCKET_VERSION)
        .is_some_and(|v| v.as_bytes() == b"13");
    if !version_ok {
        let mut reply = super::routes::text(
            StatusCode::UPGRADE_REQUIRED,
            "this server speaks WebSocket version 13 (RFC 6455) only\n".to_owned(),
        );
        reply.headers_mut().insert(
            header::SEC_WEBSOCKET_VERSION,
            HeaderValue::from_static("13"),
        );
        return reply;
    }
    let Some(key) = req.headers().get(header::SEC_WEBSOCKET_KEY) else {
        return super::routes::text(
            StatusCode::BAD_REQUEST,
            "a WebSocket upgrade needs a Sec-WebSocket-Key header\n".to_owned(),
        );
    };
    let accept = derive_accept_key(key.as_bytes());
    let on_upgrade = hyper::upgrade::on(&mut req);
    let session = Settings::of(config);
    let service = Arc::clone(&shared.service);
    let authorize = config.authorize.clone();
    let load_limit = config.load_limit.clone();
    let shutdown = shutdown.clone();
    let run = async move {
        let upgraded = match on_upgrade.await {
            Ok(upgraded) => upgraded,
            Err(e) => {
                tracing::debug!("WebSocket upgrade failed: {e}");
                return;
            }
        };
        let ws = WebSocketStream::from_raw_socket(
            TokioIo::new(upgraded),
            Role::Server,
            Some(session.framing()),
        )
        .await;
        // The calls the policy admits carry the capability in their context.
        let context = crate::call::with_capability(
            metadata.map(|m| crate::context::Context::new().with_metadata(m)),
            S::CAPABILITY,
            || super::routes::admitted_cap(authorize.as_ref(), &cap),
        );
        let gate = Gate {
            authorize,
            load_limit,
            cap,
            context,
        };
        serve(service, ws, session, gate, shutdown).await;
    };
    *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(Box::pin(run));
    let mut reply = super::routes::empty(StatusCode::SWITCHING_PROTOCOLS);
    let headers = reply.headers_mut();
    headers.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
    headers.insert(header::CONNECTION, HeaderValue::from_static("Upgrade"));
    if let Ok(accept) = HeaderValue::from_str(&accept) {
        headers.insert(header::SEC_WEBSOCKET_ACCEPT, accept);
    }
    reply
}

/// What a session needs of the server's configuration.
#[derive(Clone, Copy)]
pub(super) struct Settings {
    pub(super) max_message: usize,
    pub(super) max_batch: usize,
    pub(super) max_answer: usize,
    pub(super) max_subscriptions: usize,
    ping_interval: std::time::Duration,
    pub(super) idle_timeout: std::time::Duration,
}

impl Settings {
    pub(super) fn of(config: &HttpConfig) -> Self {
        Settings {
            max_message: config.max_body,
            max_batch: config.max_batch,
            max_answer: config.max_answer,
            max_subscriptions: config.ws_max_subscriptions,
            ping_interval: config.ws_ping_interval,
            idle_timeout: config.ws_idle_timeout,
        }
    }

    fn framing(&self) -> WebSocketConfig {
        WebSocketConfig::default()
            .max_message_size(Some(self.max_message))
            .max_frame_size(Some(self.max_message))
            // The read buffer is zero-filled to this size on every read: tungstenite's
            // 128 KiB default made memset a quarter of the server's time in the
            // fan-out profile. JSON-RPC messages are small; a large one grows it.
            .read_buffer_size(READ_BUFFER)
    }
}

/// The live subscriptions of one session: each a task running the service's stream,
/// writing into the session's outbox under its stream id, which is also the
/// subscription id.
pub(super) struct Live<S> {
    service: Arc<S>,
    outbox: Arc<Outbox>,
    tasks: JoinSet<()>,
    /// Id → the method (to turn its messages into JSON), the task, and the stream's
    /// (unused) inbound queue, kept so the handler does not see its input closed.
    entries: HashMap<u32, Entry>,
    next_id: u32,
    max: usize,
}

struct Entry {
    method: &'static MethodInfo,
    task: AbortHandle,
    _inbound: tokio::sync::mpsc::Sender<StreamIncoming>,
}

impl<S: Service> Subscriptions for Live<S> {
    fn subscribe(&mut self, method: &'static MethodInfo, open: Bytes) -> Result<u64, RpcError> {
        if self.entries.len() >= self.max {
            return Err(RpcError {
                code: code::LIMIT_EXCEEDED,
                message: format!(
                    "Limit exceeded: this connection has {} subscriptions, this server's limit; \
                     end one with {}_unsubscribe first",
                    self.max,
                    jsonrpc::namespace(method),
                ),
                data: None,
            });
        }
        self.next_id = self.next_id.wrapping_add(1).max(1);
        let id = self.next_id;
        let (tx, rx) = queue(1);
        let io = StreamIo::new(id, rx, Arc::clone(&self.outbox));
        let run = crate::context::with_peer(
            crate::context::peer_addr(),
            crate::call::run_stream(Arc::clone(&self.service), method.ordinal, open, io, None),
        );
        let name = method.name;
        let task = self.tasks.spawn(async move {
            if let Err(e) = run.await {
                tracing::debug!(
                    method = name,
                    "subscription ended with an error: {}",
                    e.message
                );
            }
        });
        self.entries.insert(
            id,
            Entry {
                method,
                task,
                _inbound: tx,
            },
        );
        Ok(u64::from(id))
    }

    fn unsubscribe(&mut self, id: u64) -> bool {
        let Some(entry) = u32::try_from(id)
            .ok()
            .and_then(|id| self.entries.remove(&id))
        else {
            return false;
        };
        entry.task.abort();
        true
    }
}

impl<S> Live<S> {
    /// No subscriptions yet; at most `settings.max_subscriptions` at once, writing
    /// into an outbox of their own ([`Live::outbox`]).
    pub(super) fn new(service: Arc<S>, settings: &Settings) -> Self {
        Live {
            service,
            outbox: Arc::new(Outbox::new(OUTBOX_LIMIT, settings.max_message)),
            tasks: JoinSet::new(),
            entries: HashMap::new(),
            next_id: 0,
            max: settings.max_subscriptions,
        }
    }

    /// Where the subscriptions' messages wait to be sent.
    pub(super) fn outbox(&self) -> Arc<Outbox> {
        Arc::clone(&self.outbox)
    }

    /// End every subscription.
    pub(super) fn abort_all(&mut self) {
        self.tasks.abort_all();
    }

    /// Turn the frames the streams wrote (`[len][dir][id][message]`) into notifications
    /// (JSON text); a stream that ended (its handler returned) is no longer live.
    pub(super) fn notifications(&mut self, frames: &[u8]) -> Vec<String> {
        let mut out = Vec::new();
        let mut json = Vec::new();
        for (dir, id, message) in crate::stream::outbox_frames(frames) {
            if dir == Direction::StreamEnd as u8 {
                // A stream that failed says so in a last notification.
                let live = self.entries.remove(&id);
                if let (Some(entry), Some(crate::stream::StreamError::Ended { status, message })) =
                    (live, crate::stream::StreamError::from_outcome(message))
                {
                    let error = RpcError::from_call_error(&crate::CallError::new(status, message));
                    let mut text = Vec::with_capacity(160);
                    let namespace = jsonrpc::namespace(entry.method);
                    jsonrpc::error_notification(namespace, u64::from(id), &error, &mut text);
                    if let Ok(text) = String::from_utf8(text) {
                        out.push(text);
                    }
                }
                continue;
            }
            let Some(entry) = self.entries.get(&id) else {
                continue; // unsubscribed while this message waited
            };
            json.clear();
            let to_json = entry.method.result_to_json;
            if let Err(e) = to_json(message, entry.method.result_field, &mut json) {
                tracing::error!(
                    method = entry.method.name,
                    "cannot send a notification in JSON: {e}"
                );
                continue;
            }
            let mut text = Vec::with_capacity(json.len() + 96);
            let namespace = jsonrpc::namespace(entry.method);
            jsonrpc::notification(namespace, u64::from(id), &json, &mut text);
            // `notification` writes JSON of valid UTF-8 only.
            match String::from_utf8(text) {
                Ok(text) => out.push(text),
                Err(_) => tracing::error!("a notification is not UTF-8"),
            }
        }
        out
    }
}

/// What every call of a session is admitted and run with: the server's capability hook
/// and load limit, the capability the upgrade presented, the upgrade's metadata.
struct Gate {
    authorize: Option<crate::service::Authorizer>,
    load_limit: Option<crate::shed::LoadLimit>,
    cap: Result<Vec<u8>, &'static str>,
    context: Option<crate::context::Context>,
}

/// Serve one WebSocket session until either side closes it, it idles out, or shutdown.
async fn serve<S: Service, IO>(
    service: Arc<S>,
    ws: WebSocketStream<IO>,
    settings: Settings,
    gate: Gate,
    shutdown: CancellationToken,
) where
    IO: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send,
{
    let Gate {
        authorize,
        load_limit,
        cap,
        context,
    } = gate;
    let (mut sink, mut incoming) = ws.split();
    let pool = BuilderPool::new();
    let mut live = Live::new(Arc::clone(&service), &settings);
    let outbox = live.outbox();
    let caller = Caller {
        authorize: authorize.as_ref(),
        cap: cap.as_deref().map_err(|reason| *reason),
        context,
        load_limit: load_limit.as_ref(),
    };
    let mut ping = tokio::time::interval(settings.ping_interval);
    ping.reset();
    let mut heard = Instant::now();
    let mut frames = Vec::new();
    let close = loop {
        tokio::select! {
            () = shutdown.cancelled() => break Some((CloseCode::Away, "the server is shutting down")),
            message = incoming.next() => {
                heard = Instant::now();
                // JSON in either kind of frame, as geth reads it (web3.py sends binary):
                // a binary body that is not UTF-8 is answered with a parse error.
                let body: Bytes = match message {
                    Some(Ok(Message::Text(text))) => text.into(),
                    Some(Ok(Message::Binary(bytes))) => bytes,
                    Some(Ok(Message::Close(_))) | None => break None,
                    // Pings are answered by the framing; a pong only says the peer is there.
                    Some(Ok(_)) => continue,
                    Some(Err(e)) => {
                        tracing::debug!("WebSocket session ended: {e}");
                        break close_for(&e);
                    }
                };
                let limits = BodyLimits {
                    max_batch: settings.max_batch,
                    max_answer: settings.max_answer,
                };
                let answer =
                    handle_jsonrpc_for(&*service, &pool, &body, limits, &caller, Some(&mut live))
                        .await;
                if let Some(answer) = answer {
                    let Ok(answer) = String::from_utf8(answer) else {
                        break Some((CloseCode::Error, "an answer was not UTF-8"));
                    };
                    if sink.send(Message::text(answer)).await.is_err() {
                        break None;
                    }
                }
            }
            () = outbox.ready() => {
                frames.clear();
                if !outbox.take_into(&mut frames) {
                    continue;
                }
                let mut failed = false;
                for message in live.notifications(&frames) {
                    if sink.feed(Message::text(message)).await.is_err() {
                        failed = true;
                        break;
                    }
                }
                if failed || sink.flush().await.is_err() {
                    break None;
                }
            }
            _ = ping.tick() => {
                if heard.elapsed() > settings.idle_timeout {
                    break Some((CloseCode::Away, "nothing heard from the client within the idle timeout"));
                }
                if sink.send(Message::Ping(Bytes::new())).await.is_err() {
                    break None;
                }
            }
        }
    };
    outbox.close("the WebSocket session ended");
    live.abort_all();
    if let Some((code, reason)) = close {
        let frame = CloseFrame {
            code,
            reason: Utf8Bytes::from_static(reason),
        };
        // Best effort: the peer may be gone already.
        let _ = sink.send(Message::Close(Some(frame))).await;
    }
    let _ = sink.close().await;
}

/// The close to send for a session that failed reading: too large (1009) or not UTF-8
/// (1007) are said; a broken connection gets none.
fn close_for(e: &tokio_tungstenite::tungstenite::Error) -> Option<(CloseCode, &'static str)> {
    use tokio_tungstenite::tungstenite::error::{CapacityError, Error};
    match e {
        Error::Capacity(CapacityError::MessageTooLong { .. }) => Some((
            CloseCode::Size,
            "the message exceeds this server's limit (its max body size)",
        )),
        Error::Utf8(..) => Some((CloseCode::Invalid, "a text frame is not valid UTF-8")),
        Error::Protocol(_) => Some((CloseCode::Protocol, "a WebSocket protocol error")),
        _ => None,
    }
}

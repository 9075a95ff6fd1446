//! What a handler may know about the connection its call came on: [`CallContext`].

use std::net::SocketAddr;

use crate::frame::node::NodeId;
use crate::frame::Framing;

tokio::task_local! {
    static CONNECTION: CallContext;
}

/// The connection a call arrived on: the peer's address, the framing it speaks and, on
/// the node transport, the NodeID it announced in its handshake. Set once per
/// connection; reading it copies a few bytes and allocates nothing.
///
/// ```no_run
/// use zap_runtime::server::CallContext;
/// # fn in_a_handler() {
/// if let Some(node) = CallContext::current().and_then(|c| c.peer_node_id()) {
///     tracing::info!(%node, "call from a mesh node");
/// }
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallContext {
    peer_addr: SocketAddr,
    framing: Framing,
    peer_node_id: Option<NodeId>,
}

impl CallContext {
    /// The context of the call being handled, from inside
    /// [`Service::call`](crate::Service::call) as run by the ZAP/TCP server; `None`
    /// anywhere else (the HTTP server, [`Local`](crate::Local), a task the handler
    /// spawned).
    pub fn current() -> Option<CallContext> {
        CONNECTION.try_with(|c| *c).ok()
    }

    /// The peer's socket address.
    pub fn peer_addr(&self) -> SocketAddr {
        self.peer_addr
    }

    /// The framing the connection speaks.
    pub fn framing(&self) -> Framing {
        self.framing
    }

    /// The NodeID the peer announced (node transport only). It is what the peer says it
    /// is, not an authenticated identity: use it for logs, and for policy only where the
    /// network already vouches for the peer.
    pub fn peer_node_id(&self) -> Option<NodeId> {
        self.peer_node_id
    }
}

/// Run `serve` (a connection's loop) with its context set.
pub(crate) async fn scope<F: std::future::Future>(
    peer_addr: SocketAddr,
    peer_node_id: Option<NodeId>,
    serve: F,
) -> F::Output {
    let framing = if peer_node_id.is_some() {
        Framing::Node
    } else {
        Framing::Rpc
    };
    let context = CallContext {
        peer_addr,
        framing,
        peer_node_id,
    };
    CONNECTION.scope(context, serve).await
}

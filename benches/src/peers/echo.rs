//! The echo service measured against the Go runtime's (`zapgo-peer serve --tcp`, which
//! answers method 1 with its payload): `benches/schemas/echo.zap`, served by zap-runtime's
//! server as the example server is.

use std::sync::Arc;

use zap_runtime::server::{CancellationToken, Server, ServerConfig};
use zap_runtime::CallError;

use crate::generated::echo::{Echo, EchoService, Message, MessageReader};

/// Method 1 answers its message unchanged.
struct Mirror;

impl Echo for Mirror {
    async fn echo(&self, m: MessageReader<'_>) -> Result<Message, CallError> {
        Ok(Message {
            id: m.id(),
            block: m.block(),
            account: *m.account(),
        })
    }
}

/// Serve until the process ends.
pub async fn serve(listener: tokio::net::TcpListener) -> std::io::Result<()> {
    let service = Arc::new(EchoService::new(Mirror));
    Server::new(listener, service, ServerConfig::default())
        .run(CancellationToken::new())
        .await
}

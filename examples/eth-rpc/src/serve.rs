//! Both transports for one handler: bind the two listeners, serve until shutdown, stop
//! both gracefully.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use zap_runtime::http::{serve_http, HttpConfig};
use zap_runtime::server::{serve, ServerConfig};

use crate::eth::EthService;
use crate::LedgerEth;

/// Where and how to serve.
#[derive(Clone, Debug)]
pub struct Config {
    /// ZAP/TCP address (default 127.0.0.1:9999).
    pub zap_addr: SocketAddr,
    /// JSON-RPC over HTTP address (default 127.0.0.1:8545).
    pub http_addr: SocketAddr,
    /// Limits of the ZAP/TCP server.
    pub zap: ServerConfig,
    /// Limits of the HTTP server.
    pub http: HttpConfig,
    /// The handler (and so the ledger) to serve.
    pub handler: LedgerEth,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            zap_addr: SocketAddr::from(([127, 0, 0, 1], 9999)),
            http_addr: SocketAddr::from(([127, 0, 0, 1], 8545)),
            zap: ServerConfig::default(),
            http: HttpConfig::default(),
            handler: LedgerEth::default(),
        }
    }
}

/// Both listeners, bound (so their real addresses are known, e.g. after binding port 0)
/// but not yet serving.
#[derive(Debug)]
pub struct Servers {
    zap: TcpListener,
    http: TcpListener,
    config: Config,
}

/// `bind` with the address in the error, so "address in use" says which one.
async fn bind(addr: SocketAddr, what: &str) -> io::Result<TcpListener> {
    TcpListener::bind(addr)
        .await
        .map_err(|e| io::Error::new(e.kind(), format!("cannot listen for {what} on {addr}: {e}")))
}

impl Servers {
    /// Bind the ZAP/TCP and HTTP listeners of `config`.
    pub async fn bind(config: Config) -> io::Result<Servers> {
        let zap = bind(config.zap_addr, "ZAP/TCP").await?;
        let http = bind(config.http_addr, "HTTP").await?;
        Ok(Servers { zap, http, config })
    }

    /// The bound ZAP/TCP address.
    pub fn zap_addr(&self) -> SocketAddr {
        self.zap.local_addr().unwrap_or(self.config.zap_addr)
    }

    /// The bound HTTP address.
    pub fn http_addr(&self) -> SocketAddr {
        self.http.local_addr().unwrap_or(self.config.http_addr)
    }

    /// Serve both transports with one [`EthService`] until `shutdown` resolves (or one
    /// transport fails), then shut both down gracefully: each stops accepting, answers
    /// what it has read, and closes. Returns the first transport's error, if any.
    pub async fn serve(self, shutdown: impl Future<Output = ()> + Send) -> io::Result<()> {
        let Servers { zap, http, config } = self;
        let service = Arc::new(EthService::new(config.handler));
        let stop = CancellationToken::new();
        let zap = {
            let stop = stop.clone();
            let serving = serve(
                zap,
                service.clone(),
                config.zap,
                stop.clone().cancelled_owned(),
            );
            async move {
                let result = serving.await;
                stop.cancel();
                result
            }
        };
        let http = {
            let stop = stop.clone();
            let serving = serve_http(http, service, config.http, stop.clone().cancelled_owned());
            async move {
                let result = serving.await;
                stop.cancel();
                result
            }
        };
        let trigger = async {
            tokio::select! {
                () = shutdown => tracing::info!("shutting down"),
                () = stop.cancelled() => {}
            }
            stop.cancel();
        };
        let (zap, http, ()) = tokio::join!(zap, http, trigger);
        zap.and(http)
    }
}

//! Both transports for one handler: bind the two listeners, serve until shutdown, stop
//! both gracefully.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use zap_runtime::http::{HttpConfig, HttpRoutes, HttpServer, IpcServer, Routes};
use zap_runtime::metrics::{Metered, Metrics};
use zap_runtime::quic::{QuicConfig, QuicServer};
use zap_runtime::server::{Server, ServerConfig, ServerStats, UnixServer};
use zap_runtime::zaphttp;

use crate::eth::EthService;
use crate::LedgerEth;

/// Where and how to serve.
#[derive(Clone, Debug)]
pub struct Config {
    /// ZAP/TCP address (default 127.0.0.1:9999).
    pub zap_addr: SocketAddr,
    /// JSON-RPC over HTTP address (default 127.0.0.1:8545).
    pub http_addr: SocketAddr,
    /// An admin listener of its own for `GET /health`, `/health/live` and `/metrics`
    /// (then not served on `http_addr`), reachable however the data ports are loaded.
    /// Default `None`: they are served on `http_addr`.
    pub metrics_addr: Option<SocketAddr>,
    /// Limits of the ZAP/TCP server.
    pub zap: ServerConfig,
    /// Limits of the HTTP server.
    pub http: HttpConfig,
    /// The handler (and so the ledger) to serve.
    pub handler: LedgerEth,
    /// Also serve ZAP over QUIC on this UDP address, with these TLS settings and limits
    /// (`None`, the default: no QUIC).
    pub quic: Option<QuicListen>,
    /// Also serve JSON-RPC on this unix socket, as Ethereum nodes do (`None`, the
    /// default: no IPC), with the HTTP server's limits.
    pub ipc: Option<UnixSocket>,
    /// Also serve ZAP (both framings, streams) on this unix socket (`None`, the
    /// default: not), with the ZAP/TCP server's limits.
    pub zap_unix: Option<UnixSocket>,
    /// Also serve the HTTP routes (JSON-RPC at `POST /rpc`, `/health`, `/metrics`) over
    /// HTTP over ZAP frames (zaphttp) on this TCP address (`None`, the default: not),
    /// with the HTTP server's limits and capability rules.
    pub zaphttp_addr: Option<SocketAddr>,
    /// The same on a unix socket (`None`, the default: not).
    pub zaphttp_unix: Option<UnixSocket>,
    /// Limits of the zaphttp servers (frame bound, timeouts, connections).
    pub zaphttp: zaphttp::ServerConfig,
    /// Open a `tracing` span per call on every port (`Metered::traced`),
    /// child of the caller's W3C trace context (default `false`: no spans).
    pub trace: bool,
}

/// A unix socket to listen on.
#[derive(Clone, Debug)]
pub struct UnixSocket {
    /// The socket file's path.
    pub path: std::path::PathBuf,
    /// Its permission bits (`zap_runtime::http::ipc::DEFAULT_MODE`, 0600: the owner).
    pub mode: u32,
}

/// Where and how to serve ZAP over QUIC.
#[derive(Clone, Debug)]
pub struct QuicListen {
    /// The UDP address.
    pub addr: SocketAddr,
    /// The certificate and key exchange (the TLS port's own settings).
    pub tls: zap_runtime::tls::ServerTls,
    /// Limits; its `authorize` is replaced by the ZAP/TCP server's.
    pub config: QuicConfig,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            zap_addr: SocketAddr::from(([127, 0, 0, 1], 9999)),
            http_addr: SocketAddr::from(([127, 0, 0, 1], 8545)),
            metrics_addr: None,
            zap: ServerConfig::default(),
            http: HttpConfig::default(),
            handler: LedgerEth::default(),
            quic: None,
            ipc: None,
            zap_unix: None,
            zaphttp_addr: None,
            zaphttp_unix: None,
            zaphttp: zaphttp::ServerConfig::default(),
            trace: false,
        }
    }
}

/// Both servers, bound (so their real addresses are known, e.g. after binding port 0)
/// but not yet serving; one [`EthService`] behind both.
#[derive(Debug)]
pub struct Servers {
    zap: Server<Served>,
    http: HttpServer<Served>,
    admin: Option<HttpServer<EthService<LedgerEth>>>,
    quic: Option<QuicServer<Served>>,
    ipc: Option<IpcServer<Served>>,
    zap_unix: Option<UnixServer<Served>>,
    zaphttp: Option<zaphttp::Server<Routes_>>,
    zaphttp_unix: Option<zaphttp::UnixServer<Routes_>>,
    config_addrs: (SocketAddr, SocketAddr),
}

/// The service as every port serves it: counted, and traced by the same wrapper when
/// `Config::trace` says so.
type Served = Metered<EthService<LedgerEth>>;

/// The HTTP routes, as served over zaphttp.
type Routes_ = HttpRoutes<Served>;

/// Connections the admin listener serves at once: scrapers and probes.
const ADMIN_MAX_CONNECTIONS: usize = 64;

/// A server's run, or `Ok` at once for a server that was not asked for.
async fn optional(run: Option<impl Future<Output = io::Result<()>>>) -> io::Result<()> {
    match run {
        Some(run) => run.await,
        None => Ok(()),
    }
}

/// `bind` with the address in the error, so "address in use" says which one.
async fn bind(addr: SocketAddr, what: &str) -> io::Result<TcpListener> {
    TcpListener::bind(addr)
        .await
        .map_err(|e| io::Error::new(e.kind(), format!("cannot listen for {what} on {addr}: {e}")))
}

impl Servers {
    /// Bind the ZAP/TCP and HTTP listeners of `config` (and the admin listener, if
    /// asked for). Calls and connections of both are counted in `config.http.metrics`
    /// (new ones if `None`), served at `GET /metrics`.
    pub async fn bind(mut config: Config) -> io::Result<Servers> {
        let zap = bind(config.zap_addr, "ZAP/TCP").await?;
        let http = bind(config.http_addr, "HTTP").await?;
        let service = Arc::new(EthService::new(config.handler));
        let metrics = config.http.metrics.get_or_insert_with(Metrics::new).clone();
        let admin = match config.metrics_addr {
            Some(addr) => {
                let listener = bind(addr, "health and metrics").await?;
                let admin = HttpConfig {
                    routes: Routes::HealthAndMetrics,
                    metrics: config.http.metrics.take(),
                    readiness: config.http.readiness.clone(),
                    max_connections: ADMIN_MAX_CONNECTIONS,
                    allowed_hosts: config.http.allowed_hosts.clone(),
                    tls: config.http.tls.clone(),
                    ..HttpConfig::default()
                };
                Some(HttpServer::new(listener, service.clone(), admin))
            }
            None => None,
        };
        let trace = config.trace;
        let metered =
            |transport| Arc::new(Metered::new(service.clone(), &metrics, transport).traced(trace));
        let quic = match config.quic {
            Some(quic) => {
                let settings = QuicConfig {
                    authorize: config.zap.authorize.clone(),
                    ..quic.config
                };
                let server = QuicServer::bind(quic.addr, metered("quic"), &quic.tls, settings)
                    .map_err(|e| {
                        io::Error::new(e.kind(), format!("cannot serve QUIC on {}: {e}", quic.addr))
                    })?;
                Some(server)
            }
            None => None,
        };
        let ipc = match &config.ipc {
            Some(ipc) => Some(IpcServer::bind_with_mode(
                &ipc.path,
                metered("ipc"),
                config.http.clone(),
                ipc.mode,
            )?),
            None => None,
        };
        let zap_unix = match &config.zap_unix {
            Some(unix) => Some(UnixServer::bind_with_mode(
                &unix.path,
                metered("zap"),
                config.zap.clone(),
                unix.mode,
            )?),
            None => None,
        };
        let zaphttp = match config.zaphttp_addr {
            Some(addr) => {
                let listener = bind(addr, "zaphttp").await?;
                let routes = HttpRoutes::new(metered("zaphttp"), config.http.clone());
                Some(zaphttp::Server::new(
                    listener,
                    Arc::new(routes),
                    config.zaphttp.clone(),
                ))
            }
            None => None,
        };
        let zaphttp_unix = match &config.zaphttp_unix {
            Some(unix) => {
                let routes = HttpRoutes::new(metered("zaphttp"), config.http.clone());
                Some(zaphttp::UnixServer::bind_with_mode(
                    &unix.path,
                    routes,
                    config.zaphttp.clone(),
                    unix.mode,
                )?)
            }
            None => None,
        };
        let servers = Servers {
            zap: Server::new(zap, metered("zap"), config.zap),
            http: HttpServer::new(http, metered("http"), config.http),
            admin,
            quic,
            ipc,
            zap_unix,
            zaphttp,
            zaphttp_unix,
            config_addrs: (config.zap_addr, config.http_addr),
        };
        metrics.register_server("zap", servers.zap_stats());
        metrics.register_server("http", servers.http_stats());
        if let Some(quic) = &servers.quic {
            metrics.register_server("quic", quic.stats());
        }
        if let Some(zaphttp) = &servers.zaphttp {
            metrics.register_server("zaphttp", zaphttp.stats());
        }
        if servers.zaphttp.is_some() || servers.zaphttp_unix.is_some() {
            let counters = &config.zaphttp.counters;
            for (name, help, counter) in [
                (
                    "zap_zaphttp_requests",
                    "Requests answered over zaphttp.",
                    &counters.requests,
                ),
                (
                    "zap_zaphttp_streamed",
                    "Answers streamed over zaphttp.",
                    &counters.streamed,
                ),
                (
                    "zap_zaphttp_failed",
                    "zaphttp requests answered 500 or 503.",
                    &counters.failed,
                ),
                (
                    "zap_zaphttp_malformed",
                    "zaphttp frames refused as malformed.",
                    &counters.malformed,
                ),
            ] {
                metrics.register_counter(name, help, Arc::clone(counter));
            }
        }
        Ok(servers)
    }

    /// The bound ZAP/TCP address.
    pub fn zap_addr(&self) -> SocketAddr {
        self.zap.local_addr().unwrap_or(self.config_addrs.0)
    }

    /// The bound HTTP address.
    pub fn http_addr(&self) -> SocketAddr {
        self.http.local_addr().unwrap_or(self.config_addrs.1)
    }

    /// The bound QUIC (UDP) address, if QUIC is served.
    pub fn quic_addr(&self) -> Option<SocketAddr> {
        self.quic.as_ref().and_then(|q| q.local_addr().ok())
    }

    /// The bound admin (health and metrics) address, if there is one.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.admin.as_ref().and_then(|a| a.local_addr().ok())
    }

    /// The IPC socket's path, if JSON-RPC is served over IPC.
    pub fn ipc_path(&self) -> Option<&std::path::Path> {
        self.ipc.as_ref().map(|ipc| ipc.path())
    }

    /// The ZAP unix socket's path, if ZAP is served on one.
    pub fn zap_unix_path(&self) -> Option<&std::path::Path> {
        self.zap_unix.as_ref().map(|unix| unix.path())
    }

    /// The bound zaphttp address, if the HTTP routes are served over zaphttp.
    pub fn zaphttp_addr(&self) -> Option<SocketAddr> {
        self.zaphttp.as_ref().and_then(|z| z.local_addr().ok())
    }

    /// The zaphttp unix socket's path, if there is one.
    pub fn zaphttp_unix_path(&self) -> Option<&std::path::Path> {
        self.zaphttp_unix.as_ref().map(|z| z.path())
    }

    /// Live counters of the ZAP/TCP server (open, accepted, refused connections).
    pub fn zap_stats(&self) -> ServerStats {
        self.zap.stats()
    }

    /// Live counters of the HTTP server.
    pub fn http_stats(&self) -> ServerStats {
        self.http.stats()
    }

    /// Serve both transports until `shutdown` resolves (or one transport fails), then
    /// shut both down gracefully: each stops accepting, answers what it has read, and
    /// closes. Returns the first transport's error, if any.
    pub async fn serve(self, shutdown: impl Future<Output = ()> + Send) -> io::Result<()> {
        let Servers {
            zap,
            http,
            admin,
            quic,
            ipc,
            zap_unix,
            zaphttp,
            zaphttp_unix,
            ..
        } = self;
        let stop = CancellationToken::new();
        // Either transport ending (an error) stops the other one too.
        let stop_on_end = |result: io::Result<()>| {
            stop.cancel();
            result
        };
        let zap = async { stop_on_end(zap.run(stop.clone()).await) };
        let http = async { stop_on_end(http.run(stop.clone()).await) };
        let admin = optional(admin.map(|s| async { stop_on_end(s.run(stop.clone()).await) }));
        let quic = optional(quic.map(|s| async { stop_on_end(s.run(stop.clone()).await) }));
        let ipc = optional(ipc.map(|s| async { stop_on_end(s.run(stop.clone()).await) }));
        let zap_unix = optional(zap_unix.map(|s| async { stop_on_end(s.run(stop.clone()).await) }));
        let zaphttp = optional(zaphttp.map(|s| async { stop_on_end(s.run(stop.clone()).await) }));
        let zaphttp_unix =
            optional(zaphttp_unix.map(|s| async { stop_on_end(s.run(stop.clone()).await) }));
        let trigger = async {
            tokio::select! {
                () = shutdown => tracing::info!("shutting down"),
                () = stop.cancelled() => {}
            }
            stop.cancel();
        };
        let (zap, http, admin, quic, ipc, zap_unix, zaphttp, zaphttp_unix, ()) = tokio::join!(
            zap,
            http,
            admin,
            quic,
            ipc,
            zap_unix,
            zaphttp,
            zaphttp_unix,
            trigger
        );
        zap.and(http)
            .and(admin)
            .and(quic)
            .and(ipc)
            .and(zap_unix)
            .and(zaphttp)
            .and(zaphttp_unix)
    }
}

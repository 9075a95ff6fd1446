//! `eth-rpc`: serve `eth_getBalance` over ZAP/TCP and JSON-RPC/HTTP until SIGTERM or Ctrl-C.

use std::io::IsTerminal;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use eth_rpc::{Config, Servers};
use zap_runtime::http::AllowedHosts;
use zap_runtime::json::to_hex;
use zap_runtime::metrics::Metrics;
use zap_runtime::shutdown::Shutdown;
use zap_runtime::tls::{ServerTls, TlsError};
use zap_runtime::trace::otel::{Otel, OtlpConfig};
use zap_runtime::Authorizer;

/// What `--help` shows after the options.
const AFTER_HELP: &str = "\
Serves one handler on two transports:
  ZAP/TCP        binary calls, e.g. with the generated EthClient
                 (cargo run -p eth-rpc --example client)
  HTTP           JSON-RPC 2.0 at POST /rpc and POST / (single and batch; Ethereum's
                 shape, so web3.py and ethers work against it), rpc.discover (the
                 OpenRPC document), the explorer page at GET /, GET /health,
                 GET /health/live and the Prometheus text at GET /metrics

Methods: eth_getBalance([address, block]) -> the balance as a 0x quantity (the block
a quantity, a tag such as \"latest\", or omitted), eth_chainId (1337),
eth_blockNumber, net_version, web3_clientVersion. Over ZAP/TCP, the stream newHeads
sends the chain's head, then each new one: with --block-time 2 the chain advances a
block every 2 s (without it, it stands still at block 68943):
  zapc call --schema schemas/eth.zap 127.0.0.1:9999 Eth.newHeads '{\"count\":3}'

The ledger holds 1000 accounts derived from a fixed seed; the first one is
0x4725818c202ef848d7d3cce765e30646e63cdca1. Any other address has balance 0.

Example:
  curl -s -H 'Content-Type: application/json' http://127.0.0.1:8545/rpc -d \\
    '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_getBalance\",
      \"params\":[\"0x4725818c202ef848d7d3cce765e30646e63cdca1\",\"latest\"]}'

With --cap-trust FILE --cap-target HEX every call needs a ZAP capability: in the
request's Cap field over ZAP/TCP, as `Authorization: ZAP-Cap <base64>` over HTTP.
A missing or invalid one is refused with 401 (JSON-RPC -32001), one for another
target or without the method's permission bits with 403 (-32003).

TLS (both ports, one certificate):
  --tls-cert server.pem --tls-key server.key serves ZAP/TCP and HTTPS with TLS 1.3
  (TLS 1.2 too with --tls12); the key exchange is the post-quantum hybrid
  X25519MLKEM768, or X25519 for clients without ML-KEM. --tls-client-ca ca.pem also
  requires client certificates signed by that CA (mutual TLS). A connection that
  does not finish its handshake within 10 s is closed; nothing is served in plaintext.
  curl --cacert ca.pem https://localhost:8545/rpc -H 'Content-Type: application/json' -d ...
  RUST_LOG=zap_runtime=debug logs the group each handshake agreed on.

Logs go to stderr; RUST_LOG sets the level (default info, e.g. RUST_LOG=debug).
SIGTERM (kill, systemd, Docker, Kubernetes) and Ctrl-C stop both servers gracefully:
GET /health turns 503 at once (GET /health/live stays 200), both ports keep serving for
--readiness-grace, then stop accepting, answer the requests in flight and exit 0.
A second signal exits at once.";

/// Serve eth_getBalance over an in-memory ledger, on ZAP/TCP and on JSON-RPC over HTTP.
#[derive(Debug, Parser)]
#[command(version, about, long_about = None, after_help = AFTER_HELP)]
struct Args {
    /// Address of the ZAP/TCP server.
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:9999")]
    zap_addr: SocketAddr,
    /// Address of the JSON-RPC over HTTP server.
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8545")]
    http_addr: SocketAddr,
    /// Require a ZAP capability on every call, minted by one of the issuers in FILE (one
    /// per line: `ed25519|mldsa65|secp256k1 <public key hex>`; `#` starts a comment).
    /// Needs --cap-target.
    #[arg(long, value_name = "FILE", requires = "cap_target")]
    cap_trust: Option<PathBuf>,
    /// The 32-byte target id capabilities must name, as 64 hex digits. Needs --cap-trust.
    #[arg(long, value_name = "HEX", requires = "cap_trust")]
    cap_target: Option<String>,
    /// Serve both ports over TLS with this certificate chain (PEM, leaf first).
    #[arg(long, value_name = "PEM", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM: PKCS#8, PKCS#1 or SEC1).
    #[arg(long, value_name = "PEM", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// With TLS, require client certificates signed by a CA in this file (mutual TLS).
    #[arg(long, value_name = "PEM", requires = "tls_cert")]
    tls_client_ca: Option<PathBuf>,
    /// With TLS, also accept TLS 1.2 (default: TLS 1.3 only).
    #[arg(long, requires = "tls_cert")]
    tls12: bool,
    /// Also serve ZAP over QUIC on this UDP address (ALPN zap/1, the --tls-cert
    /// certificate, a QUIC stream per call; the Go runtime's QUIC transport).
    #[arg(long, value_name = "HOST:PORT", requires = "tls_cert")]
    quic_addr: Option<SocketAddr>,
    /// Close a QUIC connection after this many seconds without a packet from its peer
    /// (a peer that vanished, with its calls and streams).
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 30.0,
        requires = "quic_addr"
    )]
    quic_idle_timeout: f64,
    /// Reset a QUIC stream whose first frame has not arrived after this many seconds.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 60.0,
        requires = "quic_addr"
    )]
    quic_first_frame_timeout: f64,
    /// On SIGTERM or Ctrl-C, keep serving this many seconds with GET /health answering
    /// 503 (so a load balancer stops sending new work) before draining and exiting.
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0)]
    readiness_grace: f64,
    /// Close an HTTP (or zaphttp) connection whose peer takes none of its answer for this
    /// long: a client that never reads holds a connection, and the answer, no longer.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    http_write_stall_timeout: f64,
    /// Close an HTTP (or zaphttp) connection whose next request head (frame) has not
    /// arrived this long after it connected or after its last answer: the idle
    /// keep-alive timeout.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    http_header_read_timeout: f64,
    /// The Host names the HTTP server answers, comma-separated; `*` for any. Any other
    /// name is refused (403), which stops DNS rebinding; IP literals are always answered.
    #[arg(long, value_name = "NAMES", default_value = "localhost")]
    http_vhosts: String,
    /// Accept --cap-trust without TLS on an address other than loopback. Capabilities are
    /// bearer tokens: without TLS anyone on the path can copy one and use it, so this is
    /// refused unless said explicitly.
    #[arg(long, requires = "cap_trust")]
    allow_insecure_caps: bool,
    /// The origins whose web pages may call the HTTP server and read its answers (CORS),
    /// comma-separated; `*` for any. Default: none.
    #[arg(long, value_name = "ORIGINS", value_delimiter = ',')]
    http_corsdomain: Vec<String>,
    /// Also serve JSON-RPC on a unix socket at PATH, as Ethereum nodes do (geth's
    /// --ipcpath): web3.py's IPCProvider and ethers' IpcSocketProvider connect to it,
    /// with subscriptions. The file is created with mode --ipc-mode; a stale one left by
    /// a killed server is replaced, a live one refused; it is removed on shutdown.
    #[arg(long, value_name = "PATH")]
    ipc_path: Option<PathBuf>,
    /// Also serve ZAP (both framings, streams) on a unix socket at PATH: `zapc call
    /// unix:PATH ...` and `Client::connect_unix` reach it. Same file rules as --ipc-path.
    #[arg(long, value_name = "PATH")]
    zap_unix: Option<PathBuf>,
    /// Also serve the HTTP routes (JSON-RPC at POST /rpc, /health, /metrics) over HTTP
    /// over ZAP frames (zaphttp, as the Go stack speaks it) on this TCP address, with the
    /// HTTP port's limits and capability rules: `zapc http ADDR /health` reaches it.
    #[arg(long, value_name = "HOST:PORT")]
    zaphttp_addr: Option<SocketAddr>,
    /// The same zaphttp routes on a unix socket at PATH. Same file rules as --ipc-path.
    #[arg(long, value_name = "PATH")]
    zaphttp_unix: Option<PathBuf>,
    /// Export a span per call to this OpenTelemetry collector over OTLP/HTTP (protobuf),
    /// e.g. http://127.0.0.1:4318 (spans are posted to /v1/traces): each span is the
    /// child of the caller's W3C traceparent (the HTTP header, or the call's metadata on
    /// ZAP and QUIC). Without it no span is made or sent.
    #[arg(long, value_name = "URL")]
    otlp_endpoint: Option<String>,
    /// The service.name the exported spans carry.
    #[arg(long, value_name = "NAME", default_value = "eth-rpc")]
    otlp_service_name: String,
    /// Permission bits of the socket files (--ipc-path, --zap-unix, --zaphttp-unix), in octal (0600:
    /// their owner only; 0660: the owner's group too).
    #[arg(long, value_name = "OCTAL", default_value = "600", value_parser = octal_mode)]
    ipc_mode: u32,
    /// Serve GET /health, /health/live and /metrics on this address instead of the
    /// HTTP port: an admin listener with connections of its own, which answers however
    /// the data ports are loaded, and serves /metrics without a capability.
    #[arg(long, value_name = "HOST:PORT")]
    metrics_addr: Option<SocketAddr>,
    /// Largest JSON-RPC response body in bytes: the call that would pass it, and the
    /// rest of its batch, are answered with error -32005 (limit exceeded).
    #[arg(long, value_name = "BYTES", default_value_t = 16 << 20)]
    http_max_answer: usize,
    /// Largest JSON-RPC request body in bytes (413 past it), and largest WebSocket
    /// message (the session is closed with 1009 past it).
    #[arg(long, value_name = "BYTES", default_value_t = 4 << 20)]
    http_max_body: usize,
    /// Most live `eth_subscribe` subscriptions on one WebSocket connection; more are
    /// answered -32005.
    #[arg(long, value_name = "N", default_value_t = 100)]
    ws_max_subscriptions: usize,
    /// Most ZAP/TCP connections at once; more are refused.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    zap_max_connections: usize,
    /// Most HTTP connections at once (and as many zaphttp connections); more are refused.
    #[arg(long, value_name = "N", default_value_t = 1024)]
    http_max_connections: usize,
    /// Most connections from one IP address at once, on each port. Default: no limit
    /// (clients behind a load balancer or NAT share one address).
    #[arg(long, value_name = "N")]
    max_connections_per_address: Option<usize>,
    /// Close a ZAP/TCP connection that has not sent its first bytes (which tell its
    /// framing) this long after connecting: a silent socket holds a connection slot no
    /// longer.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    zap_first_bytes_timeout: f64,
    /// MiB that the ports together may buffer of requests still arriving (ZAP frames
    /// past 16 KiB, HTTP bodies past 16 KiB, QUIC frames past 16 KiB); past it,
    /// connections and QUIC streams wait before reading more.
    #[arg(long, value_name = "MIB", default_value_t = 1024)]
    buffer_budget_mib: usize,
    /// Advance the chain by one block every SECONDS (eth_blockNumber counts up, the
    /// newHeads stream sends each head); 0 keeps it at block 68943.
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0)]
    block_time: f64,
    /// Most streams (newHeads) open at once on one ZAP/TCP connection; an open past it
    /// is ended at once.
    #[arg(long, value_name = "N", default_value_t = 100)]
    zap_max_streams: usize,
    /// Results each ZAP/TCP connection keeps for promise pipelining (a call whose
    /// Target names an earlier call runs on that call's result); 0 turns pipelining off
    /// and saves the copy of every answer it makes.
    #[arg(long, value_name = "N", default_value_t = 256)]
    zap_pipeline_results: usize,
    /// Bytes of those results each ZAP/TCP connection keeps (allocated at its first
    /// call); a larger result cannot be pipelined on; 0 turns pipelining off.
    #[arg(long, value_name = "BYTES", default_value_t = 64 << 10)]
    zap_pipeline_bytes: usize,
    /// Most calls running at once over every port together; a call past it is answered
    /// "overloaded" at once (ZAP status 503, JSON-RPC -32006) without running, so that
    /// a balancer can send it elsewhere. 0: no limit.
    #[arg(long, value_name = "N", default_value_t = 0)]
    max_calls_in_flight: usize,
}

impl Args {
    /// The TLS settings the flags ask for, read from their PEM files; `None` without
    /// --tls-cert.
    fn tls(&self) -> Result<Option<ServerTls>, TlsError> {
        let (Some(cert), Some(key)) = (&self.tls_cert, &self.tls_key) else {
            return Ok(None);
        };
        let mut tls = ServerTls::from_pem_files(cert, key).allow_tls12(self.tls12);
        if let Some(ca) = &self.tls_client_ca {
            tls = tls.client_ca_pem_file(ca);
        }
        tls.build().map(Some)
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    use tracing_subscriber::prelude::*;
    let args = Args::parse();
    let otel = match &args.otlp_endpoint {
        Some(endpoint) => {
            let config = OtlpConfig::new(endpoint.clone(), args.otlp_service_name.clone());
            match Otel::start(config) {
                Ok(otel) => Some(otel),
                Err(e) => {
                    eprintln!("eth-rpc: {e}");
                    return ExitCode::from(2);
                }
            }
        }
        None => None,
    };
    // The log lines follow RUST_LOG; the exported spans are the calls' own, whatever
    // RUST_LOG says.
    let spans = otel.as_ref().map(|otel| {
        otel.layer().with_filter(
            tracing_subscriber::filter::Targets::new()
                .with_target("zap_runtime::trace", tracing::Level::INFO),
        )
    });
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(std::io::stderr().is_terminal())
                .with_filter(
                    tracing_subscriber::EnvFilter::try_from_default_env()
                        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
                ),
        )
        .with(spans)
        .init();
    let result = run(args, otel.as_ref()).await;
    if let Some(otel) = otel {
        // Send the spans of the last calls before leaving (the export thread blocks).
        let _ = tokio::task::spawn_blocking(move || otel.shutdown()).await;
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("eth-rpc: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args, otel: Option<&Otel>) -> std::io::Result<()> {
    let tls = args
        .tls()
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()))?;
    let mut config = Config {
        zap_addr: args.zap_addr,
        http_addr: args.http_addr,
        metrics_addr: args.metrics_addr,
        ipc: args.ipc_path.clone().map(|path| eth_rpc::UnixSocket {
            path,
            mode: args.ipc_mode,
        }),
        zap_unix: args.zap_unix.clone().map(|path| eth_rpc::UnixSocket {
            path,
            mode: args.ipc_mode,
        }),
        zaphttp_addr: args.zaphttp_addr,
        trace: otel.is_some(),
        zaphttp_unix: args.zaphttp_unix.clone().map(|path| eth_rpc::UnixSocket {
            path,
            mode: args.ipc_mode,
        }),
        ..Config::default()
    };
    if args.cap_trust.is_some() && tls.is_none() && !args.allow_insecure_caps {
        let exposed = [args.zap_addr, args.http_addr]
            .into_iter()
            .chain(args.zaphttp_addr)
            .find(|addr| !addr.ip().is_loopback());
        if let Some(addr) = exposed {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "--cap-trust without TLS would send capabilities in clear text to {addr}: \
                     add --tls-cert and --tls-key, listen on loopback only, or say \
                     --allow-insecure-caps"
                ),
            ));
        }
    }
    if let (Some(trust), Some(target)) = (&args.cap_trust, &args.cap_target) {
        let policy = eth_rpc::load_policy(trust, target).map_err(std::io::Error::other)?;
        tracing::info!("capabilities required on every call ({policy:?})");
        config
            .http
            .metrics
            .get_or_insert_with(Metrics::new)
            .register_counter(
                "zap_cap_signature_checks",
                "Capability signatures checked (public-key operations; cached and \
                 remembered-refused capabilities cost none)",
                policy.signature_checks(),
            );
        let policy = Authorizer::new(policy);
        config.zap.authorize = Some(policy.clone());
        config.http.authorize = Some(policy);
    }
    if let Some(otel) = otel {
        let (exported, dropped) = otel.counters();
        let metrics = config.http.metrics.get_or_insert_with(Metrics::new);
        metrics.register_counter(
            "zap_otel_spans_exported",
            "Call spans sent to the OpenTelemetry collector and accepted.",
            exported,
        );
        metrics.register_counter(
            "zap_otel_spans_dropped",
            "Call spans dropped: the export queue was full, or the collector refused \
             or did not answer their batch.",
            dropped,
        );
    }
    if let (Some(addr), Some(tls)) = (args.quic_addr, &tls) {
        config.quic = Some(eth_rpc::QuicListen {
            addr,
            tls: tls.clone(),
            config: zap_runtime::quic::QuicConfig {
                idle_timeout: seconds(args.quic_idle_timeout)?,
                first_frame_timeout: seconds(args.quic_first_frame_timeout)?,
                ..zap_runtime::quic::QuicConfig::default()
            },
        });
    }
    config.zap.tls.clone_from(&tls);
    config.http.tls.clone_from(&tls);
    config.http.allowed_hosts = AllowedHosts::parse(&args.http_vhosts);
    config.http.write_stall_timeout = seconds(args.http_write_stall_timeout)?;
    config.http.header_read_timeout = seconds(args.http_header_read_timeout)?;
    config.http.cors_origins = args.http_corsdomain.clone();
    config.http.max_answer = args.http_max_answer;
    config.http.max_body = args.http_max_body;
    config.http.ws_max_subscriptions = args.ws_max_subscriptions;
    config.zap.max_connections = args.zap_max_connections;
    config.http.max_connections = args.http_max_connections;
    config.zap.max_connections_per_address = args.max_connections_per_address;
    config.http.max_connections_per_address = args.max_connections_per_address;
    config.zap.first_bytes_timeout = seconds(args.zap_first_bytes_timeout)?;
    let budget = zap_runtime::BufferBudget::new(args.buffer_budget_mib.saturating_mul(1 << 20));
    config.zap.buffer_budget = budget.clone();
    if let Some(quic) = &mut config.quic {
        quic.config.buffer_budget = budget.clone();
    }
    config.http.buffer_budget = budget.clone();
    // zaphttp carries the HTTP routes: the HTTP port's limits are its limits.
    config.zaphttp = zap_runtime::zaphttp::ServerConfig {
        idle_timeout: config.http.header_read_timeout,
        read_timeout: config.http.body_read_timeout,
        write_stall_timeout: config.http.write_stall_timeout,
        max_connections: config.http.max_connections,
        max_connections_per_address: config.http.max_connections_per_address,
        buffer_budget: budget,
        ..config.zaphttp
    };
    config.zap.max_streams = args.zap_max_streams;
    config.zap.pipeline_results = args.zap_pipeline_results;
    config.zap.pipeline_bytes = args.zap_pipeline_bytes;
    if args.max_calls_in_flight != 0 {
        // One limit shared by every port.
        let limit = zap_runtime::shed::LoadLimit::new(args.max_calls_in_flight);
        config.zap.load_limit = Some(limit.clone());
        config.http.load_limit = Some(limit.clone());
        if let Some(quic) = &mut config.quic {
            quic.config.load_limit = Some(limit);
        }
    }
    let block_time = seconds(args.block_time)?;
    if !block_time.is_zero() {
        config.handler = config.handler.with_block_time(block_time);
    }
    let grace = seconds(args.readiness_grace)?;
    let shutdown = Shutdown::on_signals(grace)?;
    // One state behind GET /health and the health methods of the ZAP/TCP, QUIC and unix
    // socket servers: not serving from the first SIGTERM, before the listeners close.
    config.http.readiness = shutdown.readiness();
    config.zap.readiness = shutdown.readiness();
    if let Some(quic) = &mut config.quic {
        quic.config.readiness = shutdown.readiness();
    }
    let servers = Servers::bind(config).await?;
    let http = servers.http_addr();
    let (scheme, curl_tls) = match &tls {
        Some(_) => ("https", "--cacert <your CA> "),
        None => ("http", ""),
    };
    let metrics = servers
        .metrics_addr()
        .map_or_else(|| "on the http port".to_owned(), |a| a.to_string());
    tracing::info!(
        zap = %servers.zap_addr(),
        %http,
        %metrics,
        quic = %servers.quic_addr().map_or_else(|| "off".to_owned(), |a| a.to_string()),
        ipc = %servers.ipc_path().map_or_else(|| "off".to_owned(), |p| p.display().to_string()),
        zap_unix = %servers.zap_unix_path().map_or_else(|| "off".to_owned(), |p| p.display().to_string()),
        zaphttp = %servers.zaphttp_addr().map_or_else(|| "off".to_owned(), |a| a.to_string()),
        zaphttp_unix = %servers.zaphttp_unix_path().map_or_else(|| "off".to_owned(), |p| p.display().to_string()),
        tls = tls.is_some(),
        client_certificates = args.tls_client_ca.is_some(),
        "eth-rpc serving; SIGTERM or Ctrl-C stops"
    );
    if let Some(address) = eth_rpc::LedgerEth::default().ledger().address(0) {
        tracing::info!(
            "try: curl -s {curl_tls}-H 'Content-Type: application/json' {scheme}://{http}/rpc -d \
             '{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_getBalance\",\"params\":[\"{}\",\"latest\"]}}'",
            to_hex(address)
        );
    }
    servers.serve(shutdown.stopped()).await
}

/// A duration given in seconds on the command line.
fn seconds(value: f64) -> std::io::Result<std::time::Duration> {
    std::time::Duration::try_from_secs_f64(value).map_err(|e| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("{value} s: {e}"))
    })
}

/// `--ipc-mode`: permission bits in octal (`600`, `0660`), at most `0777`.
fn octal_mode(text: &str) -> Result<u32, String> {
    match u32::from_str_radix(text, 8) {
        Ok(mode) if mode <= 0o777 => Ok(mode),
        _ => Err(format!(
            "{text:?} is not a file mode: give permission bits in octal, like 600 or 660"
        )),
    }
}

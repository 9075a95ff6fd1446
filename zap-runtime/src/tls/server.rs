//! The server side: a rustls server configuration built from PEM files, and the
//! handshake each server runs in a connection's own task before serving it.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rustls::server::WebPkiClientVerifier;
use rustls::NamedGroup;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;

use super::{pem, versions, KeyExchange, TlsError, TlsInfo};
use crate::accept::ServerStats;

/// How long a connection whose handshake failed is kept to take the peer's remaining
/// bytes (closing with unread input would turn the close into a reset, losing the alert).
const LINGER: Duration = Duration::from_secs(1);

/// A server's TLS settings: the rustls configuration (certificate, key, groups,
/// versions, client-certificate verifier) and the handshake timeout. Built once, cloned
/// cheaply into `server::ServerConfig::tls` and `http::HttpConfig::tls` (one can serve
/// both); clones share the configuration.
#[derive(Clone)]
pub struct ServerTls {
    config: Arc<rustls::ServerConfig>,
    handshake_timeout: Duration,
}

impl ServerTls {
    /// Default [`ServerTls::handshake_timeout`]: 10 s.
    pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

    /// Start building from a certificate chain (PEM, leaf first) and its private key
    /// (PEM: PKCS#8, PKCS#1 or SEC1). The files are read by
    /// [`build`](ServerTlsBuilder::build).
    pub fn from_pem_files(
        cert_chain: impl Into<PathBuf>,
        private_key: impl Into<PathBuf>,
    ) -> ServerTlsBuilder {
        ServerTlsBuilder {
            cert_chain: cert_chain.into(),
            private_key: private_key.into(),
            client_ca: None,
            allow_tls12: false,
            key_exchange: KeyExchange::default(),
            handshake_timeout: Self::DEFAULT_HANDSHAKE_TIMEOUT,
        }
    }

    /// Use a rustls configuration made by hand (its groups, versions and verifier as
    /// they are), with the default handshake timeout.
    pub fn from_rustls(config: Arc<rustls::ServerConfig>) -> ServerTls {
        ServerTls {
            config,
            handshake_timeout: Self::DEFAULT_HANDSHAKE_TIMEOUT,
        }
    }

    /// The same configuration with another handshake timeout.
    pub fn with_handshake_timeout(mut self, timeout: Duration) -> ServerTls {
        self.handshake_timeout = timeout;
        self
    }

    /// How long a handshake may take, from the accepted TCP connection to the last
    /// handshake message; past it the connection is closed and counted in
    /// [`TlsStats::timed_out`].
    pub fn handshake_timeout(&self) -> Duration {
        self.handshake_timeout
    }

    /// The rustls configuration.
    pub fn rustls_config(&self) -> &Arc<rustls::ServerConfig> {
        &self.config
    }

    /// This configuration, offering `protocol` by ALPN if it offers nothing yet (the
    /// HTTP server offers `http/1.1`).
    #[cfg(feature = "http")]
    pub(crate) fn with_default_alpn(&self, protocol: &[u8]) -> ServerTls {
        if !self.config.alpn_protocols.is_empty() {
            return self.clone();
        }
        let mut config = (*self.config).clone();
        config.alpn_protocols = vec![protocol.to_vec()];
        ServerTls {
            config: Arc::new(config),
            handshake_timeout: self.handshake_timeout,
        }
    }

    /// Run the server side of the handshake on an accepted connection, bounded by the
    /// handshake timeout and by `shutdown`. `None` when it failed, timed out or was cut
    /// short by shutdown: the connection is then closed (never served in plaintext).
    /// Counted in `stats`; the negotiated parameters are logged at debug level.
    pub(crate) async fn handshake(
        &self,
        stream: TcpStream,
        peer: SocketAddr,
        stats: &ServerStats,
        shutdown: &CancellationToken,
        server: &'static str,
    ) -> Option<TlsStream<TcpStream>> {
        let counters = stats.tls_counters();
        let accept = TlsAcceptor::from(Arc::clone(&self.config))
            .accept(stream)
            .into_fallible();
        // Pinned here, not inside select!, so that a timed-out handshake's socket is
        // closed only after it is counted (a peer that sees the close sees the count).
        let accept = tokio::time::timeout(self.handshake_timeout, accept);
        tokio::pin!(accept);
        let done = tokio::select! {
            biased;
            () = shutdown.cancelled() => {
                tracing::debug!(server, %peer, "TLS handshake cut short by shutdown");
                return None;
            }
            done = &mut accept => done,
        };
        match done {
            Ok(Ok(tls)) => {
                let info = TlsInfo::of(tls.get_ref().1);
                counters.completed(&info);
                tracing::debug!(
                    server,
                    %peer,
                    version = ?info.version,
                    cipher_suite = ?info.cipher_suite,
                    key_exchange = ?info.key_exchange,
                    client_certificate = info.peer_certificate,
                    "TLS handshake done"
                );
                Some(tls)
            }
            Ok(Err((e, stream))) => {
                counters.failed();
                tracing::info!(server, %peer, "closing connection: TLS handshake failed: {e}");
                linger_close(stream).await;
                None
            }
            Err(_) => {
                counters.timed_out();
                tracing::info!(
                    server,
                    %peer,
                    "closing connection: TLS handshake not done within {:?}",
                    self.handshake_timeout
                );
                None // returning drops the pinned handshake, closing the socket
            }
        }
    }
}

/// Close a connection whose handshake failed: end our side (the alert rustls queued is
/// already written) and take what the peer still sends, briefly.
async fn linger_close(mut stream: TcpStream) {
    let _ = tokio::time::timeout(LINGER, async {
        let _ = stream.shutdown().await;
        let mut sink = [0u8; 2048];
        while let Ok(n) = stream.read(&mut sink).await {
            if n == 0 {
                break;
            }
        }
    })
    .await;
}

/// Two settings are equal when they share one rustls configuration (a clone of the
/// same [`ServerTls`]) and have the same handshake timeout.
impl PartialEq for ServerTls {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.config, &other.config)
            && self.handshake_timeout == other.handshake_timeout
    }
}

impl Eq for ServerTls {}

impl core::fmt::Debug for ServerTls {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let groups: Vec<NamedGroup> = self
            .config
            .crypto_provider()
            .kx_groups
            .iter()
            .map(|g| g.name())
            .collect();
        f.debug_struct("ServerTls")
            .field("key_exchange", &groups)
            .field("alpn", &self.config.alpn_protocols.len())
            .field("handshake_timeout", &self.handshake_timeout)
            .finish_non_exhaustive()
    }
}

/// Builds a [`ServerTls`]; start with [`ServerTls::from_pem_files`].
#[derive(Clone, Debug)]
#[must_use = "call build() to read the files and make the configuration"]
pub struct ServerTlsBuilder {
    cert_chain: PathBuf,
    private_key: PathBuf,
    client_ca: Option<PathBuf>,
    allow_tls12: bool,
    key_exchange: KeyExchange,
    handshake_timeout: Duration,
}

impl ServerTlsBuilder {
    /// Require a client certificate signed by one of the CAs in this PEM file (mutual
    /// TLS). A client without one is refused during the handshake.
    pub fn client_ca_pem_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.client_ca = Some(path.into());
        self
    }

    /// Also accept TLS 1.2 (default: TLS 1.3 only).
    pub fn allow_tls12(mut self, allow: bool) -> Self {
        self.allow_tls12 = allow;
        self
    }

    /// The key exchange groups accepted, most preferred first (default
    /// [`KeyExchange::PostQuantumPreferred`]).
    pub fn key_exchange(mut self, key_exchange: KeyExchange) -> Self {
        self.key_exchange = key_exchange;
        self
    }

    /// How long a handshake may take (default
    /// [`ServerTls::DEFAULT_HANDSHAKE_TIMEOUT`]).
    pub fn handshake_timeout(mut self, timeout: Duration) -> Self {
        self.handshake_timeout = timeout;
        self
    }

    /// Read the PEM files and build the configuration.
    pub fn build(self) -> Result<ServerTls, TlsError> {
        let provider = self.key_exchange.provider();
        let chain = pem::certificates(&self.cert_chain, "certificate chain")?;
        let key = pem::private_key(&self.private_key)?;
        let builder = rustls::ServerConfig::builder_with_provider(Arc::clone(&provider))
            .with_protocol_versions(versions(self.allow_tls12))?;
        let builder = match &self.client_ca {
            None => builder.with_no_client_auth(),
            Some(path) => {
                let roots = pem::roots(path, "client CA certificates")?;
                let verifier =
                    WebPkiClientVerifier::builder_with_provider(roots.into(), provider).build()?;
                builder.with_client_cert_verifier(verifier)
            }
        };
        let config = builder.with_single_cert(chain, key)?;
        Ok(ServerTls {
            config: Arc::new(config),
            handshake_timeout: self.handshake_timeout,
        })
    }
}

/// The TLS counters of a server, kept inside its `ServerStats`.
#[derive(Debug, Default)]
pub(crate) struct TlsCounters {
    completed: AtomicU64,
    failed: AtomicU64,
    timed_out: AtomicU64,
    x25519_mlkem768: AtomicU64,
    x25519: AtomicU64,
}

impl TlsCounters {
    fn completed(&self, info: &TlsInfo) {
        self.completed_with(info.key_exchange);
    }

    /// A finished handshake that agreed on `group`.
    pub(crate) fn completed_with(&self, group: Option<NamedGroup>) {
        self.completed.fetch_add(1, Ordering::Relaxed);
        match group {
            Some(NamedGroup::X25519MLKEM768) => {
                self.x25519_mlkem768.fetch_add(1, Ordering::Relaxed)
            }
            Some(NamedGroup::X25519) => self.x25519.fetch_add(1, Ordering::Relaxed),
            _ => 0,
        };
    }

    /// A handshake that failed.
    pub(crate) fn failed(&self) {
        self.failed.fetch_add(1, Ordering::Relaxed);
    }

    /// A handshake that did not finish in time.
    pub(crate) fn timed_out(&self) {
        self.timed_out.fetch_add(1, Ordering::Relaxed);
    }
}

/// A snapshot of a server's TLS handshake counters ([`ServerStats::tls`]). Every
/// connection counted here is also counted in [`ServerStats::accepted`]: the handshake
/// runs after the accept, in the connection's task.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TlsStats {
    /// Handshakes that finished: the connection was then served.
    pub completed: u64,
    /// Handshakes that failed: not TLS, a bad or missing client certificate, no common
    /// group or version, the peer closing halfway.
    pub failed: u64,
    /// Handshakes that did not finish within the handshake timeout.
    pub timed_out: u64,
    /// Finished handshakes that agreed on `X25519MLKEM768` (ZAP/TCP and HTTP; the QUIC
    /// server counts its handshakes as neither group: quinn does not report it).
    pub x25519_mlkem768: u64,
    /// Finished handshakes that agreed on plain `X25519`.
    pub x25519: u64,
}

impl ServerStats {
    /// The TLS handshake counters (all zero for a server without TLS).
    pub fn tls(&self) -> TlsStats {
        let c = self.tls_counters();
        let get = |n: &AtomicU64| n.load(Ordering::Relaxed);
        TlsStats {
            completed: get(&c.completed),
            failed: get(&c.failed),
            timed_out: get(&c.timed_out),
            x25519_mlkem768: get(&c.x25519_mlkem768),
            x25519: get(&c.x25519),
        }
    }
}

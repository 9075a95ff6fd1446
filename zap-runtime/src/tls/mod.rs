//! TLS for the ZAP/TCP server, the client and the JSON-RPC/HTTP server (feature `tls`):
//! rustls on the aws-lc-rs provider, configured from PEM files.
//!
//! * **Post-quantum hybrid key exchange by default.** Both sides offer
//!   `X25519MLKEM768` (X25519 combined with ML-KEM-768) first and plain `X25519` as
//!   the fallback for peers without ML-KEM ([`KeyExchange`]). Which group a connection
//!   negotiated is in its [`TlsInfo`] (the client's `Client::tls_info`, the server's
//!   `ServerStats::tls` counts, and a `tracing::debug!` line per handshake).
//! * **TLS 1.3 only** unless TLS 1.2 is asked for (`allow_tls12(true)`).
//! * **Client certificates (mTLS)** when the server is given a CA file
//!   (`ServerTlsBuilder::client_ca_pem_file`): a client without a certificate
//!   signed by one of its CAs is refused during the handshake.
//! * **Fail closed.** A handshake that fails (a plaintext peer, garbage, a refused
//!   certificate) or does not finish within `ServerTls::handshake_timeout` closes that
//!   connection; nothing is ever served in plaintext on a TLS port. The handshake runs
//!   in the connection's own task, so a slow one holds up no other connection.
//!
//! ```no_run
//! # fn demo() -> Result<(), zap_runtime::tls::TlsError> {
//! use zap_runtime::server::ServerConfig;
//! use zap_runtime::tls::ServerTls;
//!
//! let tls = ServerTls::from_pem_files("server.crt", "server.key")
//!     .client_ca_pem_file("clients-ca.crt") // optional: require client certificates
//!     .build()?;
//! let config = ServerConfig { tls: Some(tls), ..ServerConfig::default() };
//! # let _ = config; Ok(())
//! # }
//! ```

mod client;
mod info;
mod pem;
#[cfg(any(feature = "server", feature = "http"))]
mod server;

use std::path::PathBuf;
use std::sync::Arc;

use rustls::crypto::{aws_lc_rs, CryptoProvider, SupportedKxGroup};

pub use client::{ClientTls, ClientTlsBuilder};
pub use info::TlsInfo;
/// The rustls types [`TlsInfo`] is made of, and rustls itself for hand-made configs
/// (`ServerTls::from_rustls`, [`ClientTls::from_rustls`]).
pub use rustls::{self, CipherSuite, NamedGroup, ProtocolVersion};
#[cfg(any(feature = "server", feature = "http"))]
pub(crate) use server::TlsCounters;
#[cfg(any(feature = "server", feature = "http"))]
pub use server::{ServerTls, ServerTlsBuilder, TlsStats};

/// Which key exchange groups a side offers, most preferred first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum KeyExchange {
    /// `X25519MLKEM768`, then `X25519`: post-quantum with every peer that has ML-KEM,
    /// classical with the others. The default.
    #[default]
    PostQuantumPreferred,
    /// `X25519MLKEM768` only: peers without ML-KEM fail the handshake.
    PostQuantumOnly,
    /// `X25519` only (for peers or measurements that must not use ML-KEM).
    Classical,
}

impl KeyExchange {
    /// The groups offered, most preferred first.
    pub fn groups(self) -> &'static [NamedGroup] {
        match self {
            KeyExchange::PostQuantumPreferred => &[NamedGroup::X25519MLKEM768, NamedGroup::X25519],
            KeyExchange::PostQuantumOnly => &[NamedGroup::X25519MLKEM768],
            KeyExchange::Classical => &[NamedGroup::X25519],
        }
    }

    fn kx_groups(self) -> Vec<&'static dyn SupportedKxGroup> {
        let hybrid = aws_lc_rs::kx_group::X25519MLKEM768;
        let classical = aws_lc_rs::kx_group::X25519;
        match self {
            KeyExchange::PostQuantumPreferred => vec![hybrid, classical],
            KeyExchange::PostQuantumOnly => vec![hybrid],
            KeyExchange::Classical => vec![classical],
        }
    }

    /// The aws-lc-rs provider restricted to these groups (its cipher suites unchanged).
    fn provider(self) -> Arc<CryptoProvider> {
        Arc::new(CryptoProvider {
            kx_groups: self.kx_groups(),
            ..aws_lc_rs::default_provider()
        })
    }
}

/// The protocol versions allowed: TLS 1.3, and TLS 1.2 only when asked for.
fn versions(allow_tls12: bool) -> &'static [&'static rustls::SupportedProtocolVersion] {
    static TLS13_ONLY: [&rustls::SupportedProtocolVersion; 1] = [&rustls::version::TLS13];
    static TLS13_AND_12: [&rustls::SupportedProtocolVersion; 2] =
        [&rustls::version::TLS13, &rustls::version::TLS12];
    if allow_tls12 {
        &TLS13_AND_12
    } else {
        &TLS13_ONLY
    }
}

/// Why a TLS configuration could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TlsError {
    /// A PEM file could not be read or parsed.
    #[error("cannot read the {what} from {}: {source}", path.display())]
    Pem {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: rustls::pki_types::pem::Error,
    },
    /// A PEM file holds nothing of the kind needed.
    #[error("{} holds no {what} (expected a PEM file with at least one)", path.display())]
    Empty { what: &'static str, path: PathBuf },
    /// rustls refused the configuration (e.g. a key that does not match the
    /// certificate, or a CA certificate it cannot use).
    #[error("TLS configuration refused: {0}")]
    Rustls(#[from] rustls::Error),
    /// The client-certificate verifier could not be built from the CA file.
    #[error("cannot verify client certificates: {0}")]
    ClientVerifier(#[from] rustls::server::VerifierBuilderError),
    /// The server name the client should check is neither a DNS name nor an IP address.
    #[error("{0:?} is not a valid server name (a DNS name or an IP address)")]
    ServerName(String),
    /// No root certificate could be loaded from the platform's store.
    #[error("no platform root certificates could be loaded ({0}); install the system CA bundle or give a CA file")]
    PlatformRoots(String),
}

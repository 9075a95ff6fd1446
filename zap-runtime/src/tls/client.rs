//! The client side: the roots a client trusts, the server name it checks, an optional
//! client certificate, and the handshake `Client::connect_with` runs.

use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use rustls::pki_types::ServerName;
use rustls::{NamedGroup, RootCertStore};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_rustls::client::TlsStream;
use tokio_rustls::TlsConnector;

use super::{pem, versions, KeyExchange, TlsError, TlsInfo};

/// A client's TLS settings: the rustls configuration (trusted roots, groups, versions,
/// optional client certificate) and the name the server's certificate must carry. Set
/// it as `client::ClientConfig::tls`; clones share the
/// configuration.
#[derive(Clone)]
pub struct ClientTls {
    config: Arc<rustls::ClientConfig>,
    server_name: ServerName<'static>,
}

impl ClientTls {
    /// Start building for a server whose certificate names `server_name` (a DNS name or
    /// an IP address). Trusts the platform's root certificates unless
    /// [`ca_pem_file`](ClientTlsBuilder::ca_pem_file) is given.
    pub fn builder(server_name: impl Into<String>) -> ClientTlsBuilder {
        ClientTlsBuilder {
            server_name: server_name.into(),
            ca: None,
            identity: None,
            allow_tls12: false,
            key_exchange: KeyExchange::default(),
        }
    }

    /// Use a rustls configuration made by hand, checking `server_name`.
    pub fn from_rustls(
        config: Arc<rustls::ClientConfig>,
        server_name: ServerName<'static>,
    ) -> ClientTls {
        ClientTls {
            config,
            server_name,
        }
    }

    /// The name the server's certificate must carry.
    pub fn server_name(&self) -> &ServerName<'static> {
        &self.server_name
    }

    /// The rustls configuration.
    pub fn rustls_config(&self) -> &Arc<rustls::ClientConfig> {
        &self.config
    }

    /// Run the client side of the handshake on `io` (no timeout of its own: the caller
    /// bounds it). Fails closed: any error leaves no usable stream.
    pub async fn connect<IO>(&self, io: IO) -> io::Result<(TlsStream<IO>, TlsInfo)>
    where
        IO: AsyncRead + AsyncWrite + Unpin,
    {
        let stream = TlsConnector::from(Arc::clone(&self.config))
            .connect(self.server_name.clone(), io)
            .await?;
        let info = TlsInfo::of(stream.get_ref().1);
        tracing::debug!(
            server_name = ?self.server_name,
            version = ?info.version,
            cipher_suite = ?info.cipher_suite,
            key_exchange = ?info.key_exchange,
            "zap client: TLS handshake done"
        );
        Ok((stream, info))
    }
}

impl core::fmt::Debug for ClientTls {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let groups: Vec<NamedGroup> = self
            .config
            .crypto_provider()
            .kx_groups
            .iter()
            .map(|g| g.name())
            .collect();
        f.debug_struct("ClientTls")
            .field("server_name", &self.server_name)
            .field("key_exchange", &groups)
            .field(
                "client_certificate",
                &self.config.client_auth_cert_resolver.has_certs(),
            )
            .finish_non_exhaustive()
    }
}

/// Builds a [`ClientTls`]; start with [`ClientTls::builder`].
#[derive(Clone, Debug)]
#[must_use = "call build() to read the files and make the configuration"]
pub struct ClientTlsBuilder {
    server_name: String,
    ca: Option<PathBuf>,
    identity: Option<(PathBuf, PathBuf)>,
    allow_tls12: bool,
    key_exchange: KeyExchange,
}

impl ClientTlsBuilder {
    /// Trust exactly the CA certificates in this PEM file (instead of the platform's
    /// roots): for servers with certificates from a private CA.
    pub fn ca_pem_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.ca = Some(path.into());
        self
    }

    /// Trust the platform's root certificates (the default).
    pub fn platform_roots(mut self) -> Self {
        self.ca = None;
        self
    }

    /// Present this certificate chain (PEM, leaf first) and key when the server asks for
    /// a client certificate (mutual TLS).
    pub fn client_cert_pem_files(
        mut self,
        cert_chain: impl Into<PathBuf>,
        private_key: impl Into<PathBuf>,
    ) -> Self {
        self.identity = Some((cert_chain.into(), private_key.into()));
        self
    }

    /// Also offer TLS 1.2 (default: TLS 1.3 only).
    pub fn allow_tls12(mut self, allow: bool) -> Self {
        self.allow_tls12 = allow;
        self
    }

    /// The key exchange groups offered, most preferred first (default
    /// [`KeyExchange::PostQuantumPreferred`]).
    pub fn key_exchange(mut self, key_exchange: KeyExchange) -> Self {
        self.key_exchange = key_exchange;
        self
    }

    /// Read the files (or the platform's roots) and build the configuration.
    pub fn build(self) -> Result<ClientTls, TlsError> {
        let server_name = ServerName::try_from(self.server_name.clone())
            .map_err(|_| TlsError::ServerName(self.server_name.clone()))?;
        let roots = match &self.ca {
            Some(path) => pem::roots(path, "CA certificates")?,
            None => platform_roots()?,
        };
        let builder = rustls::ClientConfig::builder_with_provider(self.key_exchange.provider())
            .with_protocol_versions(versions(self.allow_tls12))?
            .with_root_certificates(roots);
        let config = match &self.identity {
            None => builder.with_no_client_auth(),
            Some((chain, key)) => builder.with_client_auth_cert(
                pem::certificates(chain, "client certificate chain")?,
                pem::private_key(key)?,
            )?,
        };
        Ok(ClientTls {
            config: Arc::new(config),
            server_name,
        })
    }
}

/// The platform's trusted roots (rustls-native-certs: the system store, or the files
/// `SSL_CERT_FILE` / `SSL_CERT_DIR` name). Certificates that do not parse are skipped;
/// none at all is an error.
fn platform_roots() -> Result<RootCertStore, TlsError> {
    let found = rustls_native_certs::load_native_certs();
    let mut roots = RootCertStore::empty();
    let (_added, _skipped) = roots.add_parsable_certificates(found.certs);
    if roots.is_empty() {
        let why = match found.errors.first() {
            Some(e) => e.to_string(),
            None => "the store is empty".to_owned(),
        };
        return Err(TlsError::PlatformRoots(why));
    }
    for e in &found.errors {
        tracing::debug!("zap client: skipping part of the platform's root store: {e}");
    }
    Ok(roots)
}

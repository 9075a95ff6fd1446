//! Reaching a running server from the command line: the connection options `zapc
//! call`, `describe`, `health` and `compat` share, one transport over TCP, TLS, a unix
//! socket or QUIC, and the schema a server describes (reflection).

use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use zap_runtime::builtin::{self, Description, ServiceDescription};
use zap_runtime::client::{Client, ClientConfig};
use zap_runtime::frame::Framing;
use zap_runtime::quic::{QuicClient, QuicClientConfig};
use zap_runtime::stream::StreamIo;
use zap_runtime::tls::ClientTls;
use zap_runtime::{Bytes, ClientError, Transport};

/// A usage error (exit 2) or a failed call (exit 1), with its message.
pub enum Failure {
    Usage(String),
    Call(String),
}

impl Failure {
    /// Print the message, return the exit status.
    pub fn report(self) -> std::process::ExitCode {
        match self {
            Failure::Usage(message) => {
                eprintln!("error: {message}");
                std::process::ExitCode::from(2)
            }
            Failure::Call(message) => {
                eprintln!("error: {message}");
                std::process::ExitCode::FAILURE
            }
        }
    }
}

/// How to reach the server.
#[derive(Debug, clap::Args)]
pub struct ConnectArgs {
    /// A capability to send in the call's Cap field: a file holding the capability (or
    /// chain) message, as `zap_runtime::cap::issue` writes it.
    #[arg(long, value_name = "FILE")]
    pub cap_file: Option<PathBuf>,
    /// Speak the node framing (luxfi/zap nodes, TypeScript servers) instead of the RPC
    /// framing.
    #[arg(long, conflicts_with = "quic")]
    pub node: bool,
    /// Call over QUIC (ADDR is then a UDP address; always TLS, ALPN zap/1): the Go
    /// runtime's QUIC transport and `eth-rpc --quic-addr`.
    #[arg(long)]
    pub quic: bool,
    /// Connect over TLS 1.3 (X25519MLKEM768 preferred), trusting the platform's roots
    /// unless --ca names a CA.
    #[arg(long)]
    pub tls: bool,
    /// Connect over TLS trusting the CA (or self-signed certificate) in this PEM file.
    #[arg(long, value_name = "PEM")]
    pub ca: Option<PathBuf>,
    /// The name the server's certificate must carry (default: the host of ADDR).
    #[arg(long, value_name = "NAME")]
    pub server_name: Option<String>,
    /// A client certificate for servers that require one (mutual TLS), with --key.
    #[arg(long, value_name = "PEM", requires = "key")]
    pub cert: Option<PathBuf>,
    /// The client certificate's private key.
    #[arg(long, value_name = "PEM", requires = "cert")]
    pub key: Option<PathBuf>,
    /// Seconds to wait for the connection and for each answer (not for a stream's
    /// messages: a stream lasts until the server ends it). Local only: the server is
    /// not told.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub timeout: f64,
}

/// A connection to a server, over whichever transport the options chose.
pub enum Remote {
    Tcp(Client),
    Quic(QuicClient),
}

impl Transport for Remote {
    async fn call(&self, ordinal: u32, payload: &[u8]) -> Result<Vec<u8>, ClientError> {
        match self {
            Remote::Tcp(client) => client.call(ordinal, payload).await,
            Remote::Quic(client) => client.call(ordinal, payload).await,
        }
    }

    async fn call_bytes(&self, ordinal: u32, payload: &[u8]) -> Result<Bytes, ClientError> {
        match self {
            Remote::Tcp(client) => client.call_bytes(ordinal, payload).await,
            Remote::Quic(client) => client.call_bytes(ordinal, payload).await,
        }
    }

    async fn open_stream(&self, ordinal: u32, open: &[u8]) -> Result<StreamIo, ClientError> {
        match self {
            Remote::Tcp(client) => client.open_stream(ordinal, open).await,
            Remote::Quic(client) => client.open_stream(ordinal, open).await,
        }
    }
}

impl Remote {
    /// Close the connection (QUIC says goodbye; TCP closes when dropped).
    pub async fn close(self) {
        if let Remote::Quic(client) = self {
            client.close().await;
        }
    }
}

/// A runtime for one command's I/O.
pub fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Call(format!("cannot start the I/O runtime: {e}")))
}

impl ConnectArgs {
    /// `--timeout` as a duration.
    pub fn timeout(&self) -> Result<Duration, Failure> {
        Duration::try_from_secs_f64(self.timeout)
            .map_err(|e| Failure::Usage(format!("--timeout {}: {e}", self.timeout)))
    }

    /// Connect to `addr` (HOST:PORT, or unix:PATH), sending `deadline` with every call.
    pub async fn connect(&self, addr: &str, deadline: Option<Duration>) -> Result<Remote, Failure> {
        let timeout = self.timeout()?;
        let cap = match &self.cap_file {
            Some(file) => std::fs::read(file).map_err(|e| {
                Failure::Usage(format!("cannot read --cap-file {}: {e}", file.display()))
            })?,
            None => Vec::new(),
        };
        if self.quic {
            let tls = self
                .tls_for(addr, true)
                .map_err(Failure::Usage)?
                .ok_or_else(|| Failure::Usage("QUIC needs TLS settings".into()))?;
            let config = QuicClientConfig {
                connect_timeout: timeout,
                call_timeout: timeout,
                deadline,
                cap,
                ..Default::default()
            };
            let resolved = tokio::net::lookup_host(addr)
                .await
                .ok()
                .and_then(|mut addrs| addrs.next())
                .ok_or_else(|| {
                    Failure::Usage(format!("{addr} is not a HOST:PORT that resolves"))
                })?;
            let client = QuicClient::connect(resolved, &tls, config)
                .await
                .map_err(|e| Failure::Call(format!("cannot connect to {addr} over QUIC: {e}")))?;
            return Ok(Remote::Quic(client));
        }
        let config = ClientConfig {
            connect_timeout: timeout,
            call_timeout: timeout,
            deadline,
            tls: self.tls_for(addr, false).map_err(Failure::Usage)?,
            cap,
            framing: if self.node {
                Framing::Node
            } else {
                Framing::Rpc
            },
            ..ClientConfig::default()
        };
        let connected = match addr.strip_prefix("unix:") {
            Some(path) => Client::connect_unix(path, config).await,
            None => Client::connect_with(addr, config).await,
        };
        connected
            .map(Remote::Tcp)
            .map_err(|e| Failure::Call(format!("cannot connect to {addr}: {e}")))
    }

    /// The TLS settings the options ask for (with `always`, the platform's roots when
    /// none are named); `None` for plain TCP.
    fn tls_for(&self, addr: &str, always: bool) -> Result<Option<ClientTls>, String> {
        if !always && !self.tls && self.ca.is_none() && self.cert.is_none() {
            return Ok(None);
        }
        let name = match &self.server_name {
            Some(name) => name.clone(),
            None => match addr.rsplit_once(':') {
                Some((host, _)) => host
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .to_owned(),
                None => addr.to_owned(),
            },
        };
        let mut builder = ClientTls::builder(name);
        builder = match &self.ca {
            Some(ca) => builder.ca_pem_file(ca),
            None => builder.platform_roots(),
        };
        if let (Some(cert), Some(key)) = (&self.cert, &self.key) {
            builder = builder.client_cert_pem_files(cert, key);
        }
        builder.build().map(Some).map_err(|e| format!("TLS: {e}"))
    }
}

/// An error answer or a failure, in words.
pub fn describe_error(e: &ClientError) -> String {
    match e {
        ClientError::Status { status, message } => {
            format!("the server answered {status}: {message}")
        }
        ClientError::App(app) => format!(
            "application error {}: {}{}",
            app.code.get(),
            app.message,
            app.data
                .as_ref()
                .map_or_else(String::new, |d| format!(" (data: {d})"))
        ),
        other => other.to_string(),
    }
}

/// Ask the server at `addr` to describe itself; a server that does not answer is told
/// apart in the message, which says what to do instead.
pub async fn describe(remote: &Remote, addr: &str) -> Result<Description, Failure> {
    builtin::describe(remote).await.map_err(|e| {
        Failure::Call(format!(
            "{addr} does not answer reflection (Describe, ordinal 0xFFFFFF01): {}; \
             a server of another runtime (the Go runtime's, for one) may not implement it: \
             give the schema with --schema FILE",
            describe_error(&e)
        ))
    })
}

/// The service `name` of a description (the only one when `name` is `None`).
pub fn service<'d>(
    description: &'d Description,
    name: Option<&str>,
    addr: &str,
) -> Result<&'d ServiceDescription, Failure> {
    let names = || {
        description
            .services
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match name {
        Some(name) => description
            .services
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| {
                Failure::Usage(format!(
                    "{addr} serves no interface {name:?}; it serves: {}",
                    names()
                ))
            }),
        None => match description.services.as_slice() {
            [one] => Ok(one),
            [] => Err(Failure::Call(format!("{addr} describes no service"))),
            _ => Err(Failure::Usage(format!(
                "{addr} serves {}: name one",
                names()
            ))),
        },
    }
}

/// Write a described service's schema files under a new folder of the system's
/// temporary directory and load the schema from there; the folder is removed after.
/// The files' hash is checked first: files that do not match it are refused.
pub fn load_described(
    service: &ServiceDescription,
    addr: &str,
) -> Result<zapc::ir::Schema, Failure> {
    let files = checked_files(service, addr)?;
    let dir = TempDir::new()
        .map_err(|e| Failure::Call(format!("cannot make a folder for {addr}'s schema: {e}")))?;
    write_files(&files, dir.path()).map_err(Failure::Call)?;
    zapc::load_file(&dir.path().join(&files[0].path)).map_err(|e| {
        Failure::Call(format!(
            "the schema {addr} describes does not load here:\n{e}"
        ))
    })
}

/// The files of a described service, checked against its hash.
pub fn checked_files(
    service: &ServiceDescription,
    addr: &str,
) -> Result<Vec<zapc::SourceFile>, Failure> {
    if service.files.is_empty() {
        return Err(Failure::Call(format!(
            "{addr} describes {} without its schema (its service embeds no schema files): \
             give the schema with --schema FILE",
            service.name
        )));
    }
    let files: Vec<zapc::SourceFile> = service
        .files
        .iter()
        .map(|f| zapc::SourceFile {
            path: f.path.clone(),
            text: f.text.clone(),
        })
        .collect();
    let hash = zapc::schema_hash(&files);
    if hash.as_slice() != service.schema_hash.as_slice() {
        return Err(Failure::Call(format!(
            "the schema files {addr} sends do not match the hash it gives \
             (sha256 {} against {}): refused",
            hex(&hash),
            hex(&service.schema_hash)
        )));
    }
    for file in &files {
        safe_path(&file.path).map_err(|why| {
            Failure::Call(format!("{addr} names a schema file {:?}: {why}", file.path))
        })?;
    }
    Ok(files)
}

/// Write `files` under `dir` (their paths checked by [`checked_files`]).
pub fn write_files(files: &[zapc::SourceFile], dir: &Path) -> Result<(), String> {
    for file in files {
        let path = dir.join(&file.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        std::fs::write(&path, &file.text)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

/// A schema file's path must stay inside the folder it is written to.
fn safe_path(path: &str) -> Result<(), &'static str> {
    let path = Path::new(path);
    if path.as_os_str().is_empty() {
        return Err("an empty path");
    }
    if path.components().all(|c| matches!(c, Component::Normal(_))) {
        Ok(())
    } else {
        Err("only relative paths inside the schema's folder are written (no `..`, no root)")
    }
}

/// Lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A folder of the system's temporary directory, removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new() -> std::io::Result<TempDir> {
        use std::time::{SystemTime, UNIX_EPOCH};
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = std::env::temp_dir().join(format!("zapc-{}-{nanos}", std::process::id()));
        std::fs::create_dir(&dir)?;
        Ok(TempDir(dir))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

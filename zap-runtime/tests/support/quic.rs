//! QUIC servers for tests: a service on 127.0.0.1 with the test PKI's server
//! certificate, and the client TLS that trusts it.
#![allow(dead_code)] // each test file uses part of it

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::task::JoinHandle;
use zap_runtime::quic::{QuicConfig, QuicServer};
use zap_runtime::server::CancellationToken;
use zap_runtime::tls::{ClientTls, ServerTls};
use zap_runtime::Service;

use crate::pki::Pki;

/// A running QUIC server: its address, the token that stops it, and its task.
pub struct QuicTest {
    pub addr: SocketAddr,
    pub stop: CancellationToken,
    pub task: JoinHandle<std::io::Result<()>>,
}

impl QuicTest {
    /// Serve `service` with `config` on `addr` (port 0 for any).
    pub fn start<S: Service>(
        pki: &Pki,
        addr: SocketAddr,
        service: Arc<S>,
        config: QuicConfig,
    ) -> QuicTest {
        let tls = ServerTls::from_pem_files(pki.path("server.pem"), pki.path("server.key"))
            .build()
            .expect("the test PKI's server certificate");
        let server = QuicServer::bind(addr, service, &tls, config).expect("a UDP port");
        let addr = server.local_addr().expect("the bound address");
        let stop = CancellationToken::new();
        let task = tokio::spawn(server.run(stop.clone()));
        QuicTest { addr, stop, task }
    }

    /// Serve `service` with `config` on an ephemeral port of 127.0.0.1.
    pub fn any_port<S: Service>(pki: &Pki, service: Arc<S>, config: QuicConfig) -> QuicTest {
        QuicTest::start(pki, "127.0.0.1:0".parse().unwrap(), service, config)
    }

    /// Stop it (a drain) and wait until its endpoint is closed and its port free.
    pub async fn stop(self) {
        self.stop.cancel();
        self.task
            .await
            .expect("the server task")
            .expect("the server ends without error");
    }
}

/// Client TLS for `localhost` trusting the test PKI's CA.
pub fn client_tls(pki: &Pki) -> ClientTls {
    ClientTls::builder("localhost")
        .ca_pem_file(pki.path("ca.pem"))
        .build()
        .expect("the test PKI's CA")
}

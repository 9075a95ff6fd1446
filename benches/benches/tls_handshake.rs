//! TLS handshakes per second, X25519MLKEM768 (the default) against plain X25519.
//!
//! * `tls_handshake/memory/*`: a full TLS 1.3 handshake between a rustls client and
//!   server in one thread, bytes passed through memory: the CPU cost of both sides
//!   (key shares, ML-KEM encapsulation, the certificate signature and its check).
//! * `tls_handshake/tcp/*`: what a ZAP client pays to get going: TCP connect to a
//!   running zap-runtime TLS server on loopback, the handshake, one call answered.
//!
//! Certificates (ECDSA P-256) are made with rcgen at start. Session resumption is off,
//! so every handshake is a full one. The server offers both groups; the client picks
//! by what it offers (`KeyExchange::PostQuantumPreferred` or `KeyExchange::Classical`).

#[path = "../../zap-runtime/tests/tls_support/pki.rs"]
mod pki;

use std::hint::black_box;
use std::net::SocketAddr;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use zap_runtime::client::{Client, ClientConfig};
use zap_runtime::server::{CancellationToken, Server, ServerConfig};
use zap_runtime::tls::rustls::{self, Connection};
use zap_runtime::tls::{ClientTls, KeyExchange, NamedGroup, ServerTls};
use zap_runtime::{Builder, CallError, MethodInfo, Reply, Service, Transport};

/// The two client offers compared, with the group each must end with.
const OFFERS: [(&str, KeyExchange, NamedGroup); 2] = [
    (
        "X25519MLKEM768",
        KeyExchange::PostQuantumPreferred,
        NamedGroup::X25519MLKEM768,
    ),
    ("X25519", KeyExchange::Classical, NamedGroup::X25519),
];

fn server_tls(pki: &pki::Pki) -> ServerTls {
    ServerTls::from_pem_files(pki.path("server.pem"), pki.path("server.key"))
        .build()
        .expect("server TLS")
}

/// A client configuration offering `offer`, without session resumption.
fn client_tls(pki: &pki::Pki, offer: KeyExchange) -> ClientTls {
    let tls = ClientTls::builder("localhost")
        .ca_pem_file(pki.path("ca.pem"))
        .key_exchange(offer)
        .build()
        .expect("client TLS");
    let mut config = (**tls.rustls_config()).clone();
    config.resumption = rustls::client::Resumption::disabled();
    ClientTls::from_rustls(Arc::new(config), tls.server_name().clone())
}

/// Move every TLS byte `from` wants to send into `to`.
fn pass(from: &mut Connection, to: &mut Connection, wire: &mut Vec<u8>) {
    wire.clear();
    while from.wants_write() {
        from.write_tls(wire).expect("write to memory");
    }
    let mut rest = &wire[..];
    while !rest.is_empty() {
        to.read_tls(&mut rest).expect("read from memory");
        to.process_new_packets().expect("a valid handshake");
    }
}

/// One full handshake in memory; the group it agreed on.
fn handshake(
    client: &Arc<rustls::ClientConfig>,
    server: &Arc<rustls::ServerConfig>,
    name: &rustls::pki_types::ServerName<'static>,
    wire: &mut Vec<u8>,
) -> Option<NamedGroup> {
    let mut c = Connection::from(
        rustls::ClientConnection::new(Arc::clone(client), name.clone()).expect("client"),
    );
    let mut s =
        Connection::from(rustls::ServerConnection::new(Arc::clone(server)).expect("server"));
    while c.is_handshaking() || s.is_handshaking() {
        pass(&mut c, &mut s, wire);
        pass(&mut s, &mut c, wire);
    }
    c.negotiated_key_exchange_group().map(|g| g.name())
}

fn memory(c: &mut Criterion) {
    let pki = pki::Pki::new();
    let server = server_tls(&pki);
    let mut g = c.benchmark_group("tls_handshake/memory");
    g.throughput(Throughput::Elements(1));
    let mut wire = Vec::with_capacity(16 << 10);
    for (label, offer, group) in OFFERS {
        let client = client_tls(&pki, offer);
        let (config, name) = (client.rustls_config(), client.server_name());
        let got = handshake(config, server.rustls_config(), name, &mut wire);
        assert_eq!(
            got,
            Some(group),
            "the offer {label} must agree on {group:?}"
        );
        g.bench_function(label, |b| {
            b.iter(|| black_box(handshake(config, server.rustls_config(), name, &mut wire)))
        });
    }
    g.finish();
}

/// Method 1 answers an empty body.
struct Ping;

impl Service for Ping {
    const NAME: &'static str = "Ping";
    const METHODS: &'static [MethodInfo] = &[];
    async fn call<'a>(
        &'a self,
        ordinal: u32,
        _: &'a [u8],
        _: &'a mut Builder,
    ) -> Result<Reply, CallError> {
        match ordinal {
            1 => Ok(Reply::Empty),
            n => Err(CallError::unknown_method(Self::NAME, n)),
        }
    }
}

fn tcp(c: &mut Criterion) {
    let pki = pki::Pki::new();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio");
    let stop = CancellationToken::new();
    let addr: SocketAddr = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let config = ServerConfig {
            tls: Some(server_tls(&pki)),
            ..ServerConfig::default()
        };
        tokio::spawn(Server::new(listener, Arc::new(Ping), config).run(stop.clone()));
        addr
    });
    let mut g = c.benchmark_group("tls_handshake/tcp");
    g.throughput(Throughput::Elements(1));
    for (label, offer, group) in OFFERS {
        let config = ClientConfig {
            tls: Some(client_tls(&pki, offer)),
            ..ClientConfig::default()
        };
        let connect_and_call = || async {
            let client = Client::connect_with(addr, config.clone())
                .await
                .expect("connect");
            client.call(1, b"").await.expect("call");
            client.tls_info().and_then(|i| i.key_exchange)
        };
        assert_eq!(runtime.block_on(connect_and_call()), Some(group));
        g.bench_function(label, |b| {
            b.iter(|| black_box(runtime.block_on(connect_and_call())))
        });
    }
    g.finish();
    stop.cancel();
}

criterion_group!(benches, memory, tcp);
criterion_main!(benches);

//! What a finished handshake agreed on.

use rustls::{CipherSuite, CommonState, NamedGroup, ProtocolVersion};

/// The parameters one TLS connection negotiated: what a client reports with
/// `Client::tls_info`, what the servers count and log per handshake.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct TlsInfo {
    /// The protocol version (`TLSv1_3`, or `TLSv1_2` where allowed).
    pub version: Option<ProtocolVersion>,
    /// The cipher suite.
    pub cipher_suite: Option<CipherSuite>,
    /// The key exchange group: `X25519MLKEM768` (post-quantum hybrid) or `X25519`.
    pub key_exchange: Option<NamedGroup>,
    /// The application protocol agreed by ALPN, if any (the HTTP server offers
    /// `http/1.1`).
    pub alpn: Option<Vec<u8>>,
    /// Whether the peer presented a certificate (always, for a client's view of the
    /// server; for the server, only with client-certificate authentication).
    pub peer_certificate: bool,
}

impl TlsInfo {
    /// Read off a connection whose handshake has finished.
    pub(crate) fn of(state: &CommonState) -> TlsInfo {
        TlsInfo {
            version: state.protocol_version(),
            cipher_suite: state.negotiated_cipher_suite().map(|s| s.suite()),
            key_exchange: state.negotiated_key_exchange_group().map(|g| g.name()),
            alpn: state.alpn_protocol().map(<[u8]>::to_vec),
            peer_certificate: state.peer_certificates().is_some_and(|c| !c.is_empty()),
        }
    }

    /// Whether the key exchange was the post-quantum hybrid (`X25519MLKEM768`).
    pub fn is_post_quantum(&self) -> bool {
        self.key_exchange == Some(NamedGroup::X25519MLKEM768)
    }
}

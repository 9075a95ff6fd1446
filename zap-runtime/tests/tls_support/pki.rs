//! A throw-away PKI for TLS tests, made with rcgen in a temp dir: a CA, a server
//! certificate for `localhost` and 127.0.0.1 signed by it, a client certificate signed by
//! it, and a second CA (with its own client certificate) that nothing trusts.
//! Shared by zap-runtime's and eth-rpc's TLS tests.
#![allow(dead_code)] // each test file uses part of it

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};

/// The files of the PKI; removed when dropped.
pub struct Pki {
    dir: tempfile::TempDir,
}

impl Pki {
    /// Make every certificate and key.
    pub fn new() -> Pki {
        let dir = tempfile::tempdir().expect("a temp dir");
        let ca = make_ca("zap test CA");
        let other_ca = make_ca("zap untrusted CA");
        leaf(
            dir.path(),
            "server",
            &ca,
            &["localhost", "127.0.0.1"],
            ExtendedKeyUsagePurpose::ServerAuth,
        );
        leaf(
            dir.path(),
            "client",
            &ca,
            &["client.zap.test"],
            ExtendedKeyUsagePurpose::ClientAuth,
        );
        leaf(
            dir.path(),
            "rogue-client",
            &other_ca,
            &["rogue.zap.test"],
            ExtendedKeyUsagePurpose::ClientAuth,
        );
        leaf(
            dir.path(),
            "rogue-server",
            &other_ca,
            &["localhost", "127.0.0.1"],
            ExtendedKeyUsagePurpose::ServerAuth,
        );
        write(dir.path(), "ca.pem", &ca.pem());
        write(dir.path(), "other-ca.pem", &other_ca.pem());
        Pki { dir }
    }

    /// A file of the PKI: `ca.pem`, `other-ca.pem`, `server.pem` / `server.key`,
    /// `client.pem` / `client.key`, `rogue-client.pem` / `rogue-client.key` (signed by the
    /// untrusted CA), `rogue-server.pem` / `rogue-server.key`.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

fn make_ca(name: &str) -> CertifiedIssuer<'static, KeyPair> {
    let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    params.distinguished_name.push(DnType::CommonName, name);
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    CertifiedIssuer::self_signed(params, KeyPair::generate().expect("CA key")).expect("CA cert")
}

fn leaf(
    dir: &Path,
    name: &str,
    issuer: &CertifiedIssuer<'static, KeyPair>,
    names: &[&str],
    usage: ExtendedKeyUsagePurpose,
) {
    let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let mut params = CertificateParams::new(names).expect("leaf params");
    params.distinguished_name.push(DnType::CommonName, name);
    params.extended_key_usages = vec![usage];
    params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    let key = KeyPair::generate().expect("leaf key");
    let cert = params.signed_by(&key, issuer).expect("leaf cert");
    write(dir, &format!("{name}.pem"), &cert.pem());
    write(dir, &format!("{name}.key"), &key.serialize_pem());
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).expect("write a PEM file");
}

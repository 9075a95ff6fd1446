//! Certificates, keys and CA bundles from PEM files (rustls-pki-types' PEM parser).

use std::path::Path;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::RootCertStore;

use super::TlsError;

/// Every certificate in the PEM file at `path` (a chain: leaf first), at least one.
pub(crate) fn certificates(
    path: &Path,
    what: &'static str,
) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let pem_error = |source| TlsError::Pem {
        what,
        path: path.to_owned(),
        source,
    };
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(pem_error)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(pem_error)?;
    if certs.is_empty() {
        return Err(TlsError::Empty {
            what,
            path: path.to_owned(),
        });
    }
    Ok(certs)
}

/// The first private key (PKCS#8, PKCS#1 or SEC1) in the PEM file at `path`.
pub(crate) fn private_key(path: &Path) -> Result<PrivateKeyDer<'static>, TlsError> {
    const WHAT: &str = "private key";
    PrivateKeyDer::from_pem_file(path).map_err(|source| match source {
        rustls::pki_types::pem::Error::NoItemsFound => TlsError::Empty {
            what: WHAT,
            path: path.to_owned(),
        },
        source => TlsError::Pem {
            what: WHAT,
            path: path.to_owned(),
            source,
        },
    })
}

/// A root store holding every CA certificate in the PEM file at `path`. A certificate
/// rustls cannot use as a trust anchor is an error, not skipped: a CA file is meant whole.
pub(crate) fn roots(path: &Path, what: &'static str) -> Result<RootCertStore, TlsError> {
    let mut roots = RootCertStore::empty();
    for cert in certificates(path, what)? {
        roots.add(cert)?;
    }
    Ok(roots)
}

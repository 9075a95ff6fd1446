//! Trust files: the root issuers a server accepts.
//!
//! One issuer per line, `<scheme> <public key hex>`, where the scheme is `ed25519`,
//! `mldsa65` or `secp256k1` and the key is the raw bytes the peers' `public_key_bytes()`
//! export (Ed25519 32 bytes, ML-DSA-65 1952 bytes, secp256k1 65 bytes uncompressed
//! `04 || X || Y`), in hex without `0x`. `#` starts a comment that runs to the end of the
//! line; blank lines are skipped. The same key twice is an error.
//!
//! ```text
//! # staging issuers
//! ed25519 3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c
//! ```

use super::scheme::{PublicKey, Scheme};

/// A trust file line that is not a trusted issuer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("trust file line {line}: {reason}")]
pub struct TrustFileError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub reason: String,
}

/// Parse a trust file (see the module docs) into public keys, in file order.
pub fn parse_trust_file(text: &str) -> Result<Vec<PublicKey>, TrustFileError> {
    let mut keys: Vec<(usize, PublicKey)> = Vec::new();
    for (i, raw_line) in text.lines().enumerate() {
        let line = i + 1;
        let err = |reason: String| TrustFileError { line, reason };
        let content = raw_line.split('#').next().unwrap_or_default().trim();
        if content.is_empty() {
            continue;
        }
        let mut fields = content.split_whitespace();
        let (Some(name), Some(hex_key), None) = (fields.next(), fields.next(), fields.next())
        else {
            return Err(err(format!(
                "expected `<scheme> <public key hex>`, got {content:?}"
            )));
        };
        let scheme = Scheme::from_name(name).ok_or_else(|| {
            err(format!(
                "unknown scheme {name:?} (expected ed25519, mldsa65 or secp256k1)"
            ))
        })?;
        if hex_key.starts_with("0x") || hex_key.starts_with("0X") {
            return Err(err("the key is written without a 0x prefix".into()));
        }
        let bytes = hex::decode(hex_key).map_err(|e| err(format!("the key is not hex: {e}")))?;
        let key = PublicKey::from_bytes(scheme, &bytes).map_err(|e| err(e.to_string()))?;
        if let Some((first, _)) = keys.iter().find(|(_, k)| k == &key) {
            return Err(err(format!(
                "the same key is already trusted on line {first}"
            )));
        }
        keys.push((line, key));
    }
    Ok(keys.into_iter().map(|(_, k)| k).collect())
}

/// One trust file line for `key` (without a newline).
pub fn trust_file_line(key: &PublicKey) -> String {
    format!("{} {}", key.scheme(), hex::encode(key.as_bytes()))
}

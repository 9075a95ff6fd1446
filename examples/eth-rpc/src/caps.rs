//! `--cap-trust FILE --cap-target HEX`: the capability policy both transports check.

use std::path::Path;

use zap_runtime::cap::{parse_trust_file, Policy};
use zap_runtime::Service;

use crate::eth::EthService;
use crate::LedgerEth;

/// Build the policy: the trusted issuers of `trust_file` (one per line,
/// `ed25519|mldsa65|secp256k1 <public key hex>`, `#` comments), the 32-byte `target`
/// (64 hex digits), and the permission bits each method of `eth.zap` `requires`.
pub fn load_policy(trust_file: &Path, target: &str) -> Result<Policy, String> {
    let text = std::fs::read_to_string(trust_file)
        .map_err(|e| format!("cannot read --cap-trust {}: {e}", trust_file.display()))?;
    let issuers = parse_trust_file(&text)
        .map_err(|e| format!("--cap-trust {}: {e}", trust_file.display()))?;
    if issuers.is_empty() {
        return Err(format!(
            "--cap-trust {} names no issuer: no capability could ever be accepted",
            trust_file.display()
        ));
    }
    let target = parse_target(target)?;
    let policy = Policy::builder(target)
        .trust_all(issuers)
        .methods(<EthService<LedgerEth> as Service>::METHODS)
        .build();
    Ok(policy)
}

/// A target id: exactly 64 hex digits, no `0x`.
fn parse_target(text: &str) -> Result<[u8; 32], String> {
    let text = text.trim();
    let bad = || format!("--cap-target must be 64 hex digits (a 32-byte id, no 0x); got {text:?}");
    if text.len() != 64 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(bad());
    }
    let mut target = [0u8; 32];
    for (i, byte) in target.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
    }
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::parse_target;

    #[test]
    fn targets_are_exactly_64_hex_digits() {
        let ok = "ab".repeat(32);
        assert_eq!(parse_target(&ok).unwrap(), [0xab; 32]);
        for bad in [
            "",
            "0x",
            &format!("0x{}", "ab".repeat(31)),
            &"ab".repeat(31),
            &"zz".repeat(32),
        ] {
            assert!(parse_target(bad).is_err(), "{bad:?}");
        }
    }
}

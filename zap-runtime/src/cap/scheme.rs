//! Signature schemes: the tag in the last byte of `Sig`, public keys as the peers export
//! them, issuer ids, and fail-closed signature verification.

use core::fmt;

use k256::ecdsa::signature::Verifier as _;
use ml_dsa::{EncodedSignature, EncodedVerifyingKey, MlDsa65};
use sha2::{Digest, Sha256};

use super::error::Refusal;
use super::wire::{ALG_TAG_OFFSET, SIG_SIZE};

/// Tag 0x00: reserved, always refused (it is what a zero-filled footer carries).
pub const TAG_RESERVED: u8 = 0x00;
/// Tag 0x04: "Ed25519 || ML-DSA-65" per the peers' enum comment, but no peer defines its
/// public-key format or verifies it, so this runtime refuses it.
pub const TAG_HYBRID: u8 = 0x04;

/// A signature scheme this runtime implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scheme {
    /// Tag 0x01: ECDSA over secp256k1 with SHA-256; footer `r(32) || s(32) || v(1)`, v = 0.
    Secp256k1,
    /// Tag 0x02: Ed25519 (RFC 8032); footer starts with the 64-byte signature.
    Ed25519,
    /// Tag 0x03: ML-DSA-65 (FIPS 204, empty context); footer starts with 3309 bytes.
    MlDsa65,
}

impl Scheme {
    /// All implemented schemes.
    pub const ALL: [Scheme; 3] = [Scheme::Ed25519, Scheme::MlDsa65, Scheme::Secp256k1];

    /// The wire tag.
    pub fn tag(self) -> u8 {
        match self {
            Scheme::Secp256k1 => 0x01,
            Scheme::Ed25519 => 0x02,
            Scheme::MlDsa65 => 0x03,
        }
    }

    /// The scheme for a wire tag; reserved, hybrid and unknown tags are refused.
    pub fn from_tag(tag: u8) -> Result<Scheme, Refusal> {
        match tag {
            0x01 => Ok(Scheme::Secp256k1),
            0x02 => Ok(Scheme::Ed25519),
            0x03 => Ok(Scheme::MlDsa65),
            TAG_RESERVED => Err(Refusal::ReservedScheme),
            TAG_HYBRID => Err(Refusal::UnsupportedScheme(tag)),
            _ => Err(Refusal::UnknownScheme(tag)),
        }
    }

    /// The name used in trust files: `ed25519`, `mldsa65`, `secp256k1`.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Secp256k1 => "secp256k1",
            Scheme::Ed25519 => "ed25519",
            Scheme::MlDsa65 => "mldsa65",
        }
    }

    /// The scheme for a trust-file name.
    pub fn from_name(name: &str) -> Option<Scheme> {
        Scheme::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Length of the raw public key as the peers export it.
    pub fn public_key_len(self) -> usize {
        match self {
            Scheme::Secp256k1 => 65,
            Scheme::Ed25519 => 32,
            Scheme::MlDsa65 => 1952,
        }
    }

    /// Length of the primitive signature at the front of the footer.
    pub fn signature_len(self) -> usize {
        match self {
            Scheme::Secp256k1 => 65,
            Scheme::Ed25519 => 64,
            Scheme::MlDsa65 => 3309,
        }
    }
}

impl fmt::Display for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why raw bytes are not a public key of a scheme.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// Wrong length for the scheme.
    #[error("a {scheme} public key is {expected} bytes, got {got}")]
    Length {
        /// The scheme.
        scheme: Scheme,
        /// Its key length.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// Right length, but not a valid point/key.
    #[error("not a valid {0} public key")]
    Invalid(Scheme),
    /// A secret key could not be made (bad bytes or no randomness).
    #[error("cannot make a {0} signing key: {1}")]
    Secret(Scheme, &'static str),
}

#[derive(Clone)]
enum Inner {
    Ed25519(ed25519_dalek::VerifyingKey),
    Secp256k1(k256::ecdsa::VerifyingKey),
    MlDsa65(Box<ml_dsa::VerifyingKey<MlDsa65>>),
}

/// A public key of one scheme, its raw bytes exactly as the peers'
/// `public_key_bytes()` export them, and its issuer id `SHA-256(raw bytes)`.
#[derive(Clone)]
pub struct PublicKey {
    scheme: Scheme,
    raw: Box<[u8]>,
    id: [u8; 32],
    inner: Inner,
}

impl PublicKey {
    /// Parse raw key bytes: Ed25519 32 bytes; secp256k1 65 bytes uncompressed SEC1
    /// (`04 || X || Y`); ML-DSA-65 the 1952-byte FIPS 204 encoding.
    pub fn from_bytes(scheme: Scheme, raw: &[u8]) -> Result<PublicKey, KeyError> {
        if raw.len() != scheme.public_key_len() {
            return Err(KeyError::Length {
                scheme,
                expected: scheme.public_key_len(),
                got: raw.len(),
            });
        }
        let inner = match scheme {
            Scheme::Ed25519 => {
                let bytes: &[u8; 32] = raw.try_into().map_err(|_| KeyError::Invalid(scheme))?;
                Inner::Ed25519(
                    ed25519_dalek::VerifyingKey::from_bytes(bytes)
                        .map_err(|_| KeyError::Invalid(scheme))?,
                )
            }
            Scheme::Secp256k1 => {
                if raw[0] != 0x04 {
                    return Err(KeyError::Invalid(scheme));
                }
                Inner::Secp256k1(
                    k256::ecdsa::VerifyingKey::from_sec1_bytes(raw)
                        .map_err(|_| KeyError::Invalid(scheme))?,
                )
            }
            Scheme::MlDsa65 => {
                let enc = EncodedVerifyingKey::<MlDsa65>::try_from(raw)
                    .map_err(|_| KeyError::Invalid(scheme))?;
                Inner::MlDsa65(Box::new(ml_dsa::VerifyingKey::decode(&enc)))
            }
        };
        Ok(PublicKey {
            scheme,
            raw: raw.into(),
            id: issuer_id(raw),
            inner,
        })
    }

    /// The scheme.
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// The raw key bytes (what a trust file holds, hex-encoded).
    pub fn as_bytes(&self) -> &[u8] {
        &self.raw
    }

    /// The issuer id: `SHA-256(raw key bytes)`, what `Issuer` and `Holder` hold.
    pub fn id(&self) -> &[u8; 32] {
        &self.id
    }

    /// Verify a signature footer over `payload`, failing closed: the tag must be this
    /// key's scheme, the bytes between the primitive signature and the tag must be
    /// zero, and (secp256k1) the `v` byte must be 0. A high-S secp256k1 signature is
    /// accepted (the peers' signers produce both halves); the policy also asks the
    /// revocation hook about the CapID of its `(r, n - s)` twin.
    pub fn verify(&self, payload: &[u8], sig: &[u8; SIG_SIZE]) -> Result<(), Refusal> {
        let tag = sig[ALG_TAG_OFFSET];
        let scheme = Scheme::from_tag(tag)?;
        if scheme != self.scheme {
            return Err(Refusal::SchemeMismatch {
                tag,
                key: self.scheme.tag(),
            });
        }
        let n = scheme.signature_len();
        if sig[n..ALG_TAG_OFFSET].iter().any(|&b| b != 0) {
            return Err(Refusal::BadSignature(
                "non-zero bytes between the signature and the tag",
            ));
        }
        let ok = match &self.inner {
            Inner::Ed25519(vk) => {
                let s =
                    ed25519_dalek::Signature::from_bytes(sig[..64].try_into().map_err(|_| bad())?);
                vk.verify_strict(payload, &s).is_ok()
            }
            Inner::Secp256k1(vk) => {
                if sig[64] != 0 {
                    return Err(Refusal::BadSignature("secp256k1 recovery byte is not 0"));
                }
                let s = k256::ecdsa::Signature::from_slice(&sig[..64]).map_err(|_| bad())?;
                vk.verify(payload, &s.normalize_s()).is_ok()
            }
            Inner::MlDsa65(vk) => {
                let enc = EncodedSignature::<MlDsa65>::try_from(&sig[..n]).map_err(|_| bad())?;
                match ml_dsa::Signature::<MlDsa65>::decode(&enc) {
                    Some(s) => vk.verify_with_context(payload, &[], &s),
                    None => false,
                }
            }
        };
        if ok {
            Ok(())
        } else {
            Err(bad())
        }
    }
}

fn bad() -> Refusal {
    Refusal::BadSignature("does not verify under the issuer's key")
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicKey({} id ", self.scheme)?;
        for b in &self.id[..8] {
            write!(f, "{b:02x}")?;
        }
        f.write_str("…)")
    }
}

impl PartialEq for PublicKey {
    fn eq(&self, other: &Self) -> bool {
        self.scheme == other.scheme && self.raw == other.raw
    }
}
impl Eq for PublicKey {}

/// The issuer id of raw public-key bytes: `SHA-256(raw)`.
pub fn issuer_id(raw: &[u8]) -> [u8; 32] {
    Sha256::digest(raw).into()
}

/// For a secp256k1 footer, the same signature with `s` replaced by `n - s`: it verifies
/// just as well, so it names the same grant under another CapID. The verifier checks
/// both ids against the revocation hook. `None` for other schemes or unparsable `r, s`.
pub(crate) fn twin_signature(sig: &[u8; SIG_SIZE]) -> Option<Box<[u8; SIG_SIZE]>> {
    if sig[ALG_TAG_OFFSET] != Scheme::Secp256k1.tag() {
        return None;
    }
    let s = k256::ecdsa::Signature::from_slice(&sig[..64]).ok()?;
    let (r, s) = s.split_scalars();
    let neg = -*s.as_ref();
    let mut out = Box::new(*sig);
    out[..32].copy_from_slice(&r.to_bytes());
    out[32..64].copy_from_slice(&neg.to_bytes());
    Some(out)
}

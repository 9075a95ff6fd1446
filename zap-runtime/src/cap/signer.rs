//! Signing keys for minting capabilities in Rust.

use core::fmt;

use k256::ecdsa::signature::Signer as _;
use ml_dsa::MlDsa65;

use super::scheme::{KeyError, PublicKey, Scheme};
use super::wire::{ALG_TAG_OFFSET, SIG_SIZE};

enum Inner {
    Ed25519(ed25519_dalek::SigningKey),
    Secp256k1(k256::ecdsa::SigningKey),
    MlDsa65(Box<ml_dsa::ExpandedSigningKey<MlDsa65>>, [u8; 32]),
}

/// A private key of one scheme, able to sign capabilities. Its 32-byte secret
/// ([`SigningKey::secret_bytes`]) is the Ed25519 seed, the secp256k1 scalar
/// (big-endian), or the ML-DSA-65 key-generation seed ξ.
pub struct SigningKey {
    inner: Inner,
    public: PublicKey,
}

impl SigningKey {
    /// A fresh key from the operating system's randomness.
    pub fn generate(scheme: Scheme) -> Result<SigningKey, KeyError> {
        for _ in 0..16 {
            let mut secret = [0u8; 32];
            getrandom::fill(&mut secret)
                .map_err(|_| KeyError::Secret(scheme, "no operating-system randomness"))?;
            // Only secp256k1 can refuse 32 random bytes (zero or >= n, ~2^-128).
            if let Ok(k) = SigningKey::from_secret(scheme, &secret) {
                return Ok(k);
            }
        }
        Err(KeyError::Secret(scheme, "no valid key from 16 draws"))
    }

    /// The key with this 32-byte secret (see the type docs).
    pub fn from_secret(scheme: Scheme, secret: &[u8; 32]) -> Result<SigningKey, KeyError> {
        let (inner, raw): (Inner, Vec<u8>) = match scheme {
            Scheme::Ed25519 => {
                let k = ed25519_dalek::SigningKey::from_bytes(secret);
                let raw = k.verifying_key().to_bytes().to_vec();
                (Inner::Ed25519(k), raw)
            }
            Scheme::Secp256k1 => {
                let k = k256::ecdsa::SigningKey::from_slice(secret)
                    .map_err(|_| KeyError::Secret(scheme, "scalar is zero or not below n"))?;
                let raw = k.verifying_key().to_sec1_point(false).as_bytes().to_vec();
                (Inner::Secp256k1(k), raw)
            }
            Scheme::MlDsa65 => {
                let k = ml_dsa::ExpandedSigningKey::<MlDsa65>::from_seed(&(*secret).into());
                let raw = k.verifying_key().encode().to_vec();
                (Inner::MlDsa65(Box::new(k), *secret), raw)
            }
        };
        let public = PublicKey::from_bytes(scheme, &raw)?;
        Ok(SigningKey { inner, public })
    }

    /// The scheme.
    pub fn scheme(&self) -> Scheme {
        self.public.scheme()
    }

    /// The public key (its raw bytes go into a trust file or a chain link).
    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// The issuer id `SHA-256(public key bytes)`: what this key's caps carry in `Issuer`,
    /// and what a parent names as `Holder` to let this key attenuate it.
    pub fn id(&self) -> &[u8; 32] {
        self.public.id()
    }

    /// The 32-byte secret this key was made from. Keep it secret.
    pub fn secret_bytes(&self) -> [u8; 32] {
        match &self.inner {
            Inner::Ed25519(k) => k.to_bytes(),
            Inner::Secp256k1(k) => k.to_bytes().into(),
            Inner::MlDsa65(_, seed) => *seed,
        }
    }

    /// For ML-DSA-65, the 4032-byte FIPS 204 expanded secret key: the form the Python
    /// peer's `MLDSA65Signer(public_key, private_key)` takes. `None` for other schemes.
    pub fn mldsa65_expanded_secret(&self) -> Option<Vec<u8>> {
        match &self.inner {
            #[allow(deprecated)] // the expanded form is exactly what PQClean-based peers load
            Inner::MlDsa65(k, _) => Some(k.to_expanded().to_vec()),
            _ => None,
        }
    }

    /// Sign `payload` (the canonical bytes) into a full footer: the primitive signature
    /// at the front, zeros, the scheme tag last. Ed25519 and secp256k1 (RFC 6979,
    /// low-S) are deterministic; ML-DSA-65 is hedged with fresh randomness.
    pub fn sign(&self, payload: &[u8]) -> Result<Box<[u8; SIG_SIZE]>, KeyError> {
        let mut out = Box::new([0u8; SIG_SIZE]);
        match &self.inner {
            Inner::Ed25519(k) => {
                out[..64].copy_from_slice(&k.sign(payload).to_bytes());
            }
            Inner::Secp256k1(k) => {
                let s: k256::ecdsa::Signature = k.sign(payload);
                out[..64].copy_from_slice(&s.to_bytes());
                // out[64] = v = 0, as the peers write it.
            }
            Inner::MlDsa65(k, _) => {
                let s = k
                    .sign_randomized(payload, &[], &mut getrandom::SysRng)
                    .map_err(|_| KeyError::Secret(Scheme::MlDsa65, "signing failed"))?;
                let enc = s.encode();
                out[..enc.len()].copy_from_slice(&enc);
            }
        }
        out[ALG_TAG_OFFSET] = self.scheme().tag();
        Ok(out)
    }
}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SigningKey({:?})", self.public)
    }
}

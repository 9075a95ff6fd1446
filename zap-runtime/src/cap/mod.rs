//! Capability tokens: signed, attenuable grants of authority, byte-compatible with the
//! Python (`zap-proto[crypto]` 1.4.1) and TypeScript (`@zap-proto/zap/cap` 1.6.0) peers.
mod cache;
mod chain;
mod error;
mod issue;
mod policy;
mod scheme;
mod signer;
mod trust;
mod wire;

pub use chain::{encode_chain, extend_chain, ChainLink, Presented, CHAIN_FLAGS, MAX_CHAIN_LINKS};
pub use error::{CapError, Refusal};
pub use issue::{attenuate, issue, Attenuation, Issuance, IssueError};
pub use policy::{
    Grant, Policy, PolicyBuilder, RevocationCheck, DEFAULT_CACHE_CAPACITY, DEFAULT_CLOCK_SKEW,
};
pub use scheme::{issuer_id, KeyError, PublicKey, Scheme, TAG_HYBRID, TAG_RESERVED};
pub use signer::SigningKey;
pub use trust::{parse_trust_file, trust_file_line, TrustFileError};
pub use wire::{
    offset, Capability, Caveat, ALG_TAG_OFFSET, CAPABILITY_SIZE, CAVEAT_SIZE, KIND_DELEGATE,
    PERM_ATTENUATE, PERM_AUDIT, PERM_ROOT, SIGNED_HEADER_LEN, SIG_SIZE,
};

//! Capability tokens: signed, attenuable grants of authority, byte-compatible with the
//! capability runtimes of the Python (`zap-proto[crypto]` 1.4.1, `zap.cap`) and
//! TypeScript (`@zap-proto/zap/cap` 1.6.0) peers, which follow the Go runtime.
//!
//! # The contract (as the peers implement it)
//!
//! A capability is one ZAP message (header flags 0, version 1) whose root is a
//! **Capability**, fixed size 3572:
//!
//! | offset | field | type |
//! |---|---|---|
//! | 0 | `Kind` | u32 (`0xFF` = delegate) |
//! | 4 | `Target` | bytes_fixed\[32\] |
//! | 36 | `Holder` | bytes_fixed\[32\]: SHA-256 of the holder's public key |
//! | 68 | `Issuer` | bytes_fixed\[32\]: SHA-256 of the issuer's public key |
//! | 100 | `Permissions` | u64 (bit 32 attenuate, 33 audit, 63 root) |
//! | 108 | `Parent` | bytes_fixed\[32\]: the parent's CapID, zero for a root |
//! | 140 | `IssuedAt` | u64 unix seconds |
//! | 148 | `ExpiresAt` | u64 unix seconds, 0 = never |
//! | 156 | `Caveats` | list\<Caveat\>, framed (each element a complete message) |
//! | 164 | `Sig` | bytes_fixed\[3408\] |
//!
//! A **Caveat** (fixed size 12) is `Kind u32 @0`, `Value bytes @4`. The peers build the
//! fixed fields, then the caveat list, then `Sig`; [`issue`] does the same, so an
//! Ed25519 cap is byte-identical to the peers'.
//!
//! * **Signed bytes**: `Capability[0..164)` verbatim (so the raw caveat list slot is
//!   signed), then per caveat in list order `Kind u32 LE || len(Value) u32 LE || Value`.
//!   `Sig` is not signed — including its scheme tag.
//! * **CapID** = `SHA-256(signed bytes || Sig)` (all 3408 bytes). A child's `Parent` is
//!   its parent's CapID; revocation lists key on it.
//! * **Issuer id** = `SHA-256(raw public key)`, the key as `public_key_bytes()` exports
//!   it: Ed25519 32 bytes, ML-DSA-65 1952 bytes (FIPS 204 `pkEncode`), secp256k1 65
//!   bytes uncompressed SEC1 `04 || X || Y`.
//! * **Sig footer**: the primitive signature at the front, zeros, the scheme tag in the
//!   last byte (offset 3407): `0x01` secp256k1 (ECDSA/SHA-256, `r || s || v`, v = 0,
//!   65 bytes), `0x02` Ed25519 (64), `0x03` ML-DSA-65 (3309, empty context), `0x04`
//!   hybrid "Ed25519 || ML-DSA-65" (named, but no peer defines its key or verifies it),
//!   `0x00` reserved. The peers refuse reserved and unknown tags; Python and TypeScript
//!   have no verifier for `0x04` either.
//! * **Caveat kinds** `0x00..=0x09` (expires-at, max-amount, dest-chain, rate-limit,
//!   ip-cidr, asset-id, op-allow, max-depth, audience, nonce-hash): the peers refuse a
//!   kind above `0x09` but define no value encoding and do not enforce the others.
//! * **Chains** (`verify_chain(leaf, [parent, …, root], op, target, holder, now)`): each
//!   link verifies on its own (caveats, expiry `now > ExpiresAt`, revocation, signature);
//!   each child's `Parent` is its parent's CapID, its permissions a subset of the
//!   parent's, its `Issuer` the parent's `Holder`; the **delegation gate**: every parent
//!   carries `PERM_ATTENUATE` or has `Kind == 0xFF`; every target equals the one asked;
//!   the last link has a zero `Parent`. `attenuate` refuses at mint time when the signer
//!   is not the parent's holder or the gate is closed; it intersects permissions, keeps
//!   kind and target, and clamps expiry (0 inherits the parent's).
//!
//! # What this runtime adds or does more strictly (fail closed)
//!
//! * Decoding is strict: the message fills its bytes exactly, flags are 0, the fixed
//!   section lies inside it, the caveat list is `{0, 0}` or exactly its count of
//!   well-formed Caveat messages.
//! * The scheme tag must match the issuer key's scheme (the tag is not signed); the
//!   bytes between the signature and the tag must be zero; secp256k1 `v` must be 0;
//!   Ed25519 is verified strictly. High-S secp256k1 signatures are accepted (the Python
//!   signer makes them) and the revocation hook is also asked about the `(r, n - s)`
//!   twin's CapID, so a malleated copy cannot dodge a revocation.
//! * **No caveat kind is implemented**, so a capability carrying any caveat is refused
//!   ([`Refusal::UnknownCaveat`]): the peers give no value encodings to implement.
//! * `IssuedAt` is a not-before (with [`PolicyBuilder::clock_skew`], default 60 s); a
//!   child may not change `Kind` or `Target`, nor expire later than its parent (nor
//!   never, under a parent that expires); [`attenuate`] refuses wider requests instead
//!   of silently narrowing them.
//! * A request's `Cap` field carries a single root or a chain ([`chain`] module docs:
//!   a CapChain message, flags `0xCA00`, links leaf first, each with its issuer key).
//! * Permissions: a call needs **every** bit the method requires (the peers' `op` test
//!   is any-bit); a method missing from the table is refused.
//!
//! # What a bad capability costs the server
//!
//! A chain has at most [`MAX_CHAIN_LINKS`] links. Everything that needs no
//! cryptography is checked first; then the signatures **root first**, the root's with a
//! trusted key decoded once at start, so a forged root costs one signature check and
//! a chain hung from a genuine root at most one per link. Refused bytes are remembered
//! for [`REFUSAL_MEMORY_SECONDS`] ([`PolicyBuilder::refusal_memory`]): presenting them
//! again costs a hash. Verified ones are cached ([`PolicyBuilder::cache_capacity`]).
//! The JSON-RPC server checks an `Authorization` header once for a whole batch when it
//! proves nothing (401).
//!
//! # Use
//!
//! A server builds a [`Policy`] from its trusted roots ([`parse_trust_file`]), its target
//! id and its method table, and calls [`Policy::check_method`] with each request's `Cap`
//! field; [`CapError::status`] is the 401/403 to answer. A service mints with [`issue`]
//! and [`attenuate`] using a [`SigningKey`], and hands delegated authority on with
//! [`extend_chain`].
mod cache;
pub mod chain;
mod error;
mod issue;
mod memo;
mod policy;
mod refused;
mod scheme;
mod signer;
mod trust;
mod wire;

pub use chain::{encode_chain, extend_chain, ChainLink, Presented, CHAIN_FLAGS, MAX_CHAIN_LINKS};
pub use error::{CapError, Refusal};
pub use issue::{attenuate, issue, Attenuation, Issuance, IssueError};
pub use policy::{
    Grant, Policy, PolicyBuilder, RevocationCheck, DEFAULT_CACHE_CAPACITY, DEFAULT_CLOCK_SKEW,
    DEFAULT_REFUSAL_MEMORY, NO_METHOD,
};
pub use refused::REFUSAL_MEMORY_SECONDS;
pub use scheme::{issuer_id, KeyError, PublicKey, Scheme, TAG_HYBRID, TAG_RESERVED};
pub use signer::SigningKey;
pub use trust::{parse_trust_file, trust_file_line, TrustFileError};
pub use wire::{
    offset, Capability, Caveat, ALG_TAG_OFFSET, CAPABILITY_SIZE, CAVEAT_SIZE, KIND_DELEGATE,
    PERM_ATTENUATE, PERM_AUDIT, PERM_ROOT, SIGNED_HEADER_LEN, SIG_SIZE,
};

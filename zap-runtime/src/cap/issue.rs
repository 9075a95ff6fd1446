//! Minting capabilities in Rust: [`issue`] a root (or any cap, with an explicit parent)
//! and [`attenuate`] a child, with the peers' mint-time checks made strict.

use super::scheme::KeyError;
use super::signer::SigningKey;
use super::wire::{self, Capability, Caveat, Fields, KIND_DELEGATE, PERM_ATTENUATE};

/// What to mint. The issuer is the signer; `parent` is all zero for a root.
#[derive(Debug, Clone, Copy, Default)]
pub struct Issuance<'a> {
    /// `Kind`: the kind of authority (the peers' `CapKind`; `0xFF` = delegate).
    pub kind: u32,
    /// `Target`: what the capability is for (the verifier's target id).
    pub target: [u8; 32],
    /// `Holder`: the holder's id, `SHA-256(holder public key)`.
    pub holder: [u8; 32],
    /// `Permissions`: the method bits it grants, plus cross-cutting bits such as
    /// [`PERM_ATTENUATE`](super::PERM_ATTENUATE).
    pub permissions: u64,
    /// `Parent`: zero for a root. [`attenuate`] sets it; set it here only to build a
    /// capability by hand (tests of refusals do).
    pub parent: [u8; 32],
    /// `IssuedAt` (unix seconds); verifiers refuse the cap before this time.
    pub issued_at: u64,
    /// `ExpiresAt` (unix seconds), 0 for never.
    pub expires_at: u64,
    /// Caveats, in order. This runtime's verifier implements no caveat kind and refuses
    /// any cap carrying one; they are encoded for peers that do.
    pub caveats: &'a [Caveat<'a>],
}

/// Why a capability cannot be minted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IssueError {
    /// The signer's id is not the parent's `Holder`: only the holder may delegate.
    #[error("the signer is not the parent's holder")]
    NotHolder,
    /// The parent neither carries `PERM_ATTENUATE` nor is a delegate cap.
    #[error("the parent does not permit attenuation")]
    NotDelegable,
    /// The child asks for permission bits the parent does not have.
    #[error("the child asks for permissions {extra:#x} the parent does not grant")]
    WidensPermissions {
        /// The bits asked for beyond the parent's.
        extra: u64,
    },
    /// The child would outlive the parent.
    #[error("the child's expiry {child} is after the parent's {parent}")]
    OutlivesParent {
        /// The child's expiry asked for.
        child: u64,
        /// The parent's expiry.
        parent: u64,
    },
    /// A caveat value does not fit a u32 length.
    #[error("a caveat value is too long")]
    CaveatTooLong,
    /// The capability would be over the message size limit (huge caveats).
    #[error(transparent)]
    TooLarge(#[from] crate::error::BuildError),
    /// Signing failed.
    #[error(transparent)]
    Key(#[from] KeyError),
}

/// Mint a capability signed by `signer`, whose id becomes its `Issuer`. Returns the
/// Capability message, byte for byte what the peers build for the same fields.
pub fn issue(what: &Issuance<'_>, signer: &SigningKey) -> Result<Vec<u8>, IssueError> {
    if what
        .caveats
        .iter()
        .any(|c| u32::try_from(c.value.len()).is_err())
    {
        return Err(IssueError::CaveatTooLong);
    }
    let mut bytes = wire::encode(&Fields {
        kind: what.kind,
        target: &what.target,
        holder: &what.holder,
        issuer: signer.id(),
        permissions: what.permissions,
        parent: &what.parent,
        issued_at: what.issued_at,
        expires_at: what.expires_at,
        caveats: what.caveats,
    })?;
    // The same canonical bytes the verifier computes, from the same view.
    let (payload, sig_at) = {
        let cap = Capability::decode(&bytes).map_err(|_| {
            KeyError::Secret(signer.scheme(), "internal: minted bytes do not decode")
        })?;
        let root = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
        (cap.canonical_bytes(), root + wire::offset::SIG)
    };
    let sig = signer.sign(&payload)?;
    bytes[sig_at..sig_at + wire::SIG_SIZE].copy_from_slice(&sig[..]);
    Ok(bytes)
}

/// What to narrow when attenuating.
#[derive(Debug, Clone, Copy, Default)]
pub struct Attenuation<'a> {
    /// The child's holder id.
    pub holder: [u8; 32],
    /// The child's permissions: must be a subset of the parent's.
    pub permissions: u64,
    /// `IssuedAt` of the child (unix seconds, normally now).
    pub issued_at: u64,
    /// The child's expiry: 0 inherits the parent's; otherwise at most the parent's.
    pub expires_at: u64,
    /// Caveats of the child.
    pub caveats: &'a [Caveat<'a>],
}

/// Mint a child of `parent`, signed by `signer`, which must be the parent's holder.
/// The child keeps the parent's kind and target and points at the parent's CapID.
///
/// Refused here (as the peers refuse it at mint time): a signer that is not the
/// parent's holder, a parent without `PERM_ATTENUATE` that is not a delegate cap.
/// Stricter than the peers, which silently intersect permissions and clamp expiry:
/// asking for more permissions or a later expiry than the parent's is an error.
pub fn attenuate(
    parent: &Capability<'_>,
    child: &Attenuation<'_>,
    signer: &SigningKey,
) -> Result<Vec<u8>, IssueError> {
    if signer.id() != parent.holder() {
        return Err(IssueError::NotHolder);
    }
    if parent.permissions() & PERM_ATTENUATE == 0 && parent.kind() != KIND_DELEGATE {
        return Err(IssueError::NotDelegable);
    }
    let extra = child.permissions & !parent.permissions();
    if extra != 0 {
        return Err(IssueError::WidensPermissions { extra });
    }
    let parent_exp = parent.expires_at();
    let expires_at = match (child.expires_at, parent_exp) {
        (0, p) => p,
        (c, 0) => c,
        (c, p) if c <= p => c,
        (c, p) => {
            return Err(IssueError::OutlivesParent {
                child: c,
                parent: p,
            })
        }
    };
    issue(
        &Issuance {
            kind: parent.kind(),
            target: *parent.target(),
            holder: child.holder,
            permissions: child.permissions,
            parent: parent.id(),
            issued_at: child.issued_at,
            expires_at,
            caveats: child.caveats,
        },
        signer,
    )
}

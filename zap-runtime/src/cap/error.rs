//! Why a capability is refused, and which RPC status that refusal maps to.

use core::fmt;

/// A refused capability: **401** when the presented token proves nothing (missing,
/// malformed, expired, not yet valid, revoked, unknown issuer or scheme, bad signature,
/// unknown caveat, broken or widening chain), **403** when it is a valid token that
/// does not cover this call (another target, or without the method's permission bits).
///
/// The [`Refusal`] inside says why in words; the class follows from the refusal, so a
/// `CapError` is only ever built with `CapError::from(refusal)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CapError {
    /// Status 401: the token does not authenticate a grant.
    Unauthorized(Refusal),
    /// Status 403: a valid grant that does not cover this call.
    Forbidden(Refusal),
}

impl CapError {
    /// The RPC status code for this refusal: 401 or 403.
    pub fn status(&self) -> u32 {
        match self {
            CapError::Unauthorized(_) => 401,
            CapError::Forbidden(_) => 403,
        }
    }

    /// The reason.
    pub fn refusal(&self) -> &Refusal {
        match self {
            CapError::Unauthorized(r) | CapError::Forbidden(r) => r,
        }
    }
}

impl From<Refusal> for CapError {
    fn from(r: Refusal) -> Self {
        if r.is_forbidden() {
            CapError::Forbidden(r)
        } else {
            CapError::Unauthorized(r)
        }
    }
}

impl fmt::Display for CapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CapError::Unauthorized(r) => write!(f, "unauthorized: {r}"),
            CapError::Forbidden(r) => write!(f, "forbidden: {r}"),
        }
    }
}

impl std::error::Error for CapError {}

/// One reason a capability is refused. Building one never allocates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Refusal {
    /// The request carried no capability.
    Missing,
    /// The bytes are not a well-formed capability or chain; the text says which rule broke.
    Malformed(&'static str),
    /// The capability (or a chain link) expired: `now > expires_at`.
    Expired {
        /// The link's `ExpiresAt` (unix seconds).
        expires_at: u64,
        /// The time of the check.
        now: u64,
    },
    /// The capability (or a chain link) was issued after `now` (beyond the allowed skew).
    NotYetValid {
        /// The link's `IssuedAt` (unix seconds), used as not-before.
        issued_at: u64,
        /// The time of the check.
        now: u64,
    },
    /// The capability or one of its ancestors is revoked.
    Revoked,
    /// The root's issuer is not one of the trusted issuers.
    UnknownIssuer,
    /// The signature tag is the reserved value 0x00.
    ReservedScheme,
    /// The signature tag names no scheme the peers define.
    UnknownScheme(u8),
    /// The signature tag is 0x04 (hybrid): the peers reserve it but define neither its
    /// key format nor a verifier, so it is refused rather than guessed at.
    UnsupportedScheme(u8),
    /// The signature tag is not the scheme of the issuer's key.
    SchemeMismatch {
        /// The tag in the signature footer.
        tag: u8,
        /// The tag of the issuer key's scheme.
        key: u8,
    },
    /// The signature does not verify; the text says how.
    BadSignature(&'static str),
    /// A caveat this verifier does not implement (fail closed: never ignored).
    UnknownCaveat(u32),
    /// The chain does not link up; the text says where.
    BrokenChain(&'static str),
    /// A parent in the chain neither carries `PERM_ATTENUATE` nor is a `DELEGATE` cap.
    NotDelegable,
    /// A child in the chain claims more than its parent; the text names the field.
    WidensParent(&'static str),
    /// A valid capability for another target.
    WrongTarget,
    /// A valid capability without every permission bit the call requires.
    MissingPermission {
        /// The bits the call requires.
        required: u64,
        /// The bits the capability grants.
        granted: u64,
    },
    /// The policy defines no permission for this method ordinal (fail closed).
    UnknownMethod(u32),
}

impl Refusal {
    /// True for the refusals that mean "valid, but not for this call" (403).
    pub fn is_forbidden(&self) -> bool {
        matches!(
            self,
            Refusal::WrongTarget | Refusal::MissingPermission { .. } | Refusal::UnknownMethod(_)
        )
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Missing => f.write_str("no capability was presented"),
            Refusal::Malformed(why) => write!(f, "malformed capability: {why}"),
            Refusal::Expired { expires_at, now } => {
                write!(f, "capability expired at {expires_at} (now {now})")
            }
            Refusal::NotYetValid { issued_at, now } => {
                write!(f, "capability is not valid before {issued_at} (now {now})")
            }
            Refusal::Revoked => f.write_str("capability or one of its ancestors is revoked"),
            Refusal::UnknownIssuer => f.write_str("the root issuer is not a trusted issuer"),
            Refusal::ReservedScheme => f.write_str("signature scheme tag 0x00 is reserved"),
            Refusal::UnknownScheme(tag) => write!(f, "signature scheme tag {tag:#04x} is unknown"),
            Refusal::UnsupportedScheme(tag) => write!(
                f,
                "signature scheme tag {tag:#04x} (hybrid) has no defined key format or verifier"
            ),
            Refusal::SchemeMismatch { tag, key } => write!(
                f,
                "signature scheme tag {tag:#04x} does not match the issuer key's scheme {key:#04x}"
            ),
            Refusal::BadSignature(why) => write!(f, "bad signature: {why}"),
            Refusal::UnknownCaveat(kind) => {
                write!(f, "caveat kind {kind:#x} is not implemented here (refused)")
            }
            Refusal::BrokenChain(why) => write!(f, "broken chain: {why}"),
            Refusal::NotDelegable => f.write_str(
                "a parent in the chain does not permit attenuation (no PERM_ATTENUATE, not DELEGATE)",
            ),
            Refusal::WidensParent(field) => write!(f, "attenuation widens its parent's {field}"),
            Refusal::WrongTarget => f.write_str("capability is for another target"),
            Refusal::MissingPermission { required, granted } => write!(
                f,
                "capability grants {granted:#x}, the call requires {required:#x}"
            ),
            Refusal::UnknownMethod(m) => write!(f, "no permission is defined for method {m}"),
        }
    }
}

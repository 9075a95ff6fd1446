//! The Capability and Caveat messages as the peers encode them, the canonical signed
//! bytes and the CapID.

use sha2::{Digest, Sha256};

use super::error::Refusal;
use crate::{BuildError, Builder, Message, Object, HEADER_SIZE};

/// Width of the signature footer (`Sig`), sized for ML-DSA-65.
pub const SIG_SIZE: usize = 3408;
/// Position of the scheme tag in the footer: its last byte.
pub const ALG_TAG_OFFSET: usize = SIG_SIZE - 1;
/// Fixed section of a Capability.
pub const CAPABILITY_SIZE: usize = 3572;
/// Fixed section of a Caveat.
pub const CAVEAT_SIZE: usize = 12;
/// How much of the Capability's fixed section is signed: `Kind` through the `Caveats`
/// list slot, i.e. everything before `Sig`.
pub const SIGNED_HEADER_LEN: usize = offset::SIG;

/// Field offsets in the Capability's fixed section.
pub mod offset {
    /// `Kind u32`
    pub const KIND: usize = 0;
    /// `Target bytes_fixed[32]`
    pub const TARGET: usize = 4;
    /// `Holder bytes_fixed[32]`: SHA-256 of the holder's public key.
    pub const HOLDER: usize = 36;
    /// `Issuer bytes_fixed[32]`: SHA-256 of the issuer's public key.
    pub const ISSUER: usize = 68;
    /// `Permissions u64`
    pub const PERMISSIONS: usize = 100;
    /// `Parent bytes_fixed[32]`: the parent's CapID, zero for a root.
    pub const PARENT: usize = 108;
    /// `IssuedAt u64` (unix seconds)
    pub const ISSUED_AT: usize = 140;
    /// `ExpiresAt u64` (unix seconds, 0 = never)
    pub const EXPIRES_AT: usize = 148;
    /// `Caveats list<Caveat>` (framed: each element a complete message)
    pub const CAVEATS: usize = 156;
    /// `Sig bytes_fixed[3408]`
    pub const SIG: usize = 164;
    /// Caveat `Kind u32`
    pub const CAVEAT_KIND: usize = 0;
    /// Caveat `Value bytes`
    pub const CAVEAT_VALUE: usize = 4;
}

/// Permission bit: the holder may mint children (the delegation gate).
pub const PERM_ATTENUATE: u64 = 1 << 32;
/// Permission bit: the holder may read the audit trail of the target.
pub const PERM_AUDIT: u64 = 1 << 33;
/// Permission bit: root-of-trust marker.
pub const PERM_ROOT: u64 = 1 << 63;
/// `Kind` of a delegation capability: passes the delegation gate without `PERM_ATTENUATE`.
pub const KIND_DELEGATE: u32 = 0xFF;

/// One caveat: a kind and an opaque value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caveat<'a> {
    /// `Caveat.Kind`.
    pub kind: u32,
    /// `Caveat.Value`.
    pub value: &'a [u8],
}

/// A decoded capability: a checked view over its message bytes. Reading it never
/// allocates; [`Capability::id`] hashes without a buffer.
#[derive(Clone, Copy, Debug)]
pub struct Capability<'a> {
    msg: &'a [u8],
    root: usize,
    caveat_list: crate::List<'a>,
}

impl<'a> Capability<'a> {
    /// Check `bytes` as a Capability message, strictly: a ZAP message exactly as long
    /// as `bytes`, header flags 0, the whole fixed section inside the message, and a
    /// caveat list that is either absent (`{0, 0}`) or holds exactly its count of
    /// well-formed Caveat messages. Anything else is refused.
    pub fn decode(bytes: &'a [u8]) -> Result<Self, Refusal> {
        let msg = parse_exact(bytes)?;
        if msg.flags() != 0 {
            return Err(Refusal::Malformed("capability header flags are not 0"));
        }
        let root = fixed_section(&msg, CAPABILITY_SIZE)
            .ok_or(Refusal::Malformed("capability fixed section out of bounds"))?;
        let obj = msg.root();
        let slot = &msg.as_bytes()[root + offset::CAVEATS..root + offset::CAVEATS + 8];
        let rel = u32::from_le_bytes([slot[0], slot[1], slot[2], slot[3]]);
        let count = u32::from_le_bytes([slot[4], slot[5], slot[6], slot[7]]);
        let caveat_list = if rel == 0 && count == 0 {
            crate::List::EMPTY
        } else {
            let list = obj.list(offset::CAVEATS);
            if list.is_null() || list.len() != count as usize || count == 0 {
                return Err(Refusal::Malformed("caveat list slot out of bounds"));
            }
            list
        };
        let cap = Capability {
            msg: msg.as_bytes(),
            root,
            caveat_list,
        };
        let mut seen = 0usize;
        for element in caveat_list.framed() {
            if parse_caveat(element).is_none() {
                return Err(Refusal::Malformed("a caveat is not a well-formed Caveat"));
            }
            seen += 1;
        }
        if seen != caveat_list.len() {
            return Err(Refusal::Malformed("caveat list runs past the message"));
        }
        Ok(cap)
    }

    fn field<const N: usize>(&self, at: usize) -> &'a [u8; N] {
        // In bounds: decode checked root + CAPABILITY_SIZE <= len.
        self.msg[self.root + at..]
            .first_chunk::<N>()
            .unwrap_or(const { &[0u8; N] })
    }

    fn u64_at(&self, at: usize) -> u64 {
        u64::from_le_bytes(*self.field::<8>(at))
    }

    /// The message bytes.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.msg
    }
    /// `Kind`.
    pub fn kind(&self) -> u32 {
        u32::from_le_bytes(*self.field::<4>(offset::KIND))
    }
    /// `Target`.
    pub fn target(&self) -> &'a [u8; 32] {
        self.field(offset::TARGET)
    }
    /// `Holder`: SHA-256 of the holder's public key.
    pub fn holder(&self) -> &'a [u8; 32] {
        self.field(offset::HOLDER)
    }
    /// `Issuer`: SHA-256 of the issuer's public key.
    pub fn issuer(&self) -> &'a [u8; 32] {
        self.field(offset::ISSUER)
    }
    /// `Permissions`.
    pub fn permissions(&self) -> u64 {
        self.u64_at(offset::PERMISSIONS)
    }
    /// `Parent`: the parent's CapID, all zero for a root.
    pub fn parent(&self) -> &'a [u8; 32] {
        self.field(offset::PARENT)
    }
    /// True if `Parent` is all zero.
    pub fn is_root(&self) -> bool {
        self.parent() == &[0u8; 32]
    }
    /// `IssuedAt` (unix seconds); the verifier treats it as not-before.
    pub fn issued_at(&self) -> u64 {
        self.u64_at(offset::ISSUED_AT)
    }
    /// `ExpiresAt` (unix seconds, 0 = never).
    pub fn expires_at(&self) -> u64 {
        self.u64_at(offset::EXPIRES_AT)
    }
    /// The whole `Sig` footer.
    pub fn signature(&self) -> &'a [u8; SIG_SIZE] {
        self.field(offset::SIG)
    }
    /// The scheme tag: the last byte of `Sig`.
    pub fn scheme_tag(&self) -> u8 {
        self.signature()[ALG_TAG_OFFSET]
    }
    /// Number of caveats.
    pub fn caveat_count(&self) -> usize {
        self.caveat_list.len()
    }
    /// The caveats, in list order.
    pub fn caveats(&self) -> impl Iterator<Item = Caveat<'a>> + 'a {
        self.caveat_list.framed().filter_map(parse_caveat)
    }

    /// Feed the canonical signed bytes to `sink`, piece by piece:
    /// `Capability[0..164)` verbatim from the message, then each caveat in list order
    /// as `Kind u32 LE || len(Value) u32 LE || Value`. The signature covers exactly
    /// these bytes; `Sig` (tag included) is not among them.
    pub fn write_canonical(&self, mut sink: impl FnMut(&[u8])) {
        sink(&self.msg[self.root..self.root + SIGNED_HEADER_LEN]);
        for c in self.caveats() {
            sink(&c.kind.to_le_bytes());
            sink(&(c.value.len() as u32).to_le_bytes());
            sink(c.value);
        }
    }

    /// The canonical signed bytes in one buffer.
    pub fn canonical_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(SIGNED_HEADER_LEN);
        self.write_canonical(|b| out.extend_from_slice(b));
        out
    }

    /// The CapID: `SHA-256(canonical bytes || Sig)`. Computed without allocating.
    pub fn id(&self) -> [u8; 32] {
        self.id_with_signature(self.signature())
    }

    /// The CapID this capability would have with another signature footer.
    pub(crate) fn id_with_signature(&self, sig: &[u8; SIG_SIZE]) -> [u8; 32] {
        let mut h = Sha256::new();
        self.write_canonical(|b| h.update(b));
        h.update(sig);
        h.finalize().into()
    }
}

/// Parse a message that must fill `bytes` exactly.
pub(crate) fn parse_exact(bytes: &[u8]) -> Result<Message<'_>, Refusal> {
    let msg = Message::parse(bytes).map_err(|_| Refusal::Malformed("not a ZAP message"))?;
    if msg.size() != bytes.len() {
        return Err(Refusal::Malformed("bytes after the end of the message"));
    }
    Ok(msg)
}

/// The root's position if its fixed section of `size` bytes lies inside the message.
pub(crate) fn fixed_section(msg: &Message<'_>, size: usize) -> Option<usize> {
    let root = msg.root_offset() as usize;
    (root >= HEADER_SIZE && root.checked_add(size)? <= msg.size()).then_some(root)
}

/// A `bytes` field read strictly: `{0, 0}` is empty; any other slot must resolve.
pub(crate) fn strict_bytes<'a>(obj: &Object<'a>, at: usize) -> Option<&'a [u8]> {
    let slot = obj.bytes_fixed::<8>(at);
    let rel = u32::from_le_bytes([slot[0], slot[1], slot[2], slot[3]]);
    let len = u32::from_le_bytes([slot[4], slot[5], slot[6], slot[7]]) as usize;
    if rel == 0 {
        return (len == 0).then_some(&[][..]);
    }
    let v = obj.bytes(at);
    (v.len() == len && len != 0).then_some(v)
}

/// One framed caveat element: a complete message whose root is a Caveat.
fn parse_caveat(element: &[u8]) -> Option<Caveat<'_>> {
    let msg = parse_exact(element).ok()?;
    if msg.flags() != 0 {
        return None;
    }
    fixed_section(&msg, CAVEAT_SIZE)?;
    let obj = msg.root();
    Some(Caveat {
        kind: obj.u32(offset::CAVEAT_KIND),
        value: strict_bytes(&obj, offset::CAVEAT_VALUE)?,
    })
}

/// The fields of a capability to encode.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fields<'a> {
    pub kind: u32,
    pub target: &'a [u8; 32],
    pub holder: &'a [u8; 32],
    pub issuer: &'a [u8; 32],
    pub permissions: u64,
    pub parent: &'a [u8; 32],
    pub issued_at: u64,
    pub expires_at: u64,
    pub caveats: &'a [Caveat<'a>],
}

/// Encode a Capability with a zero `Sig`, in the peers' build order (fixed fields,
/// then the caveat list, then `Sig`), so the bytes are the ones they produce.
pub(crate) fn encode(f: &Fields<'_>) -> Result<Vec<u8>, BuildError> {
    let mut b = Builder::with_capacity(CAPABILITY_SIZE + 64);
    let mut ob = b.start_object(CAPABILITY_SIZE);
    ob.set_u32(offset::KIND, f.kind);
    ob.set_bytes_fixed(offset::TARGET, f.target);
    ob.set_bytes_fixed(offset::HOLDER, f.holder);
    ob.set_bytes_fixed(offset::ISSUER, f.issuer);
    ob.set_u64(offset::PERMISSIONS, f.permissions);
    ob.set_bytes_fixed(offset::PARENT, f.parent);
    ob.set_u64(offset::ISSUED_AT, f.issued_at);
    ob.set_u64(offset::EXPIRES_AT, f.expires_at);
    let mut lb = ob.builder().start_list(0);
    for c in f.caveats {
        lb.push_message(|cb| {
            let mut co = cb.start_object(CAVEAT_SIZE);
            co.set_u32(offset::CAVEAT_KIND, c.kind);
            co.set_bytes(offset::CAVEAT_VALUE, c.value);
            co.finish_as_root();
        });
    }
    let list = lb.finish();
    ob.set_list(offset::CAVEATS, list);
    ob.finish_as_root();
    b.finish()?;
    Ok(b.take_bytes())
}

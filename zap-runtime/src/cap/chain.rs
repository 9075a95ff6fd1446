//! Carrying an attenuated chain in the single `Cap` field of a request.
//!
//! The peers verify a chain given as separate objects (`verify_chain(leaf, [parent, …,
//! root])`) and define no bytes for it. This runtime defines them:
//!
//! **A `Cap` field holds either one Capability message or one CapChain message**, told
//! apart by the header's message-type byte (the high byte of `flags`):
//!
//! * type `0x00` (flags `0x0000`): a single Capability exactly as the peers encode it.
//!   It must be a root (`Parent` zero) signed by a trusted issuer.
//! * type `0xCA` (flags `0xCA00`): a CapChain. Any other flags word is refused.
//!
//! ```text
//! CapChain  (root object, fixed size 8)
//!   @0  Links  list<CapLink>   framed: [len u32][complete ZAP message] per link,
//!                              LEAF FIRST: Links[0] is the capability being used,
//!                              Links[i+1] is the parent of Links[i], the last is the root.
//!                              1 ..= MAX_CHAIN_LINKS links.
//! CapLink   (root object of each element, fixed size 16, flags 0)
//!   @0  Cap        bytes       a complete Capability message (flags 0)
//!   @8  IssuerKey  bytes       raw public key of this link's issuer, as the peers'
//!                              public_key_bytes() export it; its scheme is the one
//!                              named by the link's signature tag, and SHA-256 of it
//!                              must equal the link's Issuer. EMPTY on the root link,
//!                              whose issuer must be one of the verifier's trusted keys.
//! ```
//!
//! Every `bytes` slot must be `{0, 0}` or resolve in bounds, each element must be
//! exactly one message, and the list must hold exactly its count; nothing after the
//! message. The issuer keys of intermediate links travel in the chain because the
//! verifier only knows the roots: a delegate's key is bound by its hash, which the
//! (signed) parent names as `Holder`.

use super::error::Refusal;
use super::scheme::PublicKey;
use super::wire::{fixed_section, parse_exact, strict_bytes, Capability};
use crate::{BuildError, Builder};

/// Header flags of a CapChain message (message type `0xCA`).
pub const CHAIN_FLAGS: u16 = 0xCA00;
/// The most links a chain may have (leaf and root included).
pub const MAX_CHAIN_LINKS: usize = 8;
const CHAIN_SIZE: usize = 8;
const LINK_SIZE: usize = 16;
const LINK_CAP: usize = 0;
const LINK_ISSUER_KEY: usize = 8;

/// One link to encode: a Capability message and its issuer's raw public key (empty
/// for the root).
#[derive(Debug, Clone, Copy)]
pub struct ChainLink<'a> {
    /// The Capability message.
    pub cap: &'a [u8],
    /// Raw public key of the cap's issuer; empty for the root link.
    pub issuer_key: &'a [u8],
}

/// Encode a CapChain from links given leaf first (the root last). Fails only when the
/// links add up to more than a message may hold.
pub fn encode_chain(links: &[ChainLink<'_>]) -> Result<Vec<u8>, BuildError> {
    let mut b = Builder::with_capacity(64 + links.iter().map(|l| l.cap.len() + 64).sum::<usize>());
    let mut ob = b.start_object(CHAIN_SIZE);
    let mut lb = ob.builder().start_list(0);
    for link in links {
        lb.push_message(|mb| {
            let mut lo = mb.start_object(LINK_SIZE);
            lo.set_bytes(LINK_CAP, link.cap);
            lo.set_bytes(LINK_ISSUER_KEY, link.issuer_key);
            lo.finish_as_root();
        });
    }
    let list = lb.finish();
    ob.set_list(0, list);
    ob.finish_as_root();
    b.finish_with_flags(CHAIN_FLAGS)?;
    Ok(b.take_bytes())
}

/// Put a new leaf in front of what its parent's holder was given (`presented`: a single
/// root cap or a chain), for passing the attenuated authority on. `child_issuer` is the
/// public key that signed `child` (the parent's holder).
pub fn extend_chain(
    presented: &[u8],
    child: &[u8],
    child_issuer: &PublicKey,
) -> Result<Vec<u8>, Refusal> {
    let p = Presented::decode(presented)?;
    let mut links = Vec::with_capacity(p.len() + 1);
    links.push(ChainLink {
        cap: child,
        issuer_key: child_issuer.as_bytes(),
    });
    for (cap, key) in p.links() {
        links.push(ChainLink {
            cap: cap.as_bytes(),
            issuer_key: key,
        });
    }
    if links.len() > MAX_CHAIN_LINKS {
        return Err(Refusal::Malformed("chain longer than MAX_CHAIN_LINKS"));
    }
    encode_chain(&links).map_err(|_| Refusal::Malformed("chain over the message size limit"))
}

/// What a `Cap` field holds, decoded and structurally checked (every capability in it
/// decodes); nothing is verified yet. Decoding never allocates.
#[derive(Clone, Copy, Debug)]
pub struct Presented<'a> {
    leaf: Capability<'a>,
    /// The chain's links; `None` for a single capability.
    chain: Option<crate::List<'a>>,
    len: usize,
}

impl<'a> Presented<'a> {
    /// Decode a `Cap` field: a single Capability or a CapChain (see the module docs).
    pub fn decode(bytes: &'a [u8]) -> Result<Presented<'a>, Refusal> {
        if bytes.is_empty() {
            return Err(Refusal::Missing);
        }
        let msg = parse_exact(bytes)?;
        match msg.flags() {
            0 => Ok(Presented {
                leaf: Capability::decode(bytes)?,
                chain: None,
                len: 1,
            }),
            CHAIN_FLAGS => {
                fixed_section(&msg, CHAIN_SIZE)
                    .ok_or(Refusal::Malformed("chain fixed section out of bounds"))?;
                let list = msg.root().list(0);
                let n = list.len();
                if list.is_null() || n == 0 {
                    return Err(Refusal::Malformed("chain has no links"));
                }
                if n > MAX_CHAIN_LINKS {
                    return Err(Refusal::Malformed("chain longer than MAX_CHAIN_LINKS"));
                }
                let mut leaf = None;
                let mut seen = 0;
                for element in list.framed() {
                    let (cap, _) = parse_link(element)?;
                    leaf.get_or_insert(cap);
                    seen += 1;
                }
                match leaf {
                    Some(leaf) if seen == n => Ok(Presented {
                        leaf,
                        chain: Some(list),
                        len: n,
                    }),
                    _ => Err(Refusal::Malformed("chain link list runs past the message")),
                }
            }
            _ => Err(Refusal::Malformed(
                "unknown header flags (neither a capability nor a chain)",
            )),
        }
    }

    /// Number of links (1 for a single capability).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Never true: a decoded `Presented` has at least one link.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// True when the field held a CapChain (even of one link).
    pub fn is_chain(&self) -> bool {
        self.chain.is_some()
    }

    /// The leaf: the capability being used.
    pub fn leaf(&self) -> Capability<'a> {
        self.leaf
    }

    /// The links, leaf first, each with its issuer key bytes (empty for a single cap).
    pub fn links(&self) -> impl Iterator<Item = (Capability<'a>, &'a [u8])> + 'a {
        let single = match self.chain {
            None => Some((self.leaf, &[][..])),
            Some(_) => None,
        };
        let list = self.chain.unwrap_or(crate::List::EMPTY);
        single
            .into_iter()
            .chain(list.framed().filter_map(|e| parse_link(e).ok()))
    }
}

/// One CapLink element: its capability (decoded) and issuer key bytes.
fn parse_link(element: &[u8]) -> Result<(Capability<'_>, &[u8]), Refusal> {
    const BAD: Refusal = Refusal::Malformed("a chain link is not a well-formed CapLink");
    let msg = parse_exact(element)?;
    if msg.flags() != 0 {
        return Err(BAD);
    }
    fixed_section(&msg, LINK_SIZE).ok_or(BAD)?;
    let obj = msg.root();
    let cap = strict_bytes(&obj, LINK_CAP).ok_or(BAD)?;
    let key = strict_bytes(&obj, LINK_ISSUER_KEY).ok_or(BAD)?;
    Ok((Capability::decode(cap)?, key))
}

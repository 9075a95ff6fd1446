//! The server side: which issuers are trusted, which target this server is, which bits
//! each method needs, and the check a request's `Cap` field must pass.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::cache::{Cache, Entry};
use super::chain::Presented;
use super::error::{CapError, Refusal};
use super::memo;
use super::refused::Refused;
use super::scheme::{twin_signature, PublicKey, Scheme};
use super::wire::{Capability, KIND_DELEGATE, PERM_ATTENUATE};

/// The revocation hook the server supplies: is the capability with this CapID revoked?
/// Asked for every link of a chain (and, for a secp256k1 link, also for the CapID of
/// its `(r, n - s)` twin, which verifies just as well), on every check, cached or not.
/// It should not allocate, or cache hits will.
pub trait RevocationCheck: Send + Sync {
    /// True if `cap_id` is revoked.
    fn is_revoked(&self, cap_id: &[u8; 32]) -> bool;
}

impl<F: Fn(&[u8; 32]) -> bool + Send + Sync> RevocationCheck for F {
    fn is_revoked(&self, cap_id: &[u8; 32]) -> bool {
        self(cap_id)
    }
}

/// What a verified capability grants: the leaf's permissions and target, and the
/// validity window of the whole chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grant {
    /// The leaf's CapID.
    pub id: [u8; 32],
    /// The leaf's permissions.
    pub permissions: u64,
    /// The leaf's (and every link's) target.
    pub target: [u8; 32],
    /// The latest `IssuedAt` of the chain: not valid before it (less the clock skew).
    pub not_before: u64,
    /// The earliest non-zero `ExpiresAt` of the chain, 0 if none expires.
    pub expires_at: u64,
    /// Links in the chain (1 for a single root capability).
    pub links: usize,
}

impl Grant {
    /// All zero: what an empty cache slot holds.
    pub(crate) const NONE: Grant = Grant {
        id: [0; 32],
        permissions: 0,
        target: [0; 32],
        not_before: 0,
        expires_at: 0,
        links: 0,
    };
}

/// The default cache capacity (verified capabilities remembered by their bytes).
pub const DEFAULT_CACHE_CAPACITY: usize = 1024;
/// The default number of refused capabilities remembered
/// ([`PolicyBuilder::refusal_memory`]).
pub const DEFAULT_REFUSAL_MEMORY: usize = 256;
/// The default clock skew allowed on not-before (`IssuedAt`), in seconds.
pub const DEFAULT_CLOCK_SKEW: u64 = 60;

/// A verifier configured for one server: trusted root issuers, the accepted target,
/// the permission bits each method requires, an optional revocation hook, and a
/// bounded cache of verified capabilities.
///
/// ```
/// # use zap_runtime::cap::*;
/// let root = SigningKey::from_secret(Scheme::Ed25519, &[7; 32]).unwrap();
/// let target = [9u8; 32];
/// let cap = issue(&Issuance { target, permissions: 0b11, issued_at: 100, ..Default::default() }, &root).unwrap();
/// let policy = Policy::builder(target).trust(root.public_key().clone()).method(1, 0b01).build();
/// assert!(policy.check_method(&cap, 1, 200).is_ok());
/// assert_eq!(policy.check(&cap, 0b100, 200).unwrap_err().status(), 403);
/// assert_eq!(policy.check(&[], 0b01, 200).unwrap_err().status(), 401);
/// ```
pub struct Policy {
    trusted: Vec<PublicKey>,
    target: [u8; 32],
    methods: Vec<(u32, u64)>,
    revocation: Option<Box<dyn RevocationCheck>>,
    clock_skew: u64,
    cache: Option<Cache>,
    refused: Option<Refused>,
    /// Signatures checked, each a public-key operation: the cost a forger can impose.
    signature_checks: Arc<AtomicU64>,
    /// This policy's own id, under which threads remember what it verified
    /// ([`memo`](super::memo)).
    id: u64,
}

/// The next policy's id.
static NEXT_POLICY: AtomicU64 = AtomicU64::new(1);

/// Shows what the policy accepts (target, issuer count, method table), not its cache.
impl core::fmt::Debug for Policy {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let target: String = self.target.iter().map(|b| format!("{b:02x}")).collect();
        f.debug_struct("Policy")
            .field("target", &target)
            .field("trusted_issuers", &self.trusted.len())
            .field("methods", &self.methods)
            .field("revocation", &self.revocation.is_some())
            .field("clock_skew", &self.clock_skew)
            .field("cache", &self.cache.is_some())
            .field("refusal_memory", &self.refused.is_some())
            .finish()
    }
}

/// Builds a [`Policy`].
pub struct PolicyBuilder {
    policy: Policy,
    cache_capacity: usize,
    refusal_memory: usize,
}

impl PolicyBuilder {
    /// Trust `key` as a root issuer.
    pub fn trust(mut self, key: PublicKey) -> Self {
        self.policy.trusted.push(key);
        self
    }

    /// Trust every key (e.g. from [`parse_trust_file`](super::parse_trust_file)).
    pub fn trust_all(mut self, keys: impl IntoIterator<Item = PublicKey>) -> Self {
        self.policy.trusted.extend(keys);
        self
    }

    /// Method `ordinal` requires every bit of `bits`.
    pub fn method(mut self, ordinal: u32, bits: u64) -> Self {
        self.policy.methods.retain(|&(m, _)| m != ordinal);
        self.policy.methods.push((ordinal, bits));
        self
    }

    /// Every method of a service's table with the bits its schema `requires` (a method
    /// that declares none needs a valid capability only): what a server built from
    /// generated code passes, e.g. `.methods(EthService::<H>::METHODS)`.
    pub fn methods(mut self, methods: &[crate::service::MethodInfo]) -> Self {
        for m in methods {
            self = self.method(m.ordinal, m.permissions);
        }
        self
    }

    /// The revocation hook.
    pub fn revocation(mut self, hook: impl RevocationCheck + 'static) -> Self {
        self.policy.revocation = Some(Box::new(hook));
        self
    }

    /// Seconds a capability's `IssuedAt` may lie in the future (clock skew between
    /// issuer and server). Default [`DEFAULT_CLOCK_SKEW`].
    pub fn clock_skew(mut self, seconds: u64) -> Self {
        self.policy.clock_skew = seconds;
        self
    }

    /// How many verified capabilities to remember (0 turns the cache off). Default
    /// [`DEFAULT_CACHE_CAPACITY`]. The memory is taken once, in [`build`](Self::build):
    /// about 4.7 KiB per entry (a 648-byte slot and 4 KiB of store for the presented
    /// bytes, whose copy a hit is compared with), at least 256 KiB of store in all; so
    /// about 4.7 MiB by default. A `Cap` field over 64 KiB is not cached.
    pub fn cache_capacity(mut self, entries: usize) -> Self {
        self.cache_capacity = entries;
        self
    }

    /// How many refused capabilities to remember, each for
    /// [`REFUSAL_MEMORY_SECONDS`](super::REFUSAL_MEMORY_SECONDS) (0 turns the memory off). Default
    /// [`DEFAULT_REFUSAL_MEMORY`]. The same refused bytes presented again within that
    /// time are refused without another signature check, so a client that repeats a
    /// forged capability (on every call of a connection, every member of a batch) costs
    /// a hash per call. Only refusals the bytes alone decide are remembered (not those
    /// of the clock or the revocation hook). About 64 bytes per entry, taken in
    /// [`build`](Self::build).
    pub fn refusal_memory(mut self, entries: usize) -> Self {
        self.refusal_memory = entries;
        self
    }

    /// The policy.
    pub fn build(mut self) -> Policy {
        self.policy.trusted.sort_by(|a, b| a.id().cmp(b.id()));
        self.policy.trusted.dedup_by(|a, b| a.id() == b.id());
        self.policy.methods.sort_unstable();
        self.policy.cache = (self.cache_capacity > 0).then(|| Cache::new(self.cache_capacity));
        self.policy.refused = (self.refusal_memory > 0).then(|| Refused::new(self.refusal_memory));
        self.policy
    }
}

impl Policy {
    /// A builder for a server whose target id is `target`.
    pub fn builder(target: [u8; 32]) -> PolicyBuilder {
        PolicyBuilder {
            policy: Policy {
                trusted: Vec::new(),
                target,
                methods: Vec::new(),
                revocation: None,
                clock_skew: DEFAULT_CLOCK_SKEW,
                cache: None,
                refused: None,
                signature_checks: Arc::default(),
                id: NEXT_POLICY.fetch_add(1, Ordering::Relaxed),
            },
            cache_capacity: DEFAULT_CACHE_CAPACITY,
            refusal_memory: DEFAULT_REFUSAL_MEMORY,
        }
    }

    /// The number of signatures this policy has checked (each a public-key operation,
    /// made only for a capability neither cached nor remembered as refused), live: for
    /// a metric such as `zap_cap_signature_checks_total` (see
    /// `metrics::Metrics::register_counter`, features `server` or `http`).
    pub fn signature_checks(&self) -> Arc<AtomicU64> {
        self.signature_checks.clone()
    }

    /// The target id this server accepts.
    pub fn target(&self) -> &[u8; 32] {
        &self.target
    }

    /// The bits method `ordinal` requires, if the table names it.
    pub fn required_bits(&self, ordinal: u32) -> Option<u64> {
        self.methods
            .binary_search_by_key(&ordinal, |&(m, _)| m)
            .ok()
            .map(|i| self.methods[i].1)
    }

    /// What a server asks for a call of method `ordinal` at `now` (unix seconds), fail
    /// closed: a method in the table needs a valid capability for this target with the
    /// method's bits; any other ordinal is refused (403) once the capability is valid
    /// ([`check_method`](Self::check_method)). Ordinal 0, [`NO_METHOD`], is what the
    /// JSON-RPC server asks for a name that is no method of the service (`rpc.discover`,
    /// or a name it will answer -32601 for): a valid capability for this target, so only
    /// an authorised caller reads the service's description or learns which methods
    /// exist.
    pub fn check_call(&self, cap: &[u8], ordinal: u32, now: u64) -> Result<(), CapError> {
        if ordinal == NO_METHOD {
            return self.check(cap, 0, now);
        }
        self.check_method(cap, ordinal, now)
    }

    /// Check a request's `Cap` field for method `ordinal` at `now` (unix seconds). A
    /// method missing from the table is refused (403) once the capability is valid, and
    /// a capability for another target is refused whatever the method.
    pub fn check_method(&self, cap: &[u8], ordinal: u32, now: u64) -> Result<(), CapError> {
        let mut grant = Grant::NONE;
        self.verify_into(cap, now, &mut grant)?;
        self.authorize(&grant, 0)?;
        let bits = self
            .required_bits(ordinal)
            .ok_or(Refusal::UnknownMethod(ordinal))?;
        self.authorize(&grant, bits)
    }

    /// Check a request's `Cap` field: a valid capability (or chain) for this server's
    /// target granting every bit of `required` (0 asks only for validity).
    pub fn check(&self, cap: &[u8], required: u64, now: u64) -> Result<(), CapError> {
        let mut grant = Grant::NONE;
        self.verify_into(cap, now, &mut grant)?;
        self.authorize(&grant, required)
    }

    fn authorize(&self, grant: &Grant, required: u64) -> Result<(), CapError> {
        if grant.target != self.target {
            return Err(Refusal::WrongTarget.into());
        }
        if grant.permissions & required != required {
            return Err(Refusal::MissingPermission {
                required,
                granted: grant.permissions,
            }
            .into());
        }
        Ok(())
    }

    /// Verify a `Cap` field without judging target or permissions: what it grants, or
    /// why it proves nothing (always [`CapError::Unauthorized`]). A remembered
    /// capability is re-checked for expiry, not-before and revocation on every call,
    /// and such a hit allocates nothing.
    pub fn verify(&self, cap: &[u8], now: u64) -> Result<Grant, CapError> {
        let mut grant = Grant::NONE;
        self.verify_into(cap, now, &mut grant)?;
        Ok(grant)
    }

    /// [`verify`](Self::verify), the grant written to `grant` (on success only). The
    /// checks use it so that a hit copies the grant once, into their own frame.
    fn verify_into(&self, cap: &[u8], now: u64, grant: &mut Grant) -> Result<(), CapError> {
        if self.cache.is_some() {
            // This thread's memo first: no lock, no fingerprint. A hit only for the very
            // bytes that were verified, re-checked for time and revocation.
            let hit = memo::get(self.id, cap, |e| {
                *grant = e.grant;
                self.recheck(grant, e.ids(), now)
            });
            if let Some(checked) = hit {
                return checked.map_err(Into::into);
            }
        }
        let cached = self.cache.as_ref().map(|c| (c, c.fingerprint(cap)));
        if let Some((cache, fp)) = cached {
            // A hit only for the very bytes that were verified (compared in full), so a
            // check answers the same with or without the cache, and needs no decoding
            // or hashing: the entry holds the grant and every CapID to re-check.
            if self.hit(cache, fp, cap, now, grant)? {
                return Ok(());
            }
        }
        let remembered = self.refused.as_ref().map(|r| (r, r.key(cap)));
        if let Some((refused, key)) = &remembered {
            if let Some(refusal) = refused.get(key, now) {
                return Err(refusal.into());
            }
        }
        let entry = match self.verify_fresh(cap, now, cached) {
            Ok(entry) => {
                if self.cache.is_some() {
                    memo::put(self.id, cap, &entry);
                }
                entry
            }
            Err(refusal) => {
                if let Some((refused, key)) = &remembered {
                    refused.put(key, refusal, now);
                }
                return Err(refusal.into());
            }
        };
        *grant = entry.grant;
        Ok(())
    }

    /// True if `cap` (fingerprint `fp`) is in the shared cache: its grant is then in
    /// `grant`, re-checked at `now` (a refusal may leave it written), and this thread's
    /// memo remembers it. The entry is copied out, so the revocation hook is asked
    /// after the cache is unlocked.
    fn hit(
        &self,
        cache: &Cache,
        fp: u64,
        cap: &[u8],
        now: u64,
        grant: &mut Grant,
    ) -> Result<bool, Refusal> {
        let mut entry = Entry::new(Grant::NONE);
        if cache.get(fp, cap, |e| entry = *e).is_none() {
            return Ok(false);
        }
        *grant = entry.grant;
        self.recheck(grant, entry.ids(), now)?;
        memo::put(self.id, cap, &entry);
        Ok(true)
    }

    /// What may change between two checks of the same capability: time and revocation
    /// (of any of `ids`).
    fn recheck(&self, g: &Grant, ids: &[[u8; 32]], now: u64) -> Result<(), Refusal> {
        if g.expires_at != 0 && now > g.expires_at {
            return Err(Refusal::Expired {
                expires_at: g.expires_at,
                now,
            });
        }
        if g.not_before > now.saturating_add(self.clock_skew) {
            return Err(Refusal::NotYetValid {
                issued_at: g.not_before,
                now,
            });
        }
        if let Some(hook) = &self.revocation {
            if ids.iter().any(|id| hook.is_revoked(id)) {
                return Err(Refusal::Revoked);
            }
        }
        Ok(())
    }

    /// Decode and verify `cap` in full, remember it (with its cache) once its
    /// signatures verify, then ask what may change (time, revocation): a revoked chain
    /// is cached too, and refused on every hit without another signature check.
    fn verify_fresh(
        &self,
        cap: &[u8],
        now: u64,
        fp: Option<(&Cache, u64)>,
    ) -> Result<Entry, Refusal> {
        let presented = Presented::decode(cap)?;
        let entry = self.verify_links(&presented, now)?;
        if let Some((cache, fp)) = fp {
            cache.put(fp, cap, &entry);
        }
        self.recheck(&entry.grant, entry.ids(), now)?;
        Ok(entry)
    }

    fn trusted(&self, issuer: &[u8; 32]) -> Option<&PublicKey> {
        self.trusted
            .binary_search_by(|k| k.id().cmp(issuer))
            .ok()
            .map(|i| &self.trusted[i])
    }

    /// The full check of every link. First everything that needs no cryptography, leaf
    /// first (so a chain that cannot be valid costs no signature check): caveats,
    /// validity windows, the links between parents and children, attenuation, the
    /// root's issuer among the trusted ones. Then the signatures **root first**: the
    /// trusted root's with a key already decoded, then each delegate's key (decoded
    /// from the chain, bound by its hash to the Issuer its parent named) and signature
    /// down to the leaf. A forged root costs one signature check; a chain hung from a
    /// genuine root costs at most one per link up to the first bad one.
    fn verify_links(&self, p: &Presented<'_>, now: u64) -> Result<Entry, Refusal> {
        let leaf = p.leaf();
        let mut entry = Entry::new(Grant {
            id: leaf.id(),
            permissions: leaf.permissions(),
            target: *leaf.target(),
            not_before: 0,
            expires_at: 0,
            links: p.len(),
        });
        let mut child: Option<Capability<'_>> = None;
        let mut links = Vec::with_capacity(p.len());
        for (i, (cap, key_bytes)) in p.links().enumerate() {
            if let Some(c) = cap.caveats().next() {
                return Err(Refusal::UnknownCaveat(c.kind));
            }
            let exp = cap.expires_at();
            if exp != 0 && now > exp {
                return Err(Refusal::Expired {
                    expires_at: exp,
                    now,
                });
            }
            if cap.issued_at() > now.saturating_add(self.clock_skew) {
                return Err(Refusal::NotYetValid {
                    issued_at: cap.issued_at(),
                    now,
                });
            }
            entry.grant.not_before = entry.grant.not_before.max(cap.issued_at());
            if exp != 0 && (entry.grant.expires_at == 0 || exp < entry.grant.expires_at) {
                entry.grant.expires_at = exp;
            }
            let id = cap.id();
            if let Some(child) = child {
                if child.parent() != &id {
                    return Err(Refusal::BrokenChain(
                        "a link's Parent is not the CapID of the next link",
                    ));
                }
                check_attenuation(&child, &cap)?;
            }
            entry.push_link(id)?;
            if i + 1 == p.len() {
                if !cap.is_root() {
                    return Err(Refusal::BrokenChain(if p.len() == 1 {
                        "the capability is not a root (its Parent is set) and no chain was presented"
                    } else {
                        "the last link of the chain is not a root"
                    }));
                }
                if !key_bytes.is_empty() {
                    return Err(Refusal::Malformed("the root link carries an issuer key"));
                }
            }
            links.push((cap, key_bytes));
            child = Some(cap);
        }
        let (root, _) = links.pop().ok_or(Refusal::Missing)?;
        let root_key = self.trusted(root.issuer()).ok_or(Refusal::UnknownIssuer)?;
        self.signature_checks.fetch_add(1, Ordering::Relaxed);
        root_key.verify(&root.canonical_bytes(), root.signature())?;
        // Revocation is asked in `recheck`, after this, on hits and misses alike.
        for &(cap, key_bytes) in links.iter().rev() {
            let scheme = Scheme::from_tag(cap.scheme_tag())?;
            let key = PublicKey::from_bytes(scheme, key_bytes).map_err(|_| {
                Refusal::Malformed("a link's issuer key is not a key of its signature's scheme")
            })?;
            if key.id() != cap.issuer() {
                return Err(Refusal::BrokenChain(
                    "a link's issuer key does not hash to its Issuer",
                ));
            }
            self.signature_checks.fetch_add(1, Ordering::Relaxed);
            key.verify(&cap.canonical_bytes(), cap.signature())?;
        }
        for cap in links.iter().map(|&(cap, _)| cap).chain([root]) {
            if let Some(twin) = twin_signature(cap.signature()) {
                entry.push_twin(cap.id_with_signature(&twin))?;
            }
        }
        Ok(entry)
    }
}

/// The delegation gate and monotonicity between a child and its parent.
fn check_attenuation(child: &Capability<'_>, parent: &Capability<'_>) -> Result<(), Refusal> {
    if parent.permissions() & PERM_ATTENUATE == 0 && parent.kind() != KIND_DELEGATE {
        return Err(Refusal::NotDelegable);
    }
    if child.issuer() != parent.holder() {
        return Err(Refusal::BrokenChain(
            "a link's Issuer is not its parent's Holder",
        ));
    }
    if child.permissions() & !parent.permissions() != 0 {
        return Err(Refusal::WidensParent("permissions"));
    }
    if child.target() != parent.target() {
        return Err(Refusal::WidensParent("target"));
    }
    if child.kind() != parent.kind() {
        return Err(Refusal::WidensParent("kind"));
    }
    let (c, p) = (child.expires_at(), parent.expires_at());
    if p != 0 && (c == 0 || c > p) {
        return Err(Refusal::WidensParent("expiry"));
    }
    Ok(())
}

// A server shares one policy between its connections.
const _: fn() = || {
    fn shared<T: Send + Sync>() {}
    shared::<Policy>();
    shared::<PublicKey>();
};

/// The ordinal a JSON-RPC server asks the policy about for a method name the service
/// does not have (`rpc.discover` among them): no method has ordinal 0.
pub const NO_METHOD: u32 = 0;

/// The servers' hook: [`Policy::check_call`] at the current time. Refusals write their
/// reason (`unauthorized: …` / `forbidden: …`) and answer 401 or 403; an allowed call
/// with a cached capability allocates nothing.
impl crate::service::Authorize for Policy {
    fn authorize(
        &self,
        cap: &[u8],
        ordinal: u32,
        why: &mut String,
    ) -> Result<(), crate::rpc::Status> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        self.check_call(cap, ordinal, now).map_err(|e| {
            use core::fmt::Write as _;
            let _ = write!(why, "{e}");
            crate::rpc::Status(e.status())
        })
    }
}

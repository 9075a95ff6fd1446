//! A process-wide counter of the message bytes the runtime copies, to show what
//! zero-copy paths save (the echo benchmark reports it per call).
//!
//! Counted: payloads a [`Builder`](crate::Builder) copies (`bytes`/`text` into the
//! message, and first into its scratch space when `set_bytes` keeps one aside until its
//! object finishes; framed list elements, raw writes), response bodies copied into a
//! server connection's write buffer or its pipelining ring, request payloads copied
//! into a client's request frame or its write batch, and answer bodies copied out of
//! the read buffer (`Transport::call`'s `Vec`,
//! [`Owned::copy_from_slice`](crate::Owned::copy_from_slice)).
//! Not counted: what the kernel copies, what a handler or caller copies itself (an owned
//! struct's `String`s and `Vec`s), and copies under [`COUNTED_FROM`] bytes: small copies
//! never touch the shared counter, so the hot path of small calls does not pay for it.

use std::sync::atomic::{AtomicU64, Ordering};

/// Copies of at least this many bytes are counted.
pub const COUNTED_FROM: usize = 1024;

static COPIED: AtomicU64 = AtomicU64::new(0);

/// Note a copy of `len` bytes (counted if it is at least [`COUNTED_FROM`]).
#[inline(always)]
pub(crate) fn note(len: usize) {
    if len >= COUNTED_FROM {
        COPIED.fetch_add(len as u64, Ordering::Relaxed);
    }
}

/// Message bytes copied by the runtime in copies of at least [`COUNTED_FROM`] bytes,
/// since the process started (see the [module docs](self) for what is counted).
pub fn copied_bytes() -> u64 {
    COPIED.load(Ordering::Relaxed)
}

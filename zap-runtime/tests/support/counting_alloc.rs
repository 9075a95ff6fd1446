//! A counting global allocator for the zero-allocation tests: include it in a test
//! binary with `#[path = ".../support/counting_alloc.rs"] mod counting_alloc;` and it
//! becomes that binary's global allocator. It counts allocations and reallocations per
//! thread, so the test harness's own threads cannot disturb a measurement: run the code
//! under test (server included, e.g. on a current-thread runtime) on the counting thread.

#![allow(dead_code)] // each test binary uses a different part

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Forwards to the system allocator, counting on the calling thread.
pub struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    /// Bytes allocated minus bytes freed on this thread (memory freed on another thread
    /// than it was allocated on skews it: measure single-threaded code).
    static LIVE: Cell<i64> = const { Cell::new(0) };
}

fn live_add(n: i64) {
    let _ = LIVE.try_with(|c| c.set(c.get() + n));
}

// SAFETY: every call is forwarded unchanged to the system allocator; the only addition
// is bumping a thread-local counter, which itself never allocates.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        live_add(layout.size() as i64);
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        live_add(-(layout.size() as i64));
        // SAFETY: same contract as our caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        live_add(new_size as i64 - layout.size() as i64);
        // SAFETY: same contract as our caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Heap allocations (and reallocations) made on this thread so far.
pub fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

/// Heap bytes allocated and not yet freed on this thread (see `LIVE`).
pub fn live_bytes() -> i64 {
    LIVE.with(Cell::get)
}

/// Heap allocations `f` makes on this thread, and its result.
pub fn allocations_of<R>(f: impl FnOnce() -> R) -> (u64, R) {
    let before = allocations();
    let out = std::hint::black_box(f());
    (allocations() - before, out)
}

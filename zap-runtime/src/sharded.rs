//! Counters kept per thread and summed when read. Adding is a load and a store to a
//! slot that only the adding thread writes: no locked instruction, no cache line that
//! another core writes too. Reading (a scrape) sums every thread's slot under one lock.
//!
//! Each thread has a block of pages of slots, made when it first adds; a counter is an
//! index into every block. A thread that ends folds its block into the retired block
//! (under the same lock), so counts survive it and its memory is freed.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex, OnceLock};

/// Slots per page: 4 KiB.
const PAGE: usize = 512;
/// Pages per block: room for 131,072 counters; past them a counter is one shared atomic.
const PAGES: usize = 256;

type Page = Box<[AtomicU64; PAGE]>;

/// One thread's slots (or the retired threads' sums).
struct Block {
    pages: [OnceLock<Page>; PAGES],
}

impl Block {
    fn new() -> Block {
        Block {
            pages: std::array::from_fn(|_| OnceLock::new()),
        }
    }

    /// The slot of counter `id`, its page made on first use.
    #[inline]
    fn slot(&self, id: usize) -> &AtomicU64 {
        let page = self.pages[id / PAGE]
            .get_or_init(|| Box::new(std::array::from_fn(|_| AtomicU64::new(0))));
        &page[id % PAGE]
    }

    /// The value of counter `id` here, without making its page.
    fn value(&self, id: usize) -> u64 {
        self.pages[id / PAGE]
            .get()
            .map_or(0, |page| page[id % PAGE].load(Ordering::Relaxed))
    }
}

/// Every live thread's block, and the sums of the threads that ended.
struct Registry {
    live: Vec<Arc<Block>>,
    retired: Block,
}

static REGISTRY: LazyLock<Mutex<Registry>> = LazyLock::new(|| {
    Mutex::new(Registry {
        live: Vec::new(),
        retired: Block::new(),
    })
});

/// The next counter's index.
static NEXT: AtomicUsize = AtomicUsize::new(0);

fn registry() -> std::sync::MutexGuard<'static, Registry> {
    REGISTRY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// This thread's block, registered while the thread lives.
struct Mine(Arc<Block>);

impl Mine {
    fn register() -> Mine {
        let block = Arc::new(Block::new());
        registry().live.push(Arc::clone(&block));
        Mine(block)
    }
}

impl Drop for Mine {
    fn drop(&mut self) {
        let mut registry = registry();
        for (page, mine) in self.0.pages.iter().enumerate() {
            let Some(mine) = mine.get() else { continue };
            for (i, slot) in mine.iter().enumerate() {
                let n = slot.load(Ordering::Relaxed);
                if n != 0 {
                    registry
                        .retired
                        .slot(page * PAGE + i)
                        .fetch_add(n, Ordering::Relaxed);
                }
            }
        }
        registry.live.retain(|b| !Arc::ptr_eq(b, &self.0));
    }
}

thread_local! {
    static MINE: Mine = Mine::register();
}

/// Add to a counter from a thread that is ending (its block is gone): as retired.
#[cold]
fn retired_add(id: usize, n: u64) -> u64 {
    registry().retired.slot(id).fetch_add(n, Ordering::Relaxed)
}

/// This thread's counters, for several adds under one thread-local access
/// ([`with_local`]).
#[derive(Clone, Copy)]
pub(crate) struct Local<'t>(Option<&'t Block>);

impl Local<'_> {
    /// Add `n` to `counter`; what this thread had counted before (what all threads had,
    /// for a shared counter), for decisions such as sampling one call in eight.
    #[inline(always)]
    pub(crate) fn add(self, counter: Counter, n: u64) -> u64 {
        match (counter, self.0) {
            (Counter::Sharded(id), Some(mine)) => {
                // Only this thread writes its slot: no read-modify-write needed.
                let slot = mine.slot(id);
                let before = slot.load(Ordering::Relaxed);
                slot.store(before.wrapping_add(n), Ordering::Relaxed);
                before
            }
            (Counter::Sharded(id), None) => retired_add(id, n),
            (Counter::Shared(all), _) => all.fetch_add(n, Ordering::Relaxed),
        }
    }
}

/// Run `f` with this thread's counters: what adds to several counters, or adds before
/// and after some work on the same thread, looks the thread's block up once. `f` may
/// call `with_local` again (the work in between may record calls of its own).
#[inline(always)]
pub(crate) fn with_local<R>(f: impl FnOnce(Local<'_>) -> R) -> R {
    let mut f = Some(f);
    match MINE.try_with(|mine| f.take().map(|f| f(Local(Some(&mine.0))))) {
        Ok(Some(done)) => done,
        // The thread is ending and its block is gone: add to the retired sums.
        _ => (f.take().expect("f runs once"))(Local(None)),
    }
}

/// A counter summed over threads. Copy it freely: copies are the same counter.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Counter {
    /// A slot in every thread's block.
    Sharded(usize),
    /// One atomic shared by all threads (when the blocks are full).
    Shared(&'static AtomicU64),
}

impl Counter {
    /// A new counter at 0.
    pub(crate) fn new() -> Counter {
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        if id < PAGE * PAGES {
            Counter::Sharded(id)
        } else {
            // Some 6,500 metered methods in one process: rather than fail, share.
            Counter::Shared(Box::leak(Box::new(AtomicU64::new(0))))
        }
    }

    /// The sum over every thread, living and ended.
    pub(crate) fn get(self) -> u64 {
        match self {
            Counter::Sharded(id) => {
                let registry = registry();
                registry
                    .live
                    .iter()
                    .fold(registry.retired.value(id), |sum, b| {
                        sum.wrapping_add(b.value(id))
                    })
            }
            Counter::Shared(n) => n.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{with_local, Counter};

    fn add(counter: Counter, n: u64) -> u64 {
        with_local(|local| local.add(counter, n))
    }

    #[test]
    fn counts_from_every_thread_add_up_also_after_they_end() {
        let counter = Counter::new();
        let other = Counter::new();
        assert_eq!(add(counter, 5), 0);
        assert_eq!(add(counter, 0), 5, "this thread's own count");
        let threads: Vec<_> = (0..8)
            .map(|_| {
                std::thread::spawn(move || {
                    for _ in 0..1000 {
                        add(counter, 1);
                    }
                    add(other, 2);
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(counter.get(), 8005);
        assert_eq!(other.get(), 16);
    }

    #[test]
    fn adds_nested_in_a_local_scope_are_seen_by_it() {
        let counter = Counter::new();
        with_local(|outer| {
            assert_eq!(outer.add(counter, 1), 0);
            with_local(|inner| inner.add(counter, 2));
            assert_eq!(outer.add(counter, 4), 3, "the nested add is not lost");
        });
        assert_eq!(counter.get(), 7);
    }

    /// Adds made by a thread-local's destructor, when this thread's block may already
    /// be folded away, still count.
    #[test]
    fn adds_while_a_thread_ends_count() {
        struct AddsOnExit(Counter);
        impl Drop for AddsOnExit {
            fn drop(&mut self) {
                add(self.0, 10);
            }
        }
        thread_local! {
            static ON_EXIT: std::cell::Cell<Option<AddsOnExit>> = const { std::cell::Cell::new(None) };
        }
        let counter = Counter::new();
        std::thread::spawn(move || {
            // Registered before the block, so (on the platforms that run thread-local
            // destructors last-in first-out) dropped after it.
            ON_EXIT.with(|cell| cell.set(Some(AddsOnExit(counter))));
            add(counter, 1);
        })
        .join()
        .unwrap();
        assert_eq!(counter.get(), 11);
    }
}

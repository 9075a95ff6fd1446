//! [`BuilderPool`]: hands out warm builders and takes them back, so steady-state message
//! building allocates nothing.

use std::cell::RefCell;
use std::ops::{Deref, DerefMut};
use std::sync::Mutex;

use crate::builder::Builder;

thread_local! {
    /// One warm builder per thread, shared by every pool (builders are interchangeable):
    /// a take and a give-back on the same thread, the common case, touch no lock.
    static WARM: RefCell<Option<Box<Builder>>> = const { RefCell::new(None) };
}

/// The calling thread's warm builder, if it has one within `max_capacity`.
fn take_warm(max_capacity: usize) -> Option<Box<Builder>> {
    WARM.try_with(|slot| {
        let mut slot = slot.try_borrow_mut().ok()?;
        match slot.take() {
            Some(b) if b.capacity() <= max_capacity => Some(b),
            other => {
                *slot = other;
                None
            }
        }
    })
    .ok()
    .flatten()
}

/// Keep `builder` as the calling thread's warm builder if the slot is free; otherwise
/// hand it back.
fn keep_warm(builder: Box<Builder>) -> Option<Box<Builder>> {
    let mut builder = Some(builder);
    let _ = WARM.try_with(|slot| {
        if let Ok(mut slot) = slot.try_borrow_mut() {
            if slot.is_none() {
                *slot = builder.take();
            }
        }
    });
    builder
}

/// A pool of reusable [`Builder`]s.
///
/// [`BuilderPool::get`] returns a [`PooledBuilder`] that derefs to a cleared builder and
/// goes back to the pool when dropped. A builder whose buffers grew past
/// `max_capacity` bytes (one huge message) is freed instead of kept, so a spike does not
/// pin memory forever; at most `max_idle` builders wait in the pool.
///
/// Each thread also keeps one warm builder (shared by all pools, bounded by the largest
/// `max_capacity` in use), so a take and a give-back on the same thread, the common
/// case, take no lock; [`BuilderPool::idle`] does not count it.
///
/// ```
/// use zap_runtime::BuilderPool;
/// let pool = BuilderPool::new();
/// let mut b = pool.get();
/// let mut obj = b.start_object(8);
/// obj.set_u64(0, 7);
/// obj.finish_as_root();
/// let wire: &[u8] = b.finish()?;
/// assert_eq!(wire.len(), 24);
/// # Ok::<(), zap_runtime::BuildError>(())
/// ```
#[derive(Debug)]
pub struct BuilderPool {
    /// Boxed, so a loan moves a pointer rather than the builder's fields (measured with
    /// callgrind: about 40 fewer instructions per get and give-back).
    #[allow(clippy::vec_box)]
    idle: Mutex<Vec<Box<Builder>>>,
    max_idle: usize,
    max_capacity: usize,
    initial_capacity: usize,
}

impl Default for BuilderPool {
    fn default() -> Self {
        BuilderPool::new()
    }
}

impl BuilderPool {
    /// Default number of idle builders kept.
    pub const DEFAULT_MAX_IDLE: usize = 64;
    /// Default cap on the bytes a returned builder may hold (1 MiB).
    pub const DEFAULT_MAX_CAPACITY: usize = 1 << 20;

    /// A pool with the default limits.
    pub fn new() -> Self {
        BuilderPool::with_limits(Self::DEFAULT_MAX_IDLE, Self::DEFAULT_MAX_CAPACITY)
    }

    /// A pool keeping at most `max_idle` builders of at most `max_capacity` bytes each.
    pub fn with_limits(max_idle: usize, max_capacity: usize) -> Self {
        BuilderPool {
            idle: Mutex::new(Vec::with_capacity(max_idle)),
            max_idle,
            max_capacity,
            initial_capacity: 256,
        }
    }

    /// The process-wide pool with the default limits: what generated client stubs encode
    /// their requests with, so a warm call allocates no builder.
    pub fn shared() -> &'static BuilderPool {
        static SHARED: BuilderPool = BuilderPool {
            idle: Mutex::new(Vec::new()),
            max_idle: BuilderPool::DEFAULT_MAX_IDLE,
            max_capacity: BuilderPool::DEFAULT_MAX_CAPACITY,
            initial_capacity: 256,
        };
        &SHARED
    }

    /// Take a cleared builder (a pooled one if any is idle, else a new one).
    pub fn get(&self) -> PooledBuilder<'_> {
        let reused = take_warm(self.max_capacity)
            .or_else(|| self.idle.lock().ok().and_then(|mut idle| idle.pop()));
        let builder =
            reused.unwrap_or_else(|| Box::new(Builder::with_capacity(self.initial_capacity)));
        PooledBuilder {
            builder: Some(builder),
            pool: self,
        }
    }

    /// Builders currently idle in the pool (not counting the threads' warm builders).
    pub fn idle(&self) -> usize {
        self.idle.lock().map(|idle| idle.len()).unwrap_or(0)
    }

    fn give_back(&self, mut builder: Box<Builder>) {
        if builder.capacity() > self.max_capacity {
            return; // dropped: one huge message must not pin its memory
        }
        builder.clear();
        builder.set_version(crate::VERSION1);
        let Some(builder) = keep_warm(builder) else {
            return;
        };
        if let Ok(mut idle) = self.idle.lock() {
            if idle.len() < self.max_idle {
                idle.push(builder);
            }
        }
    }
}

/// A builder on loan from a [`BuilderPool`]; returns there when dropped.
#[derive(Debug)]
pub struct PooledBuilder<'p> {
    /// Always `Some` until `drop` hands the builder back.
    builder: Option<Box<Builder>>,
    pool: &'p BuilderPool,
}

const ON_LOAN: &str = "a pooled builder is present until it is dropped";

impl Deref for PooledBuilder<'_> {
    type Target = Builder;
    #[inline]
    fn deref(&self) -> &Builder {
        self.builder.as_deref().expect(ON_LOAN)
    }
}

impl DerefMut for PooledBuilder<'_> {
    #[inline]
    fn deref_mut(&mut self) -> &mut Builder {
        self.builder.as_deref_mut().expect(ON_LOAN)
    }
}

impl Drop for PooledBuilder<'_> {
    fn drop(&mut self) {
        if let Some(builder) = self.builder.take() {
            self.pool.give_back(builder);
        }
    }
}

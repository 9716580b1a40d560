//! What a piece of work costs the test thread that does it: bytes allocated, peak live bytes and CPU time (the test binary's counting allocator).
use std::cell::Cell;
use std::sync::Once;
use std::time::Duration;

use tracking_allocator::{AllocationGroupId, AllocationRegistry, AllocationTracker};

/// The test binary's allocator (declared in main.rs): the system's, reporting each
/// allocation to `PerThread` once `measure` has first run.
pub type Counting = tracking_allocator::Allocator<std::alloc::System>;

thread_local! {
    static ALLOCATED: Cell<u64> = const { Cell::new(0) };
    static LIVE: Cell<i64> = const { Cell::new(0) };
    static PEAK: Cell<i64> = const { Cell::new(0) };
}

/// Counts per thread: tests run in parallel threads, so a process-wide count would mix
/// their work. Memory freed on another thread than the one that took it is counted there.
struct PerThread;

impl AllocationTracker for PerThread {
    fn allocated(&self, _addr: usize, _size: usize, wrapped: usize, _group: AllocationGroupId) {
        // `try_with`: the allocator also runs while a thread's locals are being torn down.
        let _ = ALLOCATED.try_with(|a| a.set(a.get() + wrapped as u64));
        let _ = LIVE.try_with(|live| {
            let now = live.get() + wrapped as i64;
            live.set(now);
            let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
        });
    }

    fn deallocated(
        &self,
        _addr: usize,
        _size: usize,
        wrapped: usize,
        _source: AllocationGroupId,
        _current: AllocationGroupId,
    ) {
        let _ = LIVE.try_with(|live| live.set(live.get() - wrapped as i64));
    }
}

fn start_counting() {
    static START: Once = Once::new();
    START.call_once(|| {
        AllocationRegistry::set_global_tracker(PerThread).expect("the only tracker");
        AllocationRegistry::enable_tracking();
    });
}

/// What `measure` saw.
#[derive(Debug, Clone, Copy)]
pub struct Cost {
    /// Every byte allocated, freed or not.
    pub allocated: u64,
    /// The most bytes live at once, above what was live at the start.
    pub peak: u64,
    /// The thread's CPU time.
    pub cpu: Duration,
}

fn thread_cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// Runs `work` on this thread and says what it cost.
pub fn measure<T>(work: impl FnOnce() -> T) -> (T, Cost) {
    start_counting();
    let start_allocated = ALLOCATED.with(Cell::get);
    let start_live = LIVE.with(Cell::get);
    PEAK.with(|peak| peak.set(start_live));
    let start_cpu = thread_cpu();
    let out = work();
    let cost = Cost {
        allocated: ALLOCATED.with(Cell::get) - start_allocated,
        peak: (PEAK.with(Cell::get) - start_live).max(0) as u64,
        cpu: thread_cpu().saturating_sub(start_cpu),
    };
    (out, cost)
}

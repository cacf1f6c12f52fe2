//! The simulated timeline streams and events live on.
//!
//! Every operation runs in the simulator when the program calls it (so its data effects
//! happen in call order, one valid order for in-order streams), and is *placed* on the
//! timeline as the GPU would run it: after the previous operation of its stream, after what
//! the host has waited for, and when its engine (the compute queue, a copy engine) is free.
//! Streams created by the program wait for the null stream's work and the null stream waits
//! for theirs (HIP's legacy default-stream rule), except non-blocking streams. Host time only
//! moves at synchronising calls; the host code's own run time is not measured.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The hardware that runs an operation; operations on different engines may overlap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Engine {
    Compute,
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
}

/// `hipStreamNonBlocking`.
pub const STREAM_NON_BLOCKING: u32 = 1;

/// `hipStreamPerThread`: `((hipStream_t)2)` (HIP 5.2 `hip_runtime_api.h`). Every host thread
/// that names it gets its own stream, created at first use: a blocking stream (it waits for
/// the legacy null stream and the null stream waits for it, as CUDA's per-thread default
/// stream does), never destroyed. [`resolve`] maps the handle to the calling thread's stream;
/// the timeline's stream-taking methods all go through it, so the handle works in every
/// stream-taking call.
pub const STREAM_PER_THREAD: usize = 2;

/// Internal handles of per-thread streams start here (far above the counter
/// [`Timeline::create_stream`] hands out).
const PER_THREAD_BASE: usize = 1 << 48;

static NEXT_PER_THREAD: AtomicUsize = AtomicUsize::new(PER_THREAD_BASE);

thread_local! {
    /// This thread's per-thread stream, numbered at first use.
    static PER_THREAD: usize = NEXT_PER_THREAD.fetch_add(1, Ordering::Relaxed);
}

/// The stream a handle names for the calling thread: `hipStreamPerThread` is the thread's own
/// stream, every other handle itself.
pub fn resolve(handle: usize) -> usize {
    if handle == STREAM_PER_THREAD {
        PER_THREAD.with(|h| *h)
    } else {
        handle
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Stream {
    /// When the stream's last operation ends (ms).
    ready_ms: f64,
    non_blocking: bool,
    /// The GPU it belongs to (`hipStreamCreate` on the current device).
    device: usize,
}

/// Keys of the null streams of GPUs 1 and up (GPU 0's is 0): between the created streams'
/// handles and the per-thread streams'.
const NULL_BASE: usize = 1 << 47;

/// A per-thread stream's key on GPU `d` is its thread's handle plus `d` shifted by this.
const PER_THREAD_DEVICE_SHIFT: u32 = 40;

/// Streams (by key; 0 is GPU 0's null stream), each GPU's engines and host time, in
/// milliseconds. Handles the program passes are read for the current device ([`Timeline::current`]):
/// the null stream and `hipStreamPerThread` are the current GPU's.
#[derive(Debug, Default)]
pub struct Timeline {
    host_ms: f64,
    streams: BTreeMap<usize, Stream>,
    engines: BTreeMap<(usize, Engine), f64>,
    next_handle: usize,
    /// The calling thread's current device, set at each call.
    pub current: usize,
}

impl Timeline {
    /// A new stream's handle (never 0, never `hipStreamPerThread`, never reused), on the
    /// current device.
    pub fn create_stream(&mut self, flags: u32) -> usize {
        self.next_handle += 1;
        if self.next_handle == STREAM_PER_THREAD {
            self.next_handle += 1;
        }
        let h = self.next_handle;
        self.streams.insert(h, Stream { ready_ms: self.host_ms, non_blocking: flags & STREAM_NON_BLOCKING != 0, device: self.current });
        h
    }

    /// The key a handle names for the calling thread on the current device.
    fn key(&self, handle: usize) -> usize {
        match handle {
            0 if self.current == 0 => 0,
            0 => NULL_BASE + self.current,
            STREAM_PER_THREAD => resolve(handle) + (self.current << PER_THREAD_DEVICE_SHIFT),
            h => h,
        }
    }

    /// The GPU of the stream with key `key`.
    fn device_of_key(&self, key: usize) -> usize {
        if key == 0 {
            0
        } else if key >= PER_THREAD_BASE {
            (key - PER_THREAD_BASE) >> PER_THREAD_DEVICE_SHIFT
        } else if key >= NULL_BASE {
            key - NULL_BASE
        } else {
            self.streams.get(&key).map_or(self.current, |s| s.device)
        }
    }

    /// The GPU a stream handle belongs to.
    pub fn device_of(&self, handle: usize) -> usize {
        self.device_of_key(self.key(handle))
    }

    /// The null stream's key of GPU `d`.
    fn null_of(d: usize) -> usize {
        if d == 0 {
            0
        } else {
            NULL_BASE + d
        }
    }

    /// The stream's entry, made at first use for a null or per-thread stream.
    fn stream_mut(&mut self, key: usize) -> &mut Stream {
        let device = self.device_of_key(key);
        self.streams.entry(key).or_insert(Stream { device, ..Stream::default() })
    }

    pub fn is_stream(&self, handle: usize) -> bool {
        handle == 0 || handle == STREAM_PER_THREAD || self.streams.contains_key(&handle)
    }

    pub fn destroy_stream(&mut self, handle: usize) -> bool {
        handle != 0 && handle < NULL_BASE && self.streams.remove(&handle).is_some()
    }

    /// `hipDeviceReset`: every stream the program created on the current device is destroyed
    /// (ROCm's reset destroys the device's streams, clr `hipamd/src/hip_device.cpp`
    /// `Device::Reset`); the null stream and the per-thread streams, which exist without
    /// being created, remain.
    pub fn destroy_created_streams(&mut self) {
        let current = self.current;
        self.streams.retain(|&h, s| h == 0 || h >= NULL_BASE || s.device != current);
    }

    /// When an operation issued now on the stream with key `key` may start (before engine
    /// availability).
    fn earliest(&self, key: usize) -> f64 {
        let own = self.streams.get(&key).map_or(0.0, |s| s.ready_ms);
        let device = self.device_of_key(key);
        let implicit = if key == Self::null_of(device) {
            // The null stream waits for every blocking stream of its device.
            self.streams.iter().filter(|(&k, s)| !s.non_blocking && self.device_of_key(k) == device).map(|(_, s)| s.ready_ms).fold(0.0, f64::max)
        } else if self.streams.get(&key).is_some_and(|s| s.non_blocking) {
            0.0
        } else {
            self.streams.get(&Self::null_of(device)).map_or(0.0, |s| s.ready_ms)
        };
        self.host_ms.max(own).max(implicit)
    }

    /// Place an operation of `duration_ms` on `stream` and its device's `engine`; its (start,
    /// end).
    pub fn run(&mut self, stream: usize, engine: Engine, duration_ms: f64) -> (f64, f64) {
        let key = self.key(stream);
        let on = (self.device_of_key(key), engine);
        let start = self.earliest(key).max(self.engines.get(&on).copied().unwrap_or(0.0));
        let end = start + duration_ms;
        self.engines.insert(on, end);
        self.stream_mut(key).ready_ms = end;
        (start, end)
    }

    /// When an operation issued now on `stream` and its device's `engine` would start (what
    /// [`Timeline::run`] gives, without placing it).
    pub fn start_of(&self, stream: usize, engine: Engine) -> f64 {
        let key = self.key(stream);
        let on = (self.device_of_key(key), engine);
        self.earliest(key).max(self.engines.get(&on).copied().unwrap_or(0.0))
    }

    /// Whether an operation issued now on `stream` and `engine` would start at the host's
    /// current time: nothing is queued ahead of it, so the GPU sits idle until it arrives.
    pub fn idle(&self, stream: usize, engine: Engine) -> bool {
        let key = self.key(stream);
        let on = (self.device_of_key(key), engine);
        self.earliest(key).max(self.engines.get(&on).copied().unwrap_or(0.0)) <= self.host_ms
    }

    /// When an event recorded now on `stream` completes.
    pub fn record(&mut self, stream: usize) -> f64 {
        let key = self.key(stream);
        let at = self.earliest(key);
        self.stream_mut(key).ready_ms = at;
        at
    }

    /// `hipStreamWaitEvent`: the stream's later work starts after `at` (an event of any
    /// device: one timeline).
    pub fn wait(&mut self, stream: usize, at: f64) {
        let key = self.key(stream);
        let s = self.stream_mut(key);
        s.ready_ms = s.ready_ms.max(at);
    }

    /// The host blocks until `at`.
    pub fn host_wait(&mut self, at: f64) {
        self.host_ms = self.host_ms.max(at);
    }

    /// The host blocks until `stream`'s work (with the null stream's implicit waits) is done.
    pub fn synchronize_stream(&mut self, stream: usize) {
        let at = self.earliest(self.key(stream));
        self.host_wait(at);
    }

    /// The host blocks until all work of the current device is done.
    pub fn synchronize_device(&mut self) {
        let d = self.current;
        let streams = self.streams.iter().filter(|(&k, _)| self.device_of_key(k) == d).map(|(_, s)| s.ready_ms);
        let at = streams.chain(self.engines.iter().filter(|((e, _), _)| *e == d).map(|(_, &t)| t)).fold(0.0, f64::max);
        self.host_wait(at);
    }

    /// When the last operation of any device ends: the program's end on the timeline.
    pub fn end_ms(&self) -> f64 {
        self.streams.values().map(|s| s.ready_ms).chain(self.engines.values().copied()).fold(self.host_ms, f64::max)
    }

    /// Host time now.
    #[cfg(test)]
    pub fn host_ms(&self) -> f64 {
        self.host_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_runs_in_order_and_the_null_stream_waits_for_blocking_streams() {
        let mut t = Timeline::default();
        let a = t.create_stream(0);
        let b = t.create_stream(STREAM_NON_BLOCKING);
        assert_eq!(t.run(a, Engine::Compute, 2.0), (0.0, 2.0));
        // Same engine: the second kernel queues behind the first even on another stream.
        assert_eq!(t.run(b, Engine::Compute, 1.0), (2.0, 3.0));
        // A copy engine overlaps the kernels.
        assert_eq!(t.run(b, Engine::HostToDevice, 1.0), (3.0, 4.0));
        assert_eq!(t.run(a, Engine::HostToDevice, 1.0), (4.0, 5.0));
        // The null stream waits for `a` (blocking) but not for `b`.
        assert_eq!(t.record(0), 5.0);
        t.synchronize_device();
        assert_eq!(t.host_ms(), 5.0);
    }

    #[test]
    fn the_per_thread_stream_is_each_threads_own_blocking_stream() {
        let mut t = Timeline::default();
        let (a, b) = (t.create_stream(0), t.create_stream(0));
        assert!(a != STREAM_PER_THREAD && b != STREAM_PER_THREAD);
        assert!(t.is_stream(STREAM_PER_THREAD));
        assert_eq!(t.run(STREAM_PER_THREAD, Engine::HostToDevice, 2.0), (0.0, 2.0));
        // In stream order with itself, and the null stream waits for it (a blocking stream).
        assert_eq!(t.run(STREAM_PER_THREAD, Engine::Compute, 1.0), (2.0, 3.0));
        assert_eq!(t.record(0), 3.0);
        // Another thread's per-thread stream is another stream; none can be destroyed.
        let other = std::thread::spawn(|| resolve(STREAM_PER_THREAD)).join().unwrap();
        assert_ne!(other, resolve(STREAM_PER_THREAD));
        assert_eq!(resolve(a), a);
        assert!(!t.destroy_stream(STREAM_PER_THREAD));
    }

    #[test]
    fn an_event_wait_orders_a_second_stream_after_the_first() {
        let mut t = Timeline::default();
        let (a, b) = (t.create_stream(STREAM_NON_BLOCKING), t.create_stream(STREAM_NON_BLOCKING));
        t.run(a, Engine::DeviceToDevice, 4.0);
        let done = t.record(a);
        t.wait(b, done);
        assert_eq!(t.run(b, Engine::Compute, 1.0), (4.0, 5.0));
    }

    #[test]
    fn devices_have_their_own_null_streams_and_engines_on_one_timeline() {
        let mut t = Timeline::default();
        assert_eq!(t.run(0, Engine::Compute, 2.0), (0.0, 2.0));
        t.current = 1;
        let s1 = t.create_stream(0);
        assert_eq!(t.device_of(s1), 1);
        assert_eq!(t.device_of(0), 1, "the null stream is the current device's");
        // GPU 1's engines are its own: its kernel overlaps GPU 0's.
        assert_eq!(t.run(s1, Engine::Compute, 3.0), (0.0, 3.0));
        // GPU 1's null stream waits for its blocking stream, not for GPU 0's work.
        assert_eq!(t.record(0), 3.0);
        t.current = 0;
        assert_eq!(t.record(0), 2.0);
        // An event of GPU 1 orders GPU 0's stream after it.
        let s0 = t.create_stream(STREAM_NON_BLOCKING);
        t.wait(s0, 3.0);
        assert_eq!(t.run(s0, Engine::Compute, 1.0), (3.0, 4.0));
        assert_eq!(t.device_of(s1), 1, "a created stream keeps its device");
        t.synchronize_device();
        assert_eq!(t.host_ms(), 4.0);
        assert_eq!(t.end_ms(), 4.0);
    }

    #[test]
    fn a_reset_destroys_created_streams_but_not_the_null_or_per_thread_ones() {
        let mut t = Timeline::default();
        let a = t.create_stream(0);
        t.run(STREAM_PER_THREAD, Engine::Compute, 1.0);
        t.destroy_created_streams();
        assert!(!t.is_stream(a) && t.is_stream(0) && t.is_stream(STREAM_PER_THREAD));
        assert!(!t.destroy_stream(a), "already destroyed");
        assert_ne!(t.create_stream(0), a, "handles are not reused");
    }
}

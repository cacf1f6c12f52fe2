//! What one fuzz input has to hand: the buffers it allocated (live and freed), the streams,
//! events, modules and graphs it made, and the kernel, variable and host buffers every input
//! starts with. Pointer arguments come only from here ([`State::pointer`]): a buffer at an
//! offset that may run past its end, a freed buffer, a variable, null, or one of the host
//! buffers — never an arbitrary number, since the runtime dereferences a host pointer for
//! the length the call gives (HIP's contract with the program, which the fuzzer keeps).

use super::input::Input;
use crate::api;
use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::OnceLock;

/// Host buffers every input may copy to and from, and their size: spans up to this many
/// bytes from a host buffer are in bounds.
pub const HOST_BUFFERS: usize = 2;
pub const HOST_BYTES: u64 = 2 << 20;
/// Most entries per pool (allocations, streams, ...): later ones are not kept.
const MAX_POOL: usize = 16;

/// The registered kernel's module: `module_kernel.hip` (`axpb(float* y, const float* x,
/// float a, int n)` and the variable `bias`), an offload bundle for every processor of the
/// built-in GPUs, registered as clang's module constructor registers a program's.
const MODULE_BUNDLE: &[u8] = include_bytes!("../../../workloads/hip/bin/module_kernel.co");
/// A plain gfx942 code object for `hipModuleLoadData`: `vadd(const float* a, const float* b,
/// float* c, unsigned n)` (workloads/src/vadd.hip).
pub const VADD_GFX942: &[u8] = include_bytes!("../../../workloads/bin/gfx942/vadd.co");

/// clang's fat-binary wrapper (`__hip_fatbin_wrapper`): magic "HIPF", version, the bundle.
#[repr(C)]
struct Wrapper {
    magic: u32,
    version: u32,
    bundle: *const u8,
    unused: *const u8,
}

/// The registered kernel's host stub and the variable's host shadow: only their addresses
/// matter (the runtime looks them up, never calls or reads them).
pub static STUB: u8 = 1;
pub static SHADOW: u8 = 2;
/// An address no registration names (an unknown stub, an unknown symbol).
pub static UNREGISTERED: u8 = 3;

/// One allocation the input made.
#[derive(Debug, Clone, Copy)]
pub struct Buffer {
    pub ptr: u64,
    pub bytes: u64,
    pub live: bool,
}

/// Results by operation and HIP error code.
pub type Results = BTreeMap<(&'static str, u32), usize>;

#[derive(Default)]
pub struct State {
    pub buffers: Vec<Buffer>,
    pub streams: Vec<usize>,
    pub events: Vec<usize>,
    pub modules: Vec<usize>,
    pub functions: Vec<usize>,
    pub graphs: Vec<usize>,
    pub execs: Vec<usize>,
    /// The variable `bias`'s device address (0 if the lookup failed).
    pub variable: u64,
    pub results: Results,
}

/// The host buffers' addresses, made once and kept for the process (leaked: every input
/// writes them through raw pointers).
fn host_buffers() -> &'static [usize; HOST_BUFFERS] {
    static HOST: OnceLock<[usize; HOST_BUFFERS]> = OnceLock::new();
    HOST.get_or_init(|| std::array::from_fn(|_| Box::leak(vec![0u8; HOST_BYTES as usize].into_boxed_slice()).as_mut_ptr() as usize))
}

impl State {
    /// A fresh input's state: the module registered, the variable's address looked up.
    pub fn new() -> State {
        let mut st = State::default();
        let wrapper = Wrapper { magic: 0x4849_5046, version: 1, bundle: MODULE_BUNDLE.as_ptr(), unused: std::ptr::null() };
        // SAFETY: a wrapper as clang makes it, pointing to a bundle in this library's
        // read-only data; the names are NUL-terminated.
        unsafe {
            let handle = api::registration::__hipRegisterFatBinary(&wrapper as *const Wrapper as *const c_void);
            let (no_name, none) = (std::ptr::null_mut(), std::ptr::null_mut());
            let stub = &STUB as *const u8 as *const c_void;
            api::registration::__hipRegisterFunction(handle, stub, no_name, c"axpb".as_ptr(), -1, none, none, none.cast(), none.cast(), none.cast());
            api::registration::__hipRegisterVar(handle, &SHADOW as *const u8 as *mut c_void, no_name, c"bias".as_ptr(), 0, 4, 0, 0);
            let mut p = std::ptr::null_mut();
            if api::memory::hipGetSymbolAddress(&mut p, &SHADOW as *const u8 as *const c_void) == 0 {
                st.variable = p as u64;
            }
        }
        st
    }

    pub fn record(&mut self, op: &'static str, code: u32) {
        *self.results.entry((op, code)).or_default() += 1;
    }

    pub fn add_buffer(&mut self, ptr: u64, bytes: u64) {
        if ptr != 0 && self.buffers.len() < MAX_POOL {
            self.buffers.push(Buffer { ptr, bytes, live: true });
        }
    }

    /// A pointer argument for a side that may be read or written for `host_span` bytes (see
    /// the module documentation).
    pub fn pointer(&self, r: &mut Input, host_span: u64) -> u64 {
        match r.u8() % 8 {
            0 => 0,
            1..=3 => self.buffer_at(r),
            4 | 5 => self.host(r, host_span),
            6 => self.buffers.iter().filter(|b| !b.live).map(|b| b.ptr).nth(r.index(MAX_POOL)).unwrap_or(0),
            // Inside the 4-byte variable (a longer span runs past it: refused, never
            // mistaken for host memory).
            _ if self.variable == 0 => 0,
            _ => self.variable + u64::from(r.u8() % 4),
        }
    }

    /// A buffer (live or freed) at one of: its start, its middle, its last byte, one past its
    /// end, a page past its end. Each stays within the simulated address space's handed-out
    /// range (allocations are followed by at least a 64 KiB guard), which the runtime
    /// recognises as device memory and never touches on the host.
    fn buffer_at(&self, r: &mut Input) -> u64 {
        let Some(b) = self.buffers.get(r.index(self.buffers.len())) else { return 0 };
        let offset = match r.u8() % 6 {
            0 => 0,
            1 => b.bytes / 2,
            2 => b.bytes.saturating_sub(1),
            3 => b.bytes,
            4 => b.bytes + 1,
            _ => b.bytes + 4096,
        };
        b.ptr + offset
    }

    /// A host buffer at an offset leaving `span` bytes; null when no host buffer is that long.
    fn host(&self, r: &mut Input, span: u64) -> u64 {
        let base = host_buffers()[r.index(HOST_BUFFERS)] as u64;
        if span > HOST_BYTES {
            return 0;
        }
        let room = HOST_BYTES - span;
        let offset = [0, 1, room / 2, room][r.index(4)];
        base + offset
    }

    /// A stream handle: the null stream, `hipStreamPerThread`, one the input made (perhaps
    /// destroyed), or one never made.
    pub fn stream(&self, r: &mut Input) -> usize {
        match r.u8() % 6 {
            0 | 1 => 0,
            2 => crate::timeline::STREAM_PER_THREAD,
            3 => 0x7777,
            _ => self.streams.get(r.index(self.streams.len())).copied().unwrap_or(0),
        }
    }

    /// An event handle: null, one the input made (perhaps destroyed), or one never made.
    pub fn event(&self, r: &mut Input) -> usize {
        match r.u8() % 4 {
            0 => 0,
            1 => 0x5555,
            _ => self.events.get(r.index(self.events.len())).copied().unwrap_or(0),
        }
    }

    /// A handle from `pool`, null, or one never made.
    pub fn handle(r: &mut Input, pool: &[usize]) -> usize {
        match r.u8() % 4 {
            0 => 0,
            1 => 0x6666,
            _ => pool.get(r.index(pool.len())).copied().unwrap_or(0),
        }
    }

    pub fn keep(pool: &mut Vec<usize>, h: usize) {
        if h != 0 && pool.len() < MAX_POOL {
            pool.push(h);
        }
    }
}

//! Copies and fills between the host and the simulated GPU, and where each side of one is.
//!
//! ROCm's runtime decides a copy's direction by the memory objects its pointers fall in, not by
//! the `hipMemcpyKind` (clr `hipamd/src/hip_memory.cpp`, `ihipMemcpy`): a pointer inside an
//! allocation is device-side and the copy must fit in that allocation's size as asked for
//! (`ihipMemcpy_validate`); a pointer in no allocation is the program's host memory, and a
//! copy between two host pointers must say `hipMemcpyHostToHost` or `hipMemcpyDefault`
//! (`IsHtoHMemcpyValid`). hipscope adds one refusal the real runtime cannot make: an address
//! of the simulated device's address space that is in no live allocation (past a buffer's end,
//! freed, between buffers) is neither, and the call is `hipErrorInvalidValue` — it is never
//! dereferenced on the host, where nothing is mapped there.

use crate::node::HOST_BASE;
use crate::runtime::{error, Runtime};

/// Where one side of a copy or fill lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Inside one allocation (or a code object's variable): the device reaches all of it.
    Device,
    /// The program's own memory (HIP's contract: valid for the length given).
    Host,
    /// Null, or device address space outside every live allocation.
    Bad,
}

impl Runtime {
    /// Where `[address, address + len)` lies (see the module documentation).
    pub fn side(&self, address: u64, len: u64) -> Side {
        if address == 0 {
            Side::Bad
        } else if self.reachable(address, len) {
            Side::Device
        } else if self.in_device_space(address) {
            Side::Bad
        } else {
            Side::Host
        }
    }

    /// Whether `address` is one the simulated device's address space handed out: an
    /// allocation of the heap (live or kept for reuse), anything from [`HEAP_BASE`] up to
    /// where the next allocation goes (allocations, their guards, freed ones), or a code
    /// object's section (a range that starts in a variable and runs past its section).
    fn in_device_space(&self, address: u64) -> bool {
        let gpu = |(d, g): (usize, &crate::node::Gpu)| g.heap.maps(address) || (crate::node::range_of(d).0..g.device.mem.high_water()).contains(&address);
        self.gpus.iter().enumerate().any(gpu)
            || (HOST_BASE..self.memory.host.high_water()).contains(&address)
            || self.gpus[self.current].device.mem.allocation_at(address).is_some()
    }

    /// `hipMemset` and friends: `count` elements of `pattern` from `address`, which must lie
    /// in one allocation (clr `ihipMemset_validate`). Written a piece at a time, so that a
    /// fill of any size stages at most [`PIECE_BYTES`] on the host.
    pub fn fill(&mut self, address: u64, pattern: &[u8], count: u64) -> u32 {
        let Some(len) = count.checked_mul(pattern.len() as u64) else { return error::INVALID_VALUE };
        if len == 0 {
            return error::SUCCESS;
        }
        if self.side(address, len) != Side::Device {
            return error::INVALID_VALUE;
        }
        let Ok(n) = usize::try_from(len) else { return error::INVALID_VALUE };
        // PIECE_BYTES is a multiple of every pattern length (1, 2, 4), so each piece starts
        // with the pattern's first byte.
        let piece: Vec<u8> = pattern.iter().copied().cycle().take(n.min(PIECE_BYTES)).collect();
        self.host_to_device();
        self.invalidate_all(address, len);
        let mut code = error::SUCCESS;
        for at in (0..n).step_by(piece.len()) {
            let k = (n - at).min(piece.len());
            if self.mem_at(address).write(address + at as u64, &piece[..k]).is_err() {
                code = error::INVALID_VALUE;
                break;
            }
        }
        self.device_to_host();
        code
    }

    /// Write into device-reachable memory as a copy engine does: memory, not the GPU's caches
    /// (which drop the lines of the written range, after writing back what was dirty, and
    /// keep the rest). Shared memory is written on both sides.
    pub fn write(&mut self, address: u64, bytes: &[u8]) -> u32 {
        self.host_to_device();
        self.invalidate_all(address, bytes.len() as u64);
        if self.mem_at(address).write(address, bytes).is_err() {
            return error::INVALID_VALUE;
        }
        self.device_to_host();
        error::SUCCESS
    }

    /// Read device-reachable memory after everything before it finished.
    pub fn read(&mut self, address: u64, out: &mut [u8]) -> u32 {
        self.host_to_device();
        self.synchronize_all();
        match self.mem_at(address).read(address, out) {
            Ok(()) => error::SUCCESS,
            Err(_) => error::INVALID_VALUE,
        }
    }

    /// A copy of `len` bytes, its direction from where the pointers are (see the module
    /// documentation). Host sides are the caller's (HIP's contract: valid for `len` bytes).
    pub fn copy(&mut self, dst: u64, src: u64, len: u64, kind: CopyKind) -> u32 {
        if len == 0 {
            return error::SUCCESS;
        }
        let Ok(n) = usize::try_from(len) else { return error::INVALID_VALUE };
        match (self.side(dst, len), self.side(src, len)) {
            (Side::Bad, _) | (_, Side::Bad) => error::INVALID_VALUE,
            (Side::Host, Side::Host) if !matches!(kind, CopyKind::HostToHost | CopyKind::Default) => error::INVALID_VALUE,
            (Side::Host, Side::Host) => {
                // SAFETY: both host ranges valid for `len` bytes (the caller's contract).
                unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, n) };
                error::SUCCESS
            }
            (Side::Device, Side::Host) => {
                // SAFETY: the caller's host range (not an allocation: `side`).
                let bytes = unsafe { std::slice::from_raw_parts(src as *const u8, n) };
                self.write(dst, bytes)
            }
            (Side::Host, Side::Device) => {
                // SAFETY: the caller's host range (not an allocation: `side`).
                let out = unsafe { std::slice::from_raw_parts_mut(dst as *mut u8, n) };
                self.read(src, out)
            }
            (Side::Device, Side::Device) => self.copy_on_device(dst, src, n),
        }
    }

    /// A device-to-device copy of `n` bytes (both ranges checked), a piece at a time through
    /// the host so that a copy of any size stages at most [`PIECE_BYTES`]; backwards when the
    /// destination overlaps the source from above, so overlapping ranges copy as `memmove`.
    fn copy_on_device(&mut self, dst: u64, src: u64, n: usize) -> u32 {
        self.host_to_device();
        self.synchronize_all();
        self.invalidate_all(dst, n as u64);
        let mut tmp = vec![0u8; n.min(PIECE_BYTES)];
        let mut starts: Vec<usize> = (0..n).step_by(tmp.len()).collect();
        if dst > src && dst < src + n as u64 {
            starts.reverse();
        }
        let mut code = error::SUCCESS;
        for at in starts {
            let k = (n - at).min(tmp.len());
            let piece = &mut tmp[..k];
            if self.mem_at(src).read(src + at as u64, piece).is_err() || self.mem_at(dst).write(dst + at as u64, piece).is_err() {
                code = error::INVALID_VALUE;
                break;
            }
        }
        self.device_to_host();
        code
    }
}

/// The most a fill or device-to-device copy stages on the host at once.
const PIECE_BYTES: usize = 1 << 20;

/// `hipMemcpyDeviceToDeviceNoCU`.
pub const DEVICE_TO_DEVICE_NO_CU: u32 = 1024;

/// `hipMemcpyKind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyKind {
    HostToHost,
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
    Default,
}

impl CopyKind {
    pub fn from_raw(kind: u32) -> Option<CopyKind> {
        Some(match kind {
            0 => CopyKind::HostToHost,
            1 => CopyKind::HostToDevice,
            2 => CopyKind::DeviceToHost,
            3 => CopyKind::DeviceToDevice,
            4 => CopyKind::Default,
            // hipMemcpyDeviceToDeviceNoCU (HIP 6.1 and later): a device-to-device copy that
            // keeps off the compute units, which ROCm accepts wherever it accepts
            // hipMemcpyDeviceToDevice (`ihipMemcpy_validate`).
            DEVICE_TO_DEVICE_NO_CU => CopyKind::DeviceToDevice,
            _ => return None,
        })
    }
}

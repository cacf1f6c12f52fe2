//! The host's side of services a kernel calls while it runs (HIP's device `printf` goes
//! through the *hostcall* buffer: the kernel posts a packet and spins until the host answers).
//! A [`HostAgent`] is given to a launch ([`crate::Device::launch_with_host`]); both engines poll
//! it between scheduling steps, and when it has work they hand it the device memory (in timing
//! mode after writing the caches' dirty lines back, and with the caches emptied afterwards, so
//! the host reads what the kernel wrote and the kernel reads the host's answer). The engines
//! know nothing of what the service does.

use crate::memory::Memory;

pub trait HostAgent {
    /// The address the kernel's `hidden_hostcall_buffer` argument carries.
    fn hostcall_buffer(&self) -> u64;

    /// Whether the kernel has posted work: a cheap look, made often, through `peek` (the
    /// 8 bytes at an 8-aligned address as the device's writes left them, caches included).
    fn pending(&mut self, peek: &dyn Fn(u64) -> Option<u64>) -> bool;

    /// Do the posted work: read requests from memory and write the answers there.
    fn serve(&mut self, mem: &mut Memory);
}

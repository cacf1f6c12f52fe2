//! Device `printf`: the host side of the hostcall buffer a kernel's `hidden_hostcall_buffer`
//! argument points to, served while the kernel runs ([`HostAgent`]).
//!
//! The layout and protocol are what the ROCm device library's `__ockl_hostcall_internal` and
//! `__ockl_printf_*` functions use (read from Debian's `ockl.bc`, llvm-dis-19):
//! - buffer: `headers` pointer @0, `payloads` pointer @8, doorbell signal @16, free stack @24,
//!   ready stack @32, index mask @40; a stack top is a packet index (low bits, `& mask`)
//!   with a tag above it, 0 for empty;
//! - header (24 bytes): next @0, active lane mask @8, service @16, control @20 (bit 0: the
//!   packet waits for the host);
//! - payload: 64 lanes × 8 words; the lane's request words in, its two answer words out.
//!
//! A wave takes a packet from the free stack, fills it, pushes it on the ready stack and spins
//! until the host clears the control bit. Service 2 is printf: each lane's request is one
//! piece of a message (word 0 a descriptor: bit 0 begins a message, bit 1 ends it, bits 5-7
//! count the data words that follow; the answer's word 0 is the descriptor the lane sends its
//! next piece with, carrying the message's id above bit 8). A message is a word 0, the format
//! string, then one word per argument (`%s` arguments as strings); strings are sent with their
//! terminating NUL, packed 8 bytes to a word, each starting on a word. The host formats the
//! message with the C library's `printf` (so conversions behave exactly as on the host) on the
//! program's own `stdout`.

use hipscope_sim::host::HostAgent;
use hipscope_sim::{Memory, MemoryKind};
use std::collections::BTreeMap;
use std::ffi::CString;

/// Packets: waves that can wait for the host at once (a power of two).
const PACKETS: u64 = 256;
const HEADER_BYTES: u64 = 24;
const PAYLOAD_BYTES: u64 = 64 * 8 * 8;
const SERVICE_PRINTF: u32 = 2;
const DESC_BEGIN: u64 = 1;
const DESC_END: u64 = 2;
const ID_SHIFT: u32 = 8;

pub struct Hostcall {
    buffer: u64,
    headers: u64,
    payloads: u64,
    /// Unfinished printf messages by id: their data words so far.
    messages: BTreeMap<u64, Vec<u64>>,
    next_id: u64,
}

impl Hostcall {
    /// Place an empty buffer with every packet on the free stack.
    pub fn new(mem: &mut Memory) -> Hostcall {
        let headers = mem.alloc("hipscope:hostcall headers", (PACKETS * HEADER_BYTES) as usize, MemoryKind::HostPinned);
        let payloads = mem.alloc("hipscope:hostcall payloads", (PACKETS * PAYLOAD_BYTES) as usize, MemoryKind::HostPinned);
        // An amd_signal_t: kind @0, value @8, event mailbox @16 (none: no interrupt to send).
        let signal = mem.alloc("hipscope:hostcall doorbell", 64, MemoryKind::HostPinned);
        let buffer = mem.alloc("hipscope:hostcall buffer", 48, MemoryKind::HostPinned);
        // Packet i on the free stack with tag 1 (so no stack entry is 0), linked in order.
        let tagged = |i: u64| i + PACKETS;
        for i in 0..PACKETS {
            let next = if i + 1 < PACKETS { tagged(i + 1) } else { 0 };
            let _ = mem.write_u64(headers + i * HEADER_BYTES, next);
        }
        for (off, v) in [(0, headers), (8, payloads), (16, signal), (24, tagged(0)), (32, 0), (40, PACKETS - 1)] {
            let _ = mem.write_u64(buffer + off, v);
        }
        Hostcall { buffer, headers, payloads, messages: BTreeMap::new(), next_id: 1 }
    }

    /// One lane's printf piece; the answer's first word.
    fn printf_piece(&mut self, words: &[u64; 8]) -> u64 {
        let desc = words[0];
        let len = ((desc >> 5) & 7) as usize;
        let id = if desc & DESC_BEGIN != 0 {
            self.next_id += 1;
            self.messages.insert(self.next_id, Vec::new());
            self.next_id
        } else {
            desc >> ID_SHIFT
        };
        let msg = self.messages.entry(id).or_default();
        msg.extend_from_slice(&words[1..1 + len.min(7)]);
        if desc & DESC_END != 0 {
            if let Some(msg) = self.messages.remove(&id) {
                print_message(&msg);
            }
        }
        id << ID_SHIFT
    }
}

impl HostAgent for Hostcall {
    fn hostcall_buffer(&self) -> u64 {
        self.buffer
    }

    fn pending(&mut self, peek: &dyn Fn(u64) -> Option<u64>) -> bool {
        peek(self.buffer + 32).is_some_and(|top| top != 0)
    }

    fn serve(&mut self, mem: &mut Memory) {
        let Ok(top) = mem.read_u64(self.buffer + 32) else { return };
        let _ = mem.write_u64(self.buffer + 32, 0);
        // The ready stack is last-in first-out: answer in the order the waves posted.
        let mut posted = Vec::new();
        let mut p = top;
        while p != 0 && posted.len() < PACKETS as usize {
            let header = self.headers + (p & (PACKETS - 1)) * HEADER_BYTES;
            posted.push(header);
            p = mem.read_u64(header).unwrap_or(0);
        }
        for header in posted.into_iter().rev() {
            let index = (header - self.headers) / HEADER_BYTES;
            let active = mem.read_u64(header + 8).unwrap_or(0);
            let service = mem.read_u32(header + 16).unwrap_or(0);
            for lane in (0..64).filter(|l| active >> l & 1 != 0) {
                let slot = self.payloads + index * PAYLOAD_BYTES + lane * 64;
                let mut words = [0u64; 8];
                for (i, w) in words.iter_mut().enumerate() {
                    *w = mem.read_u64(slot + 8 * i as u64).unwrap_or(0);
                }
                let answer = if service == SERVICE_PRINTF { self.printf_piece(&words) } else { 0 };
                let _ = mem.write_u64(slot, answer);
                let _ = mem.write_u64(slot + 8, 0);
            }
            let control = mem.read_u32(header + 20).unwrap_or(0);
            let _ = mem.write_u32(header + 20, control & !1);
        }
    }
}

/// Bytes of a NUL-terminated string packed in `words` from `*at`; advances past its words.
fn take_string(words: &[u64], at: &mut usize) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(w) = words.get(*at) {
        *at += 1;
        for b in w.to_le_bytes() {
            if b == 0 {
                return out;
            }
            out.push(b);
        }
    }
    out
}

/// Format and print one message: word 0, the format, the arguments.
fn print_message(words: &[u64]) {
    let mut at = 1;
    let format = take_string(words, &mut at);
    let text = format_c(&format, words, &mut at);
    if let Ok(c) = CString::new(text) {
        // SAFETY: a NUL-terminated string and a constant format; the program's C stdout.
        unsafe {
            libc::printf(c"%s".as_ptr(), c.as_ptr());
        }
    }
}

/// `printf(format, args...)` with each argument a word (or a string) from `words`.
fn format_c(format: &[u8], words: &[u64], at: &mut usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < format.len() {
        if format[i] != b'%' {
            out.push(format[i]);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        // Flags, width, precision, length; `*` takes a word.
        let mut spec = vec![b'%'];
        let mut length = Vec::new();
        while i < format.len() {
            let c = format[i];
            match c {
                b'-' | b'+' | b' ' | b'#' | b'0'..=b'9' | b'.' => spec.push(c),
                b'*' => {
                    let v = words.get(*at).copied().unwrap_or(0) as u32 as i32;
                    *at += 1;
                    spec.extend_from_slice(v.to_string().as_bytes());
                }
                b'h' | b'l' | b'j' | b'z' | b't' | b'L' | b'q' => length.push(c),
                _ => break,
            }
            i += 1;
        }
        let Some(&conv) = format.get(i) else {
            out.extend_from_slice(&format[start..]);
            break;
        };
        i += 1;
        out.extend_from_slice(&convert(&spec, &length, conv, words, at));
    }
    out
}

/// One conversion through the C library, with the argument cut to the size its length
/// modifier gives (a word holds the argument widened to 64 bits).
fn convert(spec: &[u8], length: &[u8], conv: u8, words: &[u64], at: &mut usize) -> Vec<u8> {
    if conv == b'%' {
        return b"%".to_vec();
    }
    if conv == b's' {
        let s = take_string(words, at);
        let mut f = spec.to_vec();
        f.push(b's');
        return snprintf(&f, Arg::Str(&s));
    }
    let word = words.get(*at).copied().unwrap_or(0);
    *at += 1;
    let mut f = spec.to_vec();
    let arg = match conv {
        b'd' | b'i' => {
            f.extend_from_slice(b"lld");
            Arg::Int(match length {
                b"hh" => i64::from(word as i8),
                b"h" => i64::from(word as i16),
                [] => i64::from(word as i32),
                _ => word as i64,
            })
        }
        b'u' | b'x' | b'X' | b'o' => {
            f.extend_from_slice(b"ll");
            f.push(conv);
            Arg::Int(match length {
                b"hh" => i64::from(word as u8),
                b"h" => i64::from(word as u16),
                [] => i64::from(word as u32),
                _ => word as i64,
            })
        }
        b'c' => {
            f.push(b'c');
            Arg::Int(i64::from(word as u8))
        }
        b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
            f.push(conv);
            Arg::Float(f64::from_bits(word))
        }
        b'p' => {
            f.push(b'p');
            Arg::Ptr(word)
        }
        // %n writes nothing on the host; anything else is printed as written.
        b'n' => return Vec::new(),
        other => {
            let mut v = f;
            v.push(other);
            return v;
        }
    };
    snprintf(&f, arg)
}

enum Arg<'a> {
    Int(i64),
    Float(f64),
    Ptr(u64),
    Str(&'a [u8]),
}

/// The C library's formatting of one argument.
fn snprintf(spec: &[u8], arg: Arg) -> Vec<u8> {
    let Ok(fmt) = CString::new(spec) else { return Vec::new() };
    let mut buf = vec![0u8; 512];
    let s;
    // SAFETY: `fmt` is one conversion matching the argument's C type; the buffer's size is
    // passed, and snprintf writes at most that many bytes.
    let n = unsafe {
        let (p, len, f) = (buf.as_mut_ptr() as *mut libc::c_char, buf.len(), fmt.as_ptr());
        match arg {
            Arg::Int(v) => libc::snprintf(p, len, f, v as libc::c_longlong),
            Arg::Float(v) => libc::snprintf(p, len, f, v),
            Arg::Ptr(v) => libc::snprintf(p, len, f, v as *const libc::c_void),
            Arg::Str(bytes) => {
                s = CString::new(bytes.iter().copied().filter(|&b| b != 0).collect::<Vec<u8>>()).unwrap_or_default();
                libc::snprintf(p, len, f, s.as_ptr())
            }
        }
    };
    buf.truncate((n.max(0) as usize).min(buf.len() - 1));
    buf
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pack(s: &str) -> Vec<u64> {
        let mut b = s.as_bytes().to_vec();
        b.push(0);
        b.chunks(8).map(|c| c.iter().enumerate().fold(0u64, |w, (i, &x)| w | (u64::from(x) << (8 * i)))).collect()
    }

    #[test]
    fn messages_format_like_the_c_library() {
        // Word 0, the format, then the arguments as the device sends them (ints widened).
        let mut words = vec![0];
        words.extend(pack("%d|%5.2f|%x|%s|%c|%lld|%%"));
        words.push((-7i32) as u32 as u64);
        words.push(2.5f64.to_bits());
        words.push(255);
        words.extend(pack("hello"));
        words.push(u64::from(b'z'));
        words.push((-1234567890123i64) as u64);
        let mut at = 1;
        let format = take_string(&words, &mut at);
        let text = format_c(&format, &words, &mut at);
        assert_eq!(String::from_utf8_lossy(&text), "-7| 2.50|ff|hello|z|-1234567890123|%");
        assert_eq!(at, words.len());
    }
}

//! Compressed clang offload bundles (`CCOB`): what `clang --offload-compress`, `hipcc` of
//! ROCm 6.x/7.x and `clang-offload-bundler --compress` write. The payload is an ordinary
//! `__CLANG_OFFLOAD_BUNDLE__` (see `bundle.rs`), compressed whole.
//!
//! Format facts from LLVM's clang/lib/Driver/OffloadBundler.cpp (`CompressedOffloadBundle`,
//! `RawCompressedBundleHeader`) and llvm/Support/Compression.h (`compression::Format`: Zlib = 0,
//! Zstd = 1); all fields little-endian, packed:
//!
//! ```text
//! v1:  "CCOB" u16 version u16 method                     u32 uncompressed  u64 hash   (20 bytes)
//! v2:  "CCOB" u16 version u16 method  u32 total size     u32 uncompressed  u64 hash   (24 bytes)
//! v3:  "CCOB" u16 version u16 method  u64 total size     u64 uncompressed  u64 hash   (32 bytes)
//! ```
//!
//! then the compressed stream: one zlib stream (method 0) or one zstd frame (method 1). The
//! total size counts the header and the stream. clang 19 writes v2 and clang 22 v3 (the test
//! inputs in isa/tests/data/ccob/ were made so); v1 is the first format. v1 has no total size:
//! LLVM takes the rest of its input as the stream, so the header alone cannot delimit a v1
//! bundle that other data follows (a `.hip_fatbin` holds one bundle per translation unit).
//! Here a v1 bundle ends where its stream ends: zlib and zstd both mark their end, so decoding
//! finds it. The hash is the first 8 bytes of the MD5 digest of the uncompressed bundle
//! (`MD5Result::low()`); LLVM compares it only in verbose mode, we always do, since LLVM's
//! zstd frames carry no checksum of their own.
//!
//! Input is untrusted: sizes are checked before anything is allocated, the output grows only
//! as the decoder produces bytes, decoding stops as soon as it passes the size the header
//! declares, and every problem is a [`LoadError::CompressedBundle`] naming the bundle's offset.

use super::bytes;
use super::LoadError;
use md5::{Digest, Md5};
use serde::Serialize;

pub const MAGIC: &[u8] = b"CCOB";

/// Largest uncompressed bundle we decompress. v3 exists for bundles above 4 GiB; a simulator
/// has no use for one, and refusing it keeps a hostile header from asking for more.
pub const MAX_UNCOMPRESSED: u64 = 4 << 30;

/// Largest accepted ratio of uncompressed to compressed bytes. Offload bundles compress about
/// 5-20x (ELF code objects, several targets); anything near this bound is a lying header.
pub const MAX_RATIO: u64 = 1024;

/// Output is grown by at most this much at a time, so a short stream allocates little.
const CHUNK: usize = 1 << 20;

/// The compression method of a compressed bundle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    Zlib,
    Zstd,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Zlib => "zlib",
            Method::Zstd => "zstd",
        }
    }
}

/// A parsed CCOB header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub version: u16,
    pub method: Method,
    /// Header length in bytes: 20, 24 or 32.
    pub len: usize,
    /// Header plus stream (v2, v3); `None` for v1.
    pub total_size: Option<u64>,
    pub uncompressed_size: u64,
    pub hash: u64,
}

/// A decompressed bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unpacked {
    pub header: Header,
    /// Bytes the compressed bundle occupies in the input (header and stream).
    pub extent: u64,
    /// The plain `__CLANG_OFFLOAD_BUNDLE__`.
    pub bundle: Vec<u8>,
}

fn err(offset: u64, problem: impl Into<String>) -> LoadError {
    LoadError::CompressedBundle { offset, problem: problem.into() }
}

/// Parse the header of the compressed bundle at `data[0]`; `base` is its offset in the file.
pub fn header(data: &[u8], base: u64) -> Result<Header, LoadError> {
    let short = |e: bytes::Short| err(base, format!("header: {e}"));
    if !data.starts_with(MAGIC) {
        return Err(err(base, "does not start with \"CCOB\""));
    }
    let version = bytes::u16_at(data, 4, "version").map_err(short)?;
    let raw_method = bytes::u16_at(data, 6, "method").map_err(short)?;
    if !(1..=3).contains(&version) {
        return Err(err(base, format!("unknown CCOB version {version} (versions 1 to 3 are known)")));
    }
    let method = match raw_method {
        0 => Method::Zlib,
        1 => Method::Zstd,
        m => return Err(err(base, format!("CCOB version {version}: unknown compression method {m} (0 is zlib, 1 is zstd)"))),
    };
    let (len, total_size, uncompressed_size) = match version {
        1 => (20, None, u64::from(bytes::u32_at(data, 8, "uncompressed size").map_err(short)?)),
        2 => {
            (24, Some(u64::from(bytes::u32_at(data, 8, "total size").map_err(short)?)), u64::from(bytes::u32_at(data, 12, "uncompressed size").map_err(short)?))
        }
        _ => (32, Some(bytes::u64_at(data, 8, "total size").map_err(short)?), bytes::u64_at(data, 16, "uncompressed size").map_err(short)?),
    };
    let hash = bytes::u64_at(data, len - 8, "hash").map_err(short)?;
    if let Some(total) = total_size {
        if total < len as u64 {
            return Err(err(base, format!("CCOB version {version}: total size {total} is smaller than the {len}-byte header")));
        }
    }
    Ok(Header { version, method, len, total_size, uncompressed_size, hash })
}

/// The bytes the compressed bundle at `data[0]` occupies (`data` may run past its end). For
/// v2/v3 the header says, for v1 the stream is decoded to find its end.
pub fn extent(data: &[u8], base: u64) -> Result<u64, LoadError> {
    let h = header(data, base)?;
    match h.total_size {
        Some(total) => stream(data, &h, base).map(|_| total),
        None => unpack(data, base).map(|u| u.extent),
    }
}

/// The compressed stream of a bundle whose header is `h`: up to the total size (v2/v3) or to
/// the end of `data` (v1).
fn stream<'d>(data: &'d [u8], h: &Header, base: u64) -> Result<&'d [u8], LoadError> {
    let end = match h.total_size {
        Some(total) => usize::try_from(total).ok().filter(|&t| t <= data.len()).ok_or_else(|| {
            err(base, format!("CCOB version {}: truncated: the header gives a total size of {total} bytes, {} are there", h.version, data.len()))
        })?,
        None => data.len(),
    };
    Ok(data.get(h.len..end).unwrap_or_default())
}

/// Decompress the bundle at `data[0]` (`base`: its offset in the file, for messages).
pub fn unpack(data: &[u8], base: u64) -> Result<Unpacked, LoadError> {
    let h = header(data, base)?;
    let stream = stream(data, &h, base)?;
    let what = format!("CCOB version {}, {}", h.version, h.method.name());
    let expected = checked_size(&h, stream, base)?;
    let decoded = match h.method {
        Method::Zlib => inflate(stream, expected),
        Method::Zstd => unzstd(stream, expected),
    };
    let (bundle, used) = decoded.map_err(|problem| err(base, format!("{what}: {problem}")))?;
    if bundle.len() != expected {
        return Err(err(base, format!("{what}: the stream holds {} bytes, the header says {expected}", bundle.len())));
    }
    let digest = Md5::digest(&bundle);
    let hash = digest.first_chunk::<8>().map_or(0, |b| u64::from_le_bytes(*b));
    if hash != h.hash {
        return Err(err(base, format!("{what}: hash mismatch (header {:#018x}, contents {hash:#018x}): corrupt data", h.hash)));
    }
    let extent = h.total_size.unwrap_or(h.len as u64 + used as u64);
    Ok(Unpacked { header: h, extent, bundle })
}

/// The uncompressed size the header gives, refused before anything is decoded when it is
/// past [`MAX_UNCOMPRESSED`] or more than [`MAX_RATIO`] times the compressed bytes.
fn checked_size(h: &Header, stream: &[u8], base: u64) -> Result<usize, LoadError> {
    let what = format!("CCOB version {}, {}", h.version, h.method.name());
    let expected = h.uncompressed_size;
    let compressed = stream.len() as u64;
    if expected > MAX_UNCOMPRESSED {
        return Err(err(base, format!("{what}: uncompressed size {expected} is above the {MAX_UNCOMPRESSED}-byte limit")));
    }
    if expected > compressed.saturating_mul(MAX_RATIO) {
        return Err(err(base, format!("{what}: uncompressed size {expected} is more than {MAX_RATIO} times the {compressed} compressed bytes")));
    }
    usize::try_from(expected).map_err(|_| err(base, format!("{what}: uncompressed size {expected} does not fit in memory")))
}

/// The first `want` bytes of the decompressed contents of the bundle at `data[0]` (fewer if
/// the contents are shorter), unchecked: for reading the bundle header without decompressing
/// the code objects behind it.
pub fn unpack_prefix(data: &[u8], base: u64, want: usize) -> Result<Vec<u8>, LoadError> {
    let h = header(data, base)?;
    let stream = stream(data, &h, base)?;
    let limit = checked_size(&h, stream, base)?;
    let stop = want.min(limit);
    let decoded = match h.method {
        Method::Zlib => inflate_upto(stream, limit, stop),
        Method::Zstd => unzstd_upto(stream, limit, stop),
    };
    let what = format!("CCOB version {}, {}", h.version, h.method.name());
    decoded.map(|(out, _)| out).map_err(|problem| err(base, format!("{what}: {problem}")))
}

/// Room for the next piece of output: at most [`CHUNK`], and one byte past `limit` so that a
/// stream longer than the header says is caught rather than cut.
fn grow(out: &mut Vec<u8>, limit: usize) {
    let room = limit.saturating_add(1).saturating_sub(out.len()).clamp(1, CHUNK);
    out.reserve(room);
}

/// Inflate one zlib stream (RFC 1950: header, deflate data, Adler-32, which miniz_oxide
/// checks). Returns the output and the stream bytes used.
fn inflate(stream: &[u8], limit: usize) -> Result<(Vec<u8>, usize), String> {
    inflate_upto(stream, limit, usize::MAX)
}

/// [`inflate`], stopping once `stop` bytes are out.
fn inflate_upto(stream: &[u8], limit: usize, stop: usize) -> Result<(Vec<u8>, usize), String> {
    use flate2::{Decompress, FlushDecompress, Status};
    let mut z = Decompress::new(true);
    let mut out = Vec::new();
    loop {
        grow(&mut out, limit);
        let used = usize::try_from(z.total_in()).unwrap_or(usize::MAX);
        let rest = stream.get(used..).unwrap_or_default();
        let before = (z.total_in(), z.total_out());
        let status = z.decompress_vec(rest, &mut out, FlushDecompress::None).map_err(|e| format!("corrupt zlib stream: {e}"))?;
        if out.len() > limit {
            return Err(format!("the stream holds more than the {limit} bytes the header says"));
        }
        if status == Status::StreamEnd || out.len() >= stop {
            let used = usize::try_from(z.total_in()).unwrap_or(usize::MAX);
            return Ok((out, used));
        }
        if (z.total_in(), z.total_out()) == before {
            // No progress with room to write: the input is used up before the stream's end.
            return Err(format!("truncated zlib stream (ends after {} bytes)", stream.len()));
        }
    }
}

/// Decode one zstd frame. Returns the output and the stream bytes used.
fn unzstd(stream: &[u8], limit: usize) -> Result<(Vec<u8>, usize), String> {
    unzstd_upto(stream, limit, usize::MAX)
}

/// [`unzstd`], stopping once `stop` bytes are out.
fn unzstd_upto(stream: &[u8], limit: usize, stop: usize) -> Result<(Vec<u8>, usize), String> {
    use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};
    let mut src = stream;
    let mut frame = FrameDecoder::new();
    // The decoder reserves the frame's window up front. zstd sizes the window to the content
    // (at most the next power of two above it when compressing a buffer of known size), so a
    // larger window only comes from a hostile header.
    let window = (limit as u64).checked_next_power_of_two().unwrap_or(u64::MAX).max(1 << 20);
    frame.set_max_window_size(window);
    frame.reset(&mut src).map_err(|e| format!("zstd frame header: {e}"))?;
    let mut out = Vec::new();
    loop {
        let done = frame.decode_blocks(&mut src, BlockDecodingStrategy::UptoBytes(CHUNK)).map_err(|e| format!("corrupt or truncated zstd frame: {e}"))?;
        // Take what the window no longer needs (everything once the frame is done).
        if let Some(piece) = frame.collect() {
            if out.len().saturating_add(piece.len()) > limit {
                return Err(format!("the stream holds more than the {limit} bytes the header says"));
            }
            out.extend_from_slice(&piece);
        }
        if done || out.len() >= stop {
            return Ok((out, stream.len() - src.len()));
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A CCOB around `stream` for `plain`, laid out as in LLVM's OffloadBundler.cpp.
    pub(crate) fn ccob(version: u16, method: u16, plain: &[u8], stream: &[u8]) -> Vec<u8> {
        let digest = Md5::digest(plain);
        let mut out = MAGIC.to_vec();
        out.extend(version.to_le_bytes());
        out.extend(method.to_le_bytes());
        match version {
            1 => out.extend((plain.len() as u32).to_le_bytes()),
            2 => {
                out.extend((24 + stream.len() as u32).to_le_bytes());
                out.extend((plain.len() as u32).to_le_bytes());
            }
            _ => {
                out.extend((32 + stream.len() as u64).to_le_bytes());
                out.extend((plain.len() as u64).to_le_bytes());
            }
        }
        out.extend(&digest[..8]);
        out.extend(stream);
        out
    }

    pub(crate) fn zlib(plain: &[u8]) -> Vec<u8> {
        use flate2::write::ZlibEncoder;
        use std::io::Write;
        let mut e = ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(plain).unwrap();
        e.finish().unwrap()
    }

    fn sample() -> Vec<u8> {
        (0..5000u32).flat_map(|i| (i % 251).to_le_bytes()).collect()
    }

    #[test]
    fn header_layouts() {
        let plain = sample();
        let z = zlib(&plain);
        for (version, len) in [(1u16, 20usize), (2, 24), (3, 32)] {
            let c = ccob(version, 0, &plain, &z);
            let h = header(&c, 0).unwrap();
            assert_eq!((h.version, h.method, h.len, h.uncompressed_size), (version, Method::Zlib, len, plain.len() as u64));
            assert_eq!(h.total_size, (version > 1).then_some(c.len() as u64));
            assert_eq!(&c[len..], &z[..]);
        }
    }

    #[test]
    fn zlib_round_trip_and_extent() {
        let plain = sample();
        for version in 1..=3 {
            let mut c = ccob(version, 0, &plain, &zlib(&plain));
            let size = c.len() as u64;
            // Padding and a following bundle, as in a .hip_fatbin: v1 must stop at its stream.
            c.extend([0u8; 100]);
            c.extend(b"__CLANG_OFFLOAD_BUNDLE__");
            let u = unpack(&c, 0x40).unwrap();
            assert_eq!(u.bundle, plain, "v{version}");
            assert_eq!(u.extent, size, "v{version}");
            assert_eq!(extent(&c, 0x40).unwrap(), size, "v{version}");
        }
    }

    #[test]
    fn bad_headers_are_refused() {
        let plain = sample();
        let z = zlib(&plain);
        let good = ccob(2, 0, &plain, &z);
        let msg = |d: &[u8]| unpack(d, 0x1000).unwrap_err().to_string();
        let mut m = good.clone();
        m[6] = 7;
        assert!(msg(&m).contains("unknown compression method 7"), "{}", msg(&m));
        let mut v = good.clone();
        v[4] = 9;
        assert!(msg(&v).contains("unknown CCOB version 9"), "{}", msg(&v));
        assert!(msg(&good[..10]).contains("past the end"), "{}", msg(&good[..10]));
        // Total size past the end of the input, and smaller than the header.
        assert!(msg(&good[..good.len() - 1]).contains("truncated"), "{}", msg(&good[..good.len() - 1]));
        let mut t = good.clone();
        t[8..12].copy_from_slice(&3u32.to_le_bytes());
        assert!(msg(&t).contains("smaller than the 24-byte header"), "{}", msg(&t));
        for s in [msg(&m), msg(&v), msg(&t)] {
            assert!(s.starts_with("compressed offload bundle at byte 0x1000: "), "{s}");
            assert!(!s.contains('\n'));
        }
    }

    #[test]
    fn sizes_are_bounded_before_decoding() {
        let plain = sample();
        let z = zlib(&plain);
        // v3 claims 5 GiB: refused by the absolute bound.
        let mut c = ccob(3, 0, &plain, &z);
        c[16..24].copy_from_slice(&(5u64 << 30).to_le_bytes());
        assert!(unpack(&c, 0).unwrap_err().to_string().contains("above the 4294967296-byte limit"));
        // v2 claims 1025 times its stream: refused by the ratio.
        let mut c = ccob(2, 0, &plain, &z);
        c[12..16].copy_from_slice(&((z.len() as u32) * 1025).to_le_bytes());
        assert!(unpack(&c, 0).unwrap_err().to_string().contains("more than 1024 times"));
    }

    #[test]
    fn lying_sizes_and_corrupt_streams_are_errors() {
        let plain = sample();
        let z = zlib(&plain);
        // Header says fewer bytes than the stream holds, or more.
        let mut c = ccob(2, 0, &plain, &z);
        c[12..16].copy_from_slice(&((plain.len() - 1) as u32).to_le_bytes());
        assert!(unpack(&c, 0).unwrap_err().to_string().contains("more than"), "{}", unpack(&c, 0).unwrap_err());
        let mut c = ccob(2, 0, &plain, &z);
        c[12..16].copy_from_slice(&((plain.len() + 1) as u32).to_le_bytes());
        assert!(unpack(&c, 0).unwrap_err().to_string().contains("the header says"), "{}", unpack(&c, 0).unwrap_err());
        // A wrong hash.
        let mut c = ccob(2, 0, &plain, &z);
        c[16] ^= 1;
        assert!(unpack(&c, 0).unwrap_err().to_string().contains("hash mismatch"));
        // The stream cut short (v1: the input simply ends), and a flipped Adler-32.
        let c = ccob(1, 0, &plain, &z[..z.len() / 2]);
        assert!(unpack(&c, 0).unwrap_err().to_string().contains("truncated zlib stream"), "{}", unpack(&c, 0).unwrap_err());
        let mut c = ccob(1, 0, &plain, &z);
        let last = c.len() - 1;
        c[last] ^= 0xff;
        assert!(unpack(&c, 0).unwrap_err().to_string().contains("corrupt zlib stream"), "{}", unpack(&c, 0).unwrap_err());
        // zstd method on a zlib stream.
        let c = ccob(2, 1, &plain, &z);
        assert!(unpack(&c, 0).unwrap_err().to_string().contains("zstd frame header"), "{}", unpack(&c, 0).unwrap_err());
    }
}

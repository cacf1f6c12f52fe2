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
//! Nothing here keeps the contents: [`decode`] hands them on piece by piece as they are
//! decoded, and the caller keeps what it wants (`extract.rs`: the bundle's entry table and the
//! entries asked for). A ROCm library's bundle holds gigabytes of code objects for a dozen
//! processors, of which a run uses one.
//!
//! Input is untrusted: sizes are checked before anything is decoded, decoding stops as soon
//! as it passes the size the header declares, and every problem is a
//! [`LoadError::CompressedBundle`] naming the bundle's offset.

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

/// Decoded bytes are handed on at most this many at a time.
pub const CHUNK: usize = 1 << 20;

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

/// What the consumer of decoded bytes ([`decode`]) wants next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Go on decoding.
    More,
    /// Stop: nothing after this is wanted, and nothing past it is checked.
    Enough,
}

/// How [`decode`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decoded {
    pub header: Header,
    /// Bytes the compressed bundle occupies in the input (header and stream): from the header
    /// (v2/v3), or where the stream ended (v1; `None` if stopped before).
    pub extent: Option<u64>,
    /// The whole stream was decoded and its size and hash checked (not stopped by the consumer).
    pub whole: bool,
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
/// v2/v3 the header says, for v1 the stream is decoded (and dropped) to find its end.
pub fn extent(data: &[u8], base: u64) -> Result<u64, LoadError> {
    let h = header(data, base)?;
    match h.total_size {
        Some(total) => stream(data, &h, base).map(|_| total),
        None => {
            let d = decode(data, base, &mut |_| Flow::More)?;
            d.extent.ok_or_else(|| err(base, "the stream's end was not found"))
        }
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

/// Decode the bundle at `data[0]` (`base`: its offset in the file, for messages), handing
/// its contents to `sink` piece by piece, in order, at most [`CHUNK`] bytes at a time; none
/// of it is kept here. Unless `sink` has had [`Flow::Enough`], the whole stream is decoded,
/// its length checked against the header and its hash against every decoded byte. Memory:
/// one chunk, and for zstd the frame's window (which its header gives, bounded below).
pub fn decode(data: &[u8], base: u64, sink: &mut dyn FnMut(&[u8]) -> Flow) -> Result<Decoded, LoadError> {
    let h = header(data, base)?;
    let stream = stream(data, &h, base)?;
    let what = format!("CCOB version {}, {}", h.version, h.method.name());
    let fail = |problem: String| err(base, format!("{what}: {problem}"));
    let expected = checked_size(&h, stream, base)?;
    let mut decoder = Decoder::new(h.method, stream, expected).map_err(fail)?;
    let mut piece = vec![0u8; CHUNK];
    let mut digest = Md5::new();
    let mut produced = 0usize;
    loop {
        let n = decoder.next(&mut piece).map_err(fail)?;
        let Some(out) = piece.get(..n).filter(|o| !o.is_empty()) else { break };
        produced = produced.saturating_add(n);
        if produced > expected {
            return Err(fail(format!("the stream holds more than the {expected} bytes the header says")));
        }
        digest.update(out);
        if sink(out) == Flow::Enough {
            return Ok(Decoded { header: h, extent: h.total_size, whole: false });
        }
    }
    if produced != expected {
        return Err(fail(format!("the stream holds {produced} bytes, the header says {expected}")));
    }
    let digest = digest.finalize();
    let hash = digest.first_chunk::<8>().map_or(0, |b| u64::from_le_bytes(*b));
    if hash != h.hash {
        return Err(fail(format!("hash mismatch (header {:#018x}, contents {hash:#018x}): corrupt data", h.hash)));
    }
    let extent = h.total_size.unwrap_or(h.len as u64 + decoder.used() as u64);
    Ok(Decoded { header: h, extent: Some(extent), whole: true })
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

/// A zlib or zstd stream being decoded, piece by piece.
enum Decoder<'s> {
    /// One zlib stream (RFC 1950: header, deflate data, Adler-32, which miniz_oxide checks).
    Zlib { z: flate2::Decompress, stream: &'s [u8], ended: bool },
    /// One zstd frame; `rest` is the part of `stream` not read yet.
    Zstd { frame: Box<ruzstd::decoding::FrameDecoder>, stream: &'s [u8], rest: &'s [u8] },
}

impl<'s> Decoder<'s> {
    /// A decoder of `stream`, whose contents should be `limit` bytes.
    fn new(method: Method, stream: &'s [u8], limit: usize) -> Result<Decoder<'s>, String> {
        match method {
            Method::Zlib => Ok(Decoder::Zlib { z: flate2::Decompress::new(true), stream, ended: false }),
            Method::Zstd => {
                let mut frame = Box::new(ruzstd::decoding::FrameDecoder::new());
                // The decoder reserves the frame's window up front. zstd sizes the window to
                // the content (at most the next power of two above it when compressing a
                // buffer of known size; LLVM's long-distance matching asks for 128 MiB), so a
                // larger window only comes from a hostile header.
                frame.set_max_window_size((limit as u64).checked_next_power_of_two().unwrap_or(u64::MAX).max(1 << 20));
                let mut rest = stream;
                frame.reset(&mut rest).map_err(|e| format!("zstd frame header: {e}"))?;
                Ok(Decoder::Zstd { frame, stream, rest })
            }
        }
    }

    /// The next decoded bytes, into `out`: how many (at least one), or 0 at the stream's end.
    fn next(&mut self, out: &mut [u8]) -> Result<usize, String> {
        match self {
            Decoder::Zlib { z, stream, ended } => inflate_next(z, stream, ended, out),
            Decoder::Zstd { frame, rest, .. } => unzstd_next(frame, rest, out),
        }
    }

    /// Stream bytes decoded so far (all of it once [`Decoder::next`] gave 0: the stream's end).
    fn used(&self) -> usize {
        match self {
            Decoder::Zlib { z, .. } => usize::try_from(z.total_in()).unwrap_or(usize::MAX),
            Decoder::Zstd { stream, rest, .. } => stream.len() - rest.len(),
        }
    }
}

/// [`Decoder::next`] of a zlib stream; `ended` once its end was seen (a v1 bundle's input
/// runs on past it).
fn inflate_next(z: &mut flate2::Decompress, stream: &[u8], ended: &mut bool, out: &mut [u8]) -> Result<usize, String> {
    use flate2::{FlushDecompress, Status};
    while !*ended {
        let used = usize::try_from(z.total_in()).unwrap_or(usize::MAX);
        let rest = stream.get(used..).unwrap_or_default();
        let before = (z.total_in(), z.total_out());
        let status = z.decompress(rest, out, FlushDecompress::None).map_err(|e| format!("corrupt zlib stream: {e}"))?;
        let made = usize::try_from(z.total_out() - before.1).unwrap_or(usize::MAX);
        *ended = status == Status::StreamEnd;
        if made > 0 {
            return Ok(made);
        }
        if z.total_in() == before.0 && !*ended {
            // No progress with room to write: the input is used up before the stream's end.
            return Err(format!("truncated zlib stream (ends after {} bytes)", stream.len()));
        }
    }
    Ok(0)
}

/// [`Decoder::next`] of a zstd frame.
fn unzstd_next(frame: &mut ruzstd::decoding::FrameDecoder, rest: &mut &[u8], out: &mut [u8]) -> Result<usize, String> {
    use ruzstd::decoding::BlockDecodingStrategy;
    use std::io::Read;
    loop {
        // Before the frame's end this hands out only what the window no longer needs.
        let n = frame.read(out).map_err(|e| format!("corrupt zstd frame: {e}"))?;
        if n > 0 || frame.is_finished() {
            return Ok(n);
        }
        frame.decode_blocks(&mut *rest, BlockDecodingStrategy::UptoBytes(CHUNK)).map_err(|e| format!("corrupt or truncated zstd frame: {e}"))?;
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

    /// The whole contents and the extent, decoded piece by piece and put together.
    pub(crate) fn unpack(data: &[u8], base: u64) -> Result<(Vec<u8>, u64), LoadError> {
        let mut all = Vec::new();
        let d = decode(data, base, &mut |piece| {
            all.extend_from_slice(piece);
            Flow::More
        })?;
        assert!(d.whole);
        Ok((all, d.extent.unwrap()))
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
            let (bundle, end) = unpack(&c, 0x40).unwrap();
            assert_eq!(bundle, plain, "v{version}");
            assert_eq!(end, size, "v{version}");
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

//! The entries of a compressed bundle, taken from its contents as they are decoded.
//!
//! A compressed bundle is one stream holding a whole `__CLANG_OFFLOAD_BUNDLE__` (see
//! `compressed.rs`, `bundle.rs`): the entry table first, then one code object per processor.
//! ROCm 7.2's rocPRIM tests carry a single bundle of 3.4 GB for 14 processors, of which a
//! simulated GPU runs one. So the contents are never held whole: the entry table is parsed as
//! its bytes arrive, the bytes of the entries asked for are copied out as they pass, and the
//! rest is dropped. The whole stream is still decoded when an entry is wanted, so that its
//! size and hash are checked as before (a listing stops after the table, see [`Want::List`]).
//!
//! What is held besides the decoder's own buffers (one chunk, and a zstd frame's window): the
//! bytes decoded before the table was complete (the first chunk, in practice) and the wanted
//! entries. [`Extracted::max_held`] reports the most at any time, for tests to bound.

use super::bundle::{self, BundleEntry};
use super::compressed::{self, Flow};
use super::LoadError;

/// What to keep of a compressed bundle.
#[derive(Debug, Clone, Copy)]
pub enum Want<'w> {
    /// The entry table only. A v2/v3 bundle is decoded no further than the table (its size
    /// is in its header); a v1 bundle to the end of its stream, which is where it ends.
    List,
    /// The entry table and the contents of the entries with these ids.
    Entries(&'w [&'w str]),
}

/// A wanted entry that the bundle holds: its index in [`Extracted::entries`], its contents.
pub type Contents = (usize, Vec<u8>);

/// What [`extract`] kept.
#[derive(Debug)]
pub struct Extracted {
    /// Every entry, with its range in the decompressed bundle.
    pub entries: Vec<BundleEntry>,
    /// The wanted entries that the bundle holds, in bundle order.
    pub kept: Vec<Contents>,
    /// Bytes the compressed bundle occupies in the input.
    pub extent: u64,
    /// The most decoded bytes held at once (see the module comment); the tests bound it.
    #[cfg_attr(not(test), allow(dead_code))]
    pub max_held: usize,
}

/// Decode the compressed bundle at `data[0]` (`base`: its offset in the file), keeping what
/// `want` asks for. Errors are those of the whole bundle decoded at once, in the same order:
/// the stream's (corrupt, truncated, longer or shorter than declared, hash), then those of
/// its contents as an offload bundle.
pub fn extract(data: &[u8], base: u64, want: Want) -> Result<Extracted, LoadError> {
    let h = compressed::header(data, base)?;
    let may_stop = matches!(want, Want::List) && h.total_size.is_some();
    let mut c = Collector::new(want, may_stop, h.uncompressed_size);
    let decoded = compressed::decode(data, base, &mut |piece| c.take(piece))?;
    let extent = decoded.extent.ok_or_else(|| LoadError::CompressedBundle { offset: base, problem: "the stream's end was not found".into() })?;
    let max_held = c.max_held;
    let (entries, kept) = c.finish(base)?;
    Ok(Extracted { entries, kept, extent, max_held })
}

/// A wanted entry: its range in the decompressed bundle and the bytes of it seen so far.
struct Kept {
    index: usize,
    start: u64,
    end: u64,
    bytes: Vec<u8>,
}

/// Why decompressed contents are no offload bundle.
enum Problem {
    /// They do not start with its magic: their first bytes.
    NotABundle(Vec<u8>),
    /// Its entry table is wrong.
    Table(LoadError),
}

/// The consumer of decoded bytes: the entry table, then the wanted entries.
struct Collector<'w> {
    want: Want<'w>,
    /// Stop once the table is read (a listing of a bundle whose header gives its size).
    may_stop: bool,
    /// The uncompressed size the header declares (`decode` checks the stream against it).
    declared: u64,
    /// Decoded bytes from the start, until the entry table is complete.
    head: Vec<u8>,
    /// `head` length at which to try parsing the table again (doubling: linear work even
    /// for a hostile table that never completes).
    retry_at: usize,
    /// Decoded bytes so far.
    seen: u64,
    /// The entry table, once complete.
    entries: Option<Vec<BundleEntry>>,
    kept: Vec<Kept>,
    /// Why the contents are no offload bundle: reported after the stream's own checks.
    problem: Option<Problem>,
    max_held: usize,
}

impl<'w> Collector<'w> {
    fn new(want: Want<'w>, may_stop: bool, declared: u64) -> Collector<'w> {
        Collector { want, may_stop, declared, head: Vec::new(), retry_at: 0, seen: 0, entries: None, kept: Vec::new(), problem: None, max_held: 0 }
    }

    /// The next decoded piece.
    fn take(&mut self, piece: &[u8]) -> Flow {
        let at = self.seen;
        self.seen = self.seen.saturating_add(piece.len() as u64);
        if self.problem.is_some() {
            // Decoding goes on only for the stream's checks, which come first.
            return Flow::More;
        }
        if self.entries.is_some() {
            copy(&mut self.kept, at, piece);
        } else {
            self.head.extend_from_slice(piece);
            self.note_held();
            if self.head.len() < self.retry_at && self.seen < self.declared {
                return Flow::More;
            }
            self.retry_at = self.head.len().saturating_mul(2);
            self.parse_table(self.seen < self.declared);
            if self.entries.is_some() {
                // Wanted bytes that came with the table (any of an entry's, in a hostile
                // bundle whose contents overlap its table).
                let head = std::mem::take(&mut self.head);
                copy(&mut self.kept, 0, &head);
            }
        }
        self.note_held();
        if self.may_stop && self.entries.is_some() {
            Flow::Enough
        } else {
            Flow::More
        }
    }

    /// Parse the entry table from `head`; `more`: bytes are still to come, so a table that
    /// `head` cuts off is waited for. Sets `entries` (and the wanted entries) or `problem`.
    fn parse_table(&mut self, more: bool) {
        if (self.head.len() >= bundle::MAGIC.len() || !more) && !self.head.starts_with(bundle::MAGIC) {
            self.problem = Some(Problem::NotABundle(self.head.iter().take(8).copied().collect()));
            return;
        }
        match bundle::parse_head(&self.head, 0, self.declared, more) {
            Ok(None) => {}
            Ok(Some((entries, _))) => {
                self.kept = wanted(&entries, self.want);
                self.entries = Some(entries);
            }
            Err(e) => self.problem = Some(Problem::Table(e)),
        }
    }

    fn note_held(&mut self) {
        let held = self.head.len() + self.kept.iter().map(|k| k.bytes.len()).sum::<usize>();
        self.max_held = self.max_held.max(held);
    }

    /// The entries and the wanted entries' contents, once the stream is decoded (and
    /// checked); an error if the contents are no offload bundle. `base` names the bundle.
    fn finish(mut self, base: u64) -> Result<(Vec<BundleEntry>, Vec<Contents>), LoadError> {
        if self.entries.is_none() && self.problem.is_none() {
            self.parse_table(false);
        }
        match (self.problem, self.entries) {
            (Some(Problem::NotABundle(first)), _) => Err(bundle::unpacked_error(&first, None, base)),
            (Some(Problem::Table(e)), _) => Err(bundle::unpacked_error(&[], Some(e), base)),
            (None, Some(entries)) => Ok((entries, self.kept.into_iter().map(|k| (k.index, k.bytes)).collect())),
            // `parse_table` without `more` always decides.
            (None, None) => Err(bundle::unpacked_error(&self.head, None, base)),
        }
    }
}

/// The entries `want` asks for (the first of each id: ids are unique in a bundle written by
/// clang-offload-bundler).
fn wanted(entries: &[BundleEntry], want: Want) -> Vec<Kept> {
    let Want::Entries(ids) = want else { return Vec::new() };
    let mut kept: Vec<Kept> = Vec::new();
    for (index, e) in entries.iter().enumerate() {
        if ids.contains(&e.id.as_str()) && !kept.iter().any(|k| entries.get(k.index).is_some_and(|o| o.id == e.id)) {
            kept.push(Kept { index, start: e.offset, end: e.offset.saturating_add(e.size), bytes: Vec::new() });
        }
    }
    kept
}

/// Copy the part of `piece` (decoded bytes from `at` on) that lies in each kept entry. Pieces
/// come in order, so each entry's bytes are appended in order.
fn copy(kept: &mut [Kept], at: u64, piece: &[u8]) {
    let end = at.saturating_add(piece.len() as u64);
    for k in kept {
        let (from, to) = (k.start.max(at), k.end.min(end));
        if from >= to {
            continue;
        }
        let Some(part) = piece.get(offset(from - at)..offset(to - at)) else { continue };
        if k.bytes.capacity() == 0 {
            // The entry's size was checked against the declared size, which the stream
            // then has to produce: reserve it once rather than grow by doubling.
            k.bytes.reserve_exact(offset(k.end - k.start));
        }
        k.bytes.extend_from_slice(part);
    }
}

fn offset(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codeobj::bundle::tests::bundle;
    use crate::codeobj::compressed::tests::{ccob, unpack, zlib};
    use crate::codeobj::compressed::CHUNK;

    const HOST: &str = "host-x86_64-unknown-linux--";
    const A: &str = "hipv4-amdgcn-amd-amdhsa--gfx90a";
    const BIG: &str = "hipv4-amdgcn-amd-amdhsa--gfx942";
    const C: &str = "hipv4-amdgcn-amd-amdhsa--gfx1100";

    /// `n` bytes that compress poorly (a linear congruential sequence).
    fn noise(n: usize, seed: u32) -> Vec<u8> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (x >> 24) as u8
            })
            .collect()
    }

    /// `plain` compressed by `method` (0 zlib, 1 zstd) in a CCOB of `version`.
    fn compress(version: u16, method: u16, plain: &[u8]) -> Vec<u8> {
        let stream = match method {
            0 => zlib(plain),
            _ => ruzstd::encoding::compress_to_vec(plain, ruzstd::encoding::CompressionLevel::Fastest),
        };
        ccob(version, method, plain, &stream)
    }

    /// The bytes of entry `id` of the plain bundle, cut out by its own table.
    fn contents<'p>(plain: &'p [u8], id: &str) -> &'p [u8] {
        let (entries, _) = bundle::parse(plain, 0).unwrap();
        let e = entries.iter().find(|e| e.id == id).unwrap();
        &plain[e.offset as usize..(e.offset + e.size) as usize]
    }

    #[test]
    fn kept_entries_are_those_of_the_whole_bundle() {
        let (a, big, c) = (b"first code object".to_vec(), noise(3 * CHUNK + 17, 1), noise(5000, 2));
        let plain = bundle(&[(HOST, b""), (A, &a), (BIG, &big), (C, &c)]);
        for (version, method) in [(1, 0), (2, 0), (3, 0), (1, 1), (2, 1), (3, 1)] {
            let packed = compress(version, method, &plain);
            let what = format!("v{version} method {method}");
            for ids in [&[A, C][..], &[BIG], &[C, HOST, A, BIG], &["hipv4-amdgcn-amd-amdhsa--gfx908"]] {
                let x = extract(&packed, 0x100, Want::Entries(ids)).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!((x.entries.clone(), x.extent), (bundle::parse(&plain, 0).unwrap().0, packed.len() as u64), "{what}");
                // In bundle order, the absent one left out.
                let want: Vec<&str> = [HOST, A, BIG, C].into_iter().filter(|id| ids.contains(id)).collect();
                let got: Vec<&str> = x.kept.iter().map(|(i, _)| x.entries[*i].id.as_str()).collect();
                assert_eq!(got, want, "{what}");
                for (i, bytes) in &x.kept {
                    let id = &x.entries[*i].id;
                    assert!(bytes[..] == *contents(&plain, id), "{what}: {id} differs");
                }
            }
            let listed = extract(&packed, 0, Want::List).unwrap();
            assert_eq!((listed.entries, listed.kept.len(), listed.extent), (bundle::parse(&plain, 0).unwrap().0, 0, packed.len() as u64), "{what}");
        }
    }

    #[test]
    fn unwanted_entries_are_not_held() {
        let small = noise(3000, 3);
        let big = noise(6 * CHUNK, 4);
        let plain = bundle(&[(HOST, b""), (BIG, &big), (A, &small)]);
        for method in [0, 1] {
            let packed = compress(3, method, &plain);
            let x = extract(&packed, 0, Want::Entries(&[A])).unwrap();
            assert_eq!(x.kept[0].1, small);
            // The first chunk (held until the table is read) and the wanted entry, never the
            // six chunks of the other one.
            assert!(x.max_held <= CHUNK + small.len(), "method {method}: {} bytes held", x.max_held);
            let x = extract(&packed, 0, Want::Entries(&[BIG])).unwrap();
            assert!(x.kept[0].1 == big);
            assert!(x.max_held <= CHUNK + big.len(), "method {method}: {} bytes held", x.max_held);
            assert!(extract(&packed, 0, Want::List).unwrap().max_held <= CHUNK);
        }
    }

    #[test]
    fn contents_overlapping_the_table_are_kept_too() {
        // A hostile table whose second entry's contents are the table's own first bytes.
        let mut plain = bundle(&[(HOST, b""), (A, b"xyz")]);
        // The second entry's offset and size fields (after the magic, count and the first
        // entry's 24 bytes and 27-byte id).
        plain[83..91].copy_from_slice(&4u64.to_le_bytes());
        plain[91..99].copy_from_slice(&40u64.to_le_bytes());
        let x = extract(&compress(2, 1, &plain), 0, Want::Entries(&[A])).unwrap();
        assert!(x.kept[0].1[..] == plain[4..44]);
    }

    /// The error of decoding `packed` whole and parsing it as a bundle afterwards.
    fn whole_error(packed: &[u8]) -> String {
        match unpack(packed, 0x40) {
            Err(e) => e.to_string(),
            Ok((all, _)) if !all.starts_with(bundle::MAGIC) => bundle::unpacked_error(&all, None, 0x40).to_string(),
            Ok((all, _)) => bundle::parse(&all, 0).map_or_else(|e| bundle::unpacked_error(&[], Some(e), 0x40).to_string(), |_| "no error".into()),
        }
    }

    #[test]
    fn errors_are_those_of_the_whole_decode() {
        // Over a chunk, so that pieces follow the one where a bad table is seen.
        let plain = bundle(&[(HOST, b""), (A, &noise(CHUNK + 70_000, 5)), (C, b"code")]);
        let mut bad_table = plain.clone();
        // The second entry's size (see `contents_overlapping_the_table_are_kept_too`).
        bad_table[91..99].copy_from_slice(&(1u64 << 40).to_le_bytes());
        let not_a_bundle = noise(CHUNK + 1000, 6);
        let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
        for method in [0u16, 1] {
            let ok = compress(2, method, &plain);
            let mut hash = ok.clone();
            hash[16] ^= 1;
            let mut longer = ok.clone();
            longer[12..16].copy_from_slice(&(plain.len() as u32 - 1).to_le_bytes());
            let mut shorter = ok.clone();
            shorter[12..16].copy_from_slice(&(plain.len() as u32 + 1).to_le_bytes());
            let mut ratio = ok.clone();
            ratio[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
            let mut bad_and_hash = compress(2, method, &bad_table);
            bad_and_hash[16] ^= 1;
            let v1 = compress(1, method, &plain);
            let cut = v1[..v1.len() - 9].to_vec();
            let mut stream = ok.clone();
            stream[24 + 40] ^= 0x55;
            let named = [("hash", hash), ("longer", longer), ("shorter", shorter), ("ratio", ratio), ("cut v1", cut), ("cut v2", ok[..ok.len() - 1].to_vec())];
            let named = named.into_iter().chain([("bad table", compress(3, method, &bad_table)), ("not a bundle", compress(3, method, &not_a_bundle))]);
            let named = named.chain([("bad table and hash", bad_and_hash), ("damaged stream", stream)]);
            cases.extend(named.map(|(n, d)| (format!("{n}, method {method}"), d)));
        }
        for (name, packed) in &cases {
            let want = whole_error(packed);
            assert!(want != "no error" && !want.contains('\n'), "{name}: {want}");
            for ids in [&[A][..], &[C, HOST], &[]] {
                let got = extract(packed, 0x40, Want::Entries(ids)).map(|_| ()).unwrap_err().to_string();
                assert_eq!(got, want, "{name}");
            }
        }
        // Listing a v2/v3 bundle stops after a good table: what comes after is not checked.
        for (name, packed) in &cases {
            match extract(packed, 0x40, Want::List) {
                Ok(_) => assert!(["hash,", "shorter", "damaged"].iter().any(|n| name.starts_with(n)), "{name}: listed"),
                Err(e) => assert_eq!(e.to_string(), whole_error(packed), "{name}"),
            }
        }
    }
}

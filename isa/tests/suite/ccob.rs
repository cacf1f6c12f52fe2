//! Compressed offload bundles (`CCOB`) made by real compilers (clang 19: v2 zstd; clang 22: v3
//! and v2 zstd) and, for the formats no installed compiler writes (zlib; v1), by python's zlib
//! and the zstd command with LLVM's header layout. `tests/data/ccob/build.sh` made them all; no
//! LLVM is needed here.
//!
//! The independent reference is the plain bundle of the same compile (a fixed `-cuid` makes the
//! device code byte-identical): every compressed input must decompress to exactly its bytes,
//! list the same entries and load code objects equal to the ones loaded from it. Damaged
//! inputs must give errors, never panics, and never a different code object.

use hipscope_isa::codeobj::{self, CodeObject, ContainerKind, LoadError};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::borrow::Cow;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

const TARGETS: [&str; 2] = ["gfx90a", "gfx1100"];

fn data(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/ccob").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// (compressed file, its plain reference, CCOB version, method: 0 zlib / 1 zstd).
const COMPRESSED: [(&str, &str, u16, u16); 8] = [
    ("k.clang19.zstd-v2.hipfb", "k.clang19.hipfb", 2, 1),
    ("k.clang22.zstd-v3.hipfb", "k.clang22.hipfb", 3, 1),
    ("k.clang22.zstd-v2.hipfb", "k.clang22.hipfb", 2, 1),
    ("k.clang19.zstd-v1.hipfb", "k.clang19.hipfb", 1, 1),
    ("k.clang19.zlib-v1.hipfb", "k.clang19.hipfb", 1, 0),
    ("k.clang19.zlib-v2.hipfb", "k.clang19.hipfb", 2, 0),
    ("k.clang19.zlib-v3.hipfb", "k.clang19.hipfb", 3, 0),
    // The bundle in the host object is the clang 19 one (same source and -cuid).
    ("host-k.clang19.o", "k.clang19.hipfb", 2, 1),
];

/// `co` with the reference's `source`, so that the rest can be compared whole.
fn same_source(mut co: CodeObject, reference: &CodeObject) -> CodeObject {
    co.source = reference.source.clone();
    co
}

fn ccob_at(d: &[u8]) -> usize {
    d.windows(4).position(|w| w == b"CCOB").expect("no CCOB in the input")
}

#[test]
fn inputs_are_the_formats_they_claim() {
    for (name, _, version, method) in COMPRESSED {
        let d = data(name);
        let at = ccob_at(&d);
        assert_eq!(u16::from_le_bytes([d[at + 4], d[at + 5]]), version, "{name}");
        assert_eq!(u16::from_le_bytes([d[at + 6], d[at + 7]]), method, "{name}");
    }
    for plain in ["k.clang19.hipfb", "k.clang22.hipfb", "k3.clang22.hipfb"] {
        assert!(data(plain).starts_with(b"__CLANG_OFFLOAD_BUNDLE__"), "{plain}");
    }
}

/// The stream of the compressed bundle `d` decoded whole, with the decoders directly (not
/// through hipscope): the header layout of LLVM's OffloadBundler.cpp, v1 20 bytes, v2 24, v3 32.
fn decode_whole(d: &[u8]) -> Vec<u8> {
    use std::io::Read;
    let (version, method) = (u16::from_le_bytes([d[4], d[5]]), u16::from_le_bytes([d[6], d[7]]));
    let stream = &d[[20, 24, 32][usize::from(version) - 1]..];
    let mut out = Vec::new();
    if method == 0 {
        flate2::read::ZlibDecoder::new(stream).read_to_end(&mut out).unwrap();
    } else {
        ruzstd::decoding::StreamingDecoder::new(stream).unwrap().read_to_end(&mut out).unwrap();
    }
    out
}

#[test]
fn streamed_entries_are_those_of_the_whole_decode() {
    for (name, plain, ..) in COMPRESSED.iter().filter(|c| c.0.ends_with(".hipfb")) {
        let (d, plain) = (data(name), data(plain));
        // The compiler's plain bundle is what the stream holds.
        let whole = decode_whole(&d);
        assert!(whole == plain, "{name}: decompressed bundle differs from the plain one");
        let listing = codeobj::list_targets(&plain).unwrap();
        let ids: Vec<&str> = listing.entries.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids.len(), 3, "{name}");
        for want in [&ids[..], &ids[1..2], &ids[2..], &ids[..1]] {
            let got = codeobj::bundle_entries(&d, want).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(got.iter().map(|(e, _)| e.id.as_str()).collect::<Vec<_>>(), want, "{name}");
            for (e, bytes) in &got {
                assert!(matches!(bytes, Cow::Owned(_)), "{name}");
                assert_eq!((e.offset, e.size), (0, d.len() as u64), "{name}: listed with the compressed bundle's range");
                let inner = listing.entries.iter().find(|i| i.id == e.id).unwrap();
                let range = inner.offset as usize..(inner.offset + inner.size) as usize;
                assert!(bytes[..] == whole[range], "{name} {}: streamed entry differs from the whole decode", e.id);
            }
        }
        // A plain bundle's entries are borrowed from it.
        let got = codeobj::bundle_entries(&plain, &ids).unwrap();
        assert!(got.iter().all(|(_, b)| matches!(b, Cow::Borrowed(_))));
        assert!(codeobj::bundle_entries(&d, &["hipv4-amdgcn-amd-amdhsa--gfx908"]).unwrap().is_empty());
    }
}

#[test]
fn compressed_bundles_list_and_load_like_the_plain_one() {
    for (name, plain_name, ..) in COMPRESSED.iter().filter(|c| c.0.ends_with(".hipfb")) {
        let (d, plain) = (data(name), data(plain_name));
        let listing = codeobj::list_targets(&d).unwrap_or_else(|e| panic!("{name}: {e}"));
        let reference = codeobj::list_targets(&plain).unwrap();
        assert_eq!(listing.container, ContainerKind::CompressedOffloadBundle, "{name}");
        let ids = |l: &codeobj::Listing| l.entries.iter().map(|e| (e.id.clone(), e.target_id.clone(), e.processor)).collect::<Vec<_>>();
        assert_eq!(ids(&listing), ids(&reference), "{name}");
        let mut targets: Vec<&str> = listing.entries.iter().filter_map(|e| e.target_id.as_deref()).collect();
        targets.sort_unstable();
        assert_eq!(targets, ["gfx1100", "gfx90a"], "{name}");
        // Entries of a compressed bundle are listed with the compressed bundle's byte range.
        for e in &listing.entries {
            assert_eq!((e.offset, e.size), (0, d.len() as u64), "{name} {}", e.id);
        }
        for t in TARGETS {
            let want = codeobj::load(&plain, Some(t)).unwrap();
            let got = codeobj::load(&d, Some(t)).unwrap_or_else(|e| panic!("{name} {t}: {e}"));
            assert_eq!(got.source.container, ContainerKind::CompressedOffloadBundle);
            assert_eq!(got.source.entry, want.source.entry, "{name} {t}");
            assert_eq!((got.source.offset, got.source.size), (0, d.len() as u64), "{name} {t}");
            assert!(got.kernel("k").is_some(), "{name} {t}");
            assert_eq!(same_source(got, &want), want, "{name} {t}: code object differs from the plain bundle's");
        }
        // Two device entries: a target must be named.
        let err = codeobj::load(&d, None).unwrap_err();
        assert!(matches!(err, LoadError::TargetRequired { .. }), "{name}: {err}");
    }
}

#[test]
fn host_object_with_a_compressed_fatbin() {
    let d = data("host-k.clang19.o");
    let plain = data("k.clang19.hipfb");
    let listing = codeobj::list_targets(&d).unwrap();
    assert_eq!(listing.container, ContainerKind::HostExecutable);
    let ids: Vec<&str> = listing.entries.iter().map(|e| e.id.as_str()).collect();
    let want: Vec<String> = codeobj::list_targets(&plain).unwrap().entries.into_iter().map(|e| e.id).collect();
    assert_eq!(ids, want);
    let at = ccob_at(&d) as u64;
    assert_eq!(at % 4096, 0, ".hip_fatbin is 4096-aligned");
    for t in TARGETS {
        let want = codeobj::load(&plain, Some(t)).unwrap();
        let got = codeobj::load(&d, Some(t)).unwrap_or_else(|e| panic!("{t}: {e}"));
        assert_eq!((got.source.container, got.source.offset), (ContainerKind::HostExecutable, at));
        assert_eq!(same_source(got, &want), want, "{t}");
    }
}

/// (kernel, its plain reference bundle if any, whether compressed) of the three translation
/// units of libk.so, in section order.
const LIBK: [(&str, Option<&str>, bool); 3] = [("k", Some("k.clang19.hipfb"), true), ("k2", None, false), ("k3", Some("k3.clang22.hipfb"), true)];

#[test]
fn shared_library_with_plain_and_compressed_bundles() {
    let so = data("libk.so");
    let listing = codeobj::list_targets(&so).unwrap();
    assert_eq!(listing.container, ContainerKind::HostExecutable);
    assert_eq!(listing.entries.len(), 9, "{:?}", listing.entries);
    // A target alone is ambiguous: each translation unit has one.
    let err = codeobj::load(&so, Some("gfx90a")).unwrap_err();
    assert!(matches!(err, LoadError::TargetRequired { .. }), "{err}");
    let device: Vec<_> = listing.entries.iter().filter(|e| e.is_amdgpu()).collect();
    assert_eq!(device.len(), 6);
    for (i, e) in device.iter().enumerate() {
        let (kernel, reference, compressed) = LIBK[i / 2];
        let co = codeobj::load_entry_at(&so, e, 0).unwrap_or_else(|err| panic!("{}: {err}", e.id));
        assert_eq!(co.source.entry.as_deref(), Some(e.id.as_str()));
        assert_eq!(co.kernels.iter().map(|k| k.name.as_str()).collect::<Vec<_>>(), [kernel], "{}", e.id);
        let starts = so.get(e.offset as usize..).is_some_and(|b| b.starts_with(b"CCOB"));
        assert_eq!(starts, compressed, "{} at {:#x}", e.id, e.offset);
        if let Some(r) = reference {
            let want = codeobj::load(&data(r), e.target_id.as_deref()).unwrap();
            assert_eq!(same_source(co, &want), want, "{}", e.id);
        }
    }
}

/// A target and a kernel name pick one of several code objects for that target: the one of
/// the translation unit (LIBK, from build.sh) that defines the kernel.
#[test]
fn a_kernel_picks_its_translation_unit() {
    let so = data("libk.so");
    for (kernel, _, _) in LIBK {
        let has = |co: &CodeObject| co.kernels.iter().any(|k| k.name == kernel);
        let co = codeobj::load_containing(&so, Some("gfx90a"), &has).unwrap_or_else(|e| panic!("{kernel}: {e}"));
        assert_eq!(co.kernels.iter().map(|k| k.name.as_str()).collect::<Vec<_>>(), [kernel]);
    }
    // No code object has it: the ambiguity is reported as without a kernel.
    let err = codeobj::load_containing(&so, Some("gfx90a"), &|_| false).unwrap_err();
    assert!(matches!(err, LoadError::TargetRequired { .. }), "{err}");
}

/// What the HIP runtime does: it gets a pointer to each registered bundle and knows only an
/// upper bound of its length (here: the rest of the file).
#[test]
fn bundles_walked_from_pointers_with_unknown_length() {
    let so = data("libk.so");
    let mut at = ccob_at(&so);
    for (kernel, reference, compressed) in LIBK {
        let rest = &so[at..];
        assert_eq!(rest.starts_with(b"CCOB"), compressed, "{kernel} at {at:#x}");
        let extent = codeobj::bundle_extent(rest).unwrap_or_else(|e| panic!("{kernel}: {e}"));
        if compressed {
            let h = &rest[8..16];
            let total = if rest[4] == 2 { u64::from(u32::from_le_bytes(h[..4].try_into().unwrap())) } else { u64::from_le_bytes(h.try_into().unwrap()) };
            assert_eq!(extent, total, "{kernel}");
        }
        for t in TARGETS {
            let co = codeobj::load_from_bundle(rest, Some(t)).unwrap_or_else(|e| panic!("{kernel} {t}: {e}"));
            assert!(co.kernel(kernel).is_some(), "{kernel} {t}");
            if let Some(r) = reference {
                let want = codeobj::load(&data(r), Some(t)).unwrap();
                assert_eq!(same_source(co, &want), want, "{kernel} {t}");
            }
        }
        // The next bundle starts at the next 4096 boundary; only zeros in between (after the
        // last one, the next section).
        let end = at + extent as usize;
        let next = end.next_multiple_of(4096);
        if kernel != "k3" {
            assert!(so[end..next].iter().all(|&b| b == 0), "{kernel}: padding after {end:#x}");
        }
        at = next;
    }
    assert!(!so[at..].starts_with(b"CCOB") && !so[at..].starts_with(b"__CLANG"), "a fourth bundle at {at:#x}");
    // Not a bundle.
    assert!(codeobj::bundle_extent(b"\x7fELF....").is_err());
    assert!(codeobj::load_from_bundle(&data("k.clang19.zstd-v2.hipfb")[1..], Some("gfx90a")).is_err());
}

#[test]
fn extent_ignores_what_follows() {
    for (name, plain, ..) in COMPRESSED.iter().filter(|c| c.0.ends_with(".hipfb")) {
        let d = data(name);
        for tail in [&[0u8; 4096][..], b"__CLANG_OFFLOAD_BUNDLE__\x01\0\0\0\0\0\0\0", &[0xff; 100]] {
            let mut padded = d.clone();
            padded.extend_from_slice(tail);
            assert_eq!(codeobj::bundle_extent(&padded).unwrap_or_else(|e| panic!("{name}: {e}")), d.len() as u64, "{name}");
            let co = codeobj::load_from_bundle(&padded, Some("gfx1100")).unwrap_or_else(|e| panic!("{name}: {e}"));
            let want = codeobj::load(&data(plain), Some("gfx1100")).unwrap();
            assert_eq!(same_source(co, &want), want, "{name}");
        }
        let plain = data(plain);
        assert_eq!(codeobj::bundle_extent(&plain).unwrap(), plain.len() as u64);
    }
}

#[test]
fn truncated_compressed_bundles_are_errors() {
    for (name, ..) in COMPRESSED.iter().filter(|c| c.0.ends_with(".hipfb")) {
        let d = data(name);
        for len in 0..d.len() {
            let cut = &d[..len];
            let r = catch_unwind(AssertUnwindSafe(|| (codeobj::list_targets(cut).is_err(), codeobj::bundle_extent(cut).is_err())));
            assert_eq!(r.ok(), Some((true, true)), "{name} cut to {len} bytes: a panic or no error");
        }
    }
}

#[test]
fn damaged_compressed_bundles_are_errors_or_the_same_code_object() {
    let mut rng = StdRng::seed_from_u64(0xcc0b);
    let mut refused = 0;
    for (name, plain, ..) in COMPRESSED {
        let d = data(name);
        let want = codeobj::load(&data(plain), Some("gfx90a")).unwrap();
        let at = ccob_at(&d);
        for case in 0..400 {
            let mut m = d.clone();
            // Mostly the CCOB header and stream; a few anywhere.
            let i = if case % 8 == 0 { rng.random_range(0..m.len()) } else { at + rng.random_range(0..(m.len() - at).min(1700)) };
            match case % 3 {
                0 => m[i] ^= 1 << rng.random_range(0..8),
                1 => m[i] = rng.random(),
                _ => m[i] ^= 0xff,
            }
            let r = catch_unwind(AssertUnwindSafe(|| {
                let _ = codeobj::bundle_extent(&m[at..]);
                codeobj::load(&m, Some("gfx90a"))
            }));
            match r {
                Err(_) => panic!("{name}: panic with byte {i:#x} changed (case {case})"),
                Ok(Err(e)) => {
                    let s = e.to_string();
                    assert!(!s.contains('\n'), "{s}");
                    refused += 1;
                }
                // Bytes no decoder reads (deflate padding bits, zstd's own checksum, which we
                // do not check) may change; then the code object must be the same.
                Ok(Ok(co)) => assert_eq!(same_source(co, &want), want, "{name}: byte {i:#x} changed, different code object"),
            }
        }
    }
    assert!(refused > 2000, "only {refused} damaged inputs refused");
}

#[test]
fn errors_name_the_compressed_bundle() {
    // A wrong hash in the bundle of the host object: the message gives its file offset.
    let mut d = data("host-k.clang19.o");
    let at = ccob_at(&d);
    d[at + 16] ^= 1;
    let s = codeobj::load(&d, Some("gfx90a")).unwrap_err().to_string();
    assert!(s.starts_with(&format!("compressed offload bundle at byte {at:#x}: CCOB version 2, zstd: hash mismatch")), "{s}");
    // A lying uncompressed size is refused before anything is decoded.
    let mut d = data("k.clang22.zstd-v3.hipfb");
    d[16..24].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let s = codeobj::list_targets(&d).unwrap_err().to_string();
    assert!(s.contains("above the 4294967296-byte limit"), "{s}");
    let mut d = data("k.clang19.zstd-v2.hipfb");
    d[12..16].copy_from_slice(&(u32::MAX).to_le_bytes());
    let s = codeobj::list_targets(&d).unwrap_err().to_string();
    assert!(s.contains("more than 1024 times"), "{s}");
    // Unknown method and version.
    let mut d = data("k.clang19.zstd-v2.hipfb");
    d[6] = 2;
    assert!(codeobj::list_targets(&d).unwrap_err().to_string().contains("unknown compression method 2"));
    d[4] = 4;
    assert!(codeobj::list_targets(&d).unwrap_err().to_string().contains("unknown CCOB version 4"));
}

//! Malformed input never panics: real code objects (the external ones in `../shared` and the
//! committed workloads) are mutated in many seeded ways and every case must give an error or a
//! loaded object. The work per case is `codeobj::fuzz_one`, the same function the cargo-fuzz
//! target calls.
//!
//! Mutations: truncation, bit flips, byte overwrites at ELF header / section header / note /
//! kernel descriptor offsets, extreme values in size/offset/count fields, corrupted MessagePack
//! and YAML metadata, and corrupted offload-bundle headers.

use crate::codeobj_common;

use codeobj_common::{shared_dir, workspace_root};
use hipscope_isa::codeobj;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::Instant;

const CASES_PER_SEED_MIN: usize = 600;
const TOTAL_CASES_MIN: usize = 12_000;

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_under(&p, out);
        } else if p.extension().is_some_and(|e| e == "hsaco" || e == "co" || e == "hipfb" || e == "bundle") || p.parent().is_some_and(|d| d.ends_with("host")) {
            out.push(p);
        }
    }
}

/// Seed inputs: every file that loads (or at least lists) today.
fn seeds() -> Vec<(String, Vec<u8>)> {
    let mut paths = Vec::new();
    if let Some(shared) = shared_dir() {
        files_under(&shared.join("external-code-objects"), &mut paths);
    }
    files_under(&workspace_root().join("workloads/bin"), &mut paths);
    // Keep every non-.co input (external objects, bundles, host files) and spread the rest of
    // the 40 seeds evenly over the workload configs.
    let (cos, special): (Vec<PathBuf>, Vec<PathBuf>) = paths.into_iter().partition(|p| p.extension().is_some_and(|e| e == "co"));
    let room = 40usize.saturating_sub(special.len()).max(1);
    let stride = cos.len().div_ceil(room).max(1);
    let picked = special.into_iter().chain(cos.into_iter().step_by(stride));
    let mut seen = std::collections::HashSet::new();
    picked
        .filter_map(|p| Some((p.display().to_string(), std::fs::read(&p).ok()?)))
        .filter(|(_, d)| codeobj::list_targets(d).is_ok() && seen.insert(d.clone()))
        .collect()
}

/// Section headers of an ELF64 (offset, size) per section, read by hand so the test does not
/// trust the code under test to find the interesting places.
fn section_ranges(d: &[u8]) -> Vec<(usize, usize, usize)> {
    let u16_at = |o: usize| d.get(o..o + 2).map(|b| u16::from_le_bytes([b[0], b[1]]) as usize);
    let u64_at = |o: usize| d.get(o..o + 8).map(|b| u64::from_le_bytes(b.try_into().unwrap()) as usize);
    let (Some(shoff), Some(shnum)) = (u64_at(0x28), u16_at(0x3c)) else {
        return Vec::new();
    };
    (0..shnum.min(64))
        .filter_map(|i| {
            let h = shoff.checked_add(i * 64)?;
            Some((h, u64_at(h + 0x18)?, u64_at(h + 0x20)?))
        })
        .collect()
}

/// Offsets worth hitting: header fields, section headers, and the start of each section's
/// contents (notes, metadata, descriptors, code) plus the bundle header.
fn hot_spots(d: &[u8]) -> Vec<usize> {
    let mut spots: Vec<usize> = (0..64).step_by(2).collect();
    for (header, offset, size) in section_ranges(d) {
        spots.extend([header + 4, header + 8, header + 0x10, header + 0x18, header + 0x20, header + 0x28, header + 0x30]);
        spots.extend((0..64.min(size)).step_by(4).map(|k| offset + k));
    }
    if d.starts_with(b"__CLANG_OFFLOAD_BUNDLE__") {
        spots.extend((24..160).step_by(8));
    }
    spots.retain(|&s| s < d.len());
    spots
}

/// Where the metadata note descriptor starts (after "AMDGPU\0\0" or the v2 "AMD\0" + type 10).
fn metadata_spans(d: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (i, w) in d.windows(8).enumerate() {
        if w == b"AMDGPU\0\0" && i >= 12 {
            let size = u32::from_le_bytes(d[i - 8..i - 4].try_into().unwrap()) as usize;
            out.push((i + 8, size));
        }
        if &w[..4] == b"AMD\0" && i >= 12 && d.get(i - 4..i) == Some(&10u32.to_le_bytes()[..]) {
            let size = u32::from_le_bytes(d[i - 8..i - 4].try_into().unwrap()) as usize;
            out.push((i + 4, size));
        }
    }
    out.retain(|&(s, n)| s + n <= d.len() && n > 0);
    out
}

const EXTREMES: [u64; 9] = [0, 1, 0x7f, 0xff, 0xffff, 0x7fff_ffff, 0xffff_ffff, 0x8000_0000_0000_0000, u64::MAX];

fn put(d: &mut [u8], at: usize, value: u64, width: usize) {
    let bytes = value.to_le_bytes();
    for (k, &v) in bytes.iter().enumerate().take(width) {
        if let Some(b) = d.get_mut(at + k) {
            *b = v;
        }
    }
}

/// One mutated copy of `seed`.
fn mutate(rng: &mut StdRng, seed: &[u8], spots: &[usize], meta: &[(usize, usize)]) -> Vec<u8> {
    let mut d = seed.to_vec();
    let len = d.len();
    match rng.random_range(0..8u32) {
        0 => d.truncate(rng.random_range(0..len)),
        1 => {
            for _ in 0..rng.random_range(1..9) {
                let at = rng.random_range(0..len);
                d[at] ^= 1 << rng.random_range(0..8);
            }
        }
        2 | 3 => {
            let at = spots[rng.random_range(0..spots.len())];
            let value = if rng.random_range(0..2) == 0 { EXTREMES[rng.random_range(0..EXTREMES.len())] } else { rng.random() };
            put(&mut d, at, value, [1, 2, 4, 8][rng.random_range(0..4)]);
        }
        4 if !meta.is_empty() => {
            let (start, size) = meta[rng.random_range(0..meta.len())];
            for _ in 0..rng.random_range(1..6) {
                let at = start + rng.random_range(0..size);
                // MessagePack markers with large counts/lengths, nil, never-used, or any byte.
                d[at] = [0xdc, 0xdd, 0xde, 0xdf, 0xdb, 0xc1, 0xc0, 0x91, 0x81, rng.random()][rng.random_range(0..10)];
            }
        }
        5 if !meta.is_empty() => {
            // Text-level damage for YAML, byte shifts for MessagePack.
            let (start, size) = meta[rng.random_range(0..meta.len())];
            let at = start + rng.random_range(0..size);
            let junk: &[u8] = [&b"[[[["[..], b"- - -", b": :", b"'", b"\n  \n", b"\xff\xfe", b"{"][rng.random_range(0..7)];
            for (k, b) in junk.iter().enumerate() {
                if at + k < start + size {
                    d[at + k] = *b;
                }
            }
        }
        6 => {
            // Copy a random slice over another place (shuffles structure).
            let from = rng.random_range(0..len);
            let to = rng.random_range(0..len);
            let n = rng.random_range(1..64).min(len - from).min(len - to);
            let chunk = d[from..from + n].to_vec();
            d[to..to + n].copy_from_slice(&chunk);
        }
        _ => {
            let at = spots[rng.random_range(0..spots.len())];
            d[at] = rng.random();
            if rng.random_range(0..2) == 0 {
                d.truncate(rng.random_range(at.min(len - 1)..len));
            }
        }
    }
    d
}

#[test]
fn mutated_code_objects_never_panic() {
    let seeds = seeds();
    if seeds.is_empty() {
        println!("SKIPPED: mutated_code_objects_never_panic: no seed objects (../shared or workloads/bin)");
        return;
    }
    let per_seed = CASES_PER_SEED_MIN.max(TOTAL_CASES_MIN.div_ceil(seeds.len()));
    let mut rng = StdRng::seed_from_u64(0x6869_7073_636f_7065);
    let (mut cases, mut panics, mut loaded) = (0usize, Vec::new(), 0usize);
    let start = Instant::now();
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for (name, seed) in &seeds {
        let spots = hot_spots(seed);
        let meta = metadata_spans(seed);
        for case in 0..per_seed {
            let input = if case < 64 {
                seed[..seed.len() * case / 64].to_vec() // systematic truncation points
            } else {
                mutate(&mut rng, seed, &spots, &meta)
            };
            cases += 1;
            match catch_unwind(AssertUnwindSafe(|| codeobj::fuzz_one(&input))) {
                Ok(_) => loaded += usize::from(codeobj::load(&input, None).is_ok()),
                Err(_) => panics.push((name.clone(), case, input)),
            }
        }
    }
    std::panic::set_hook(quiet);
    let elapsed = start.elapsed();
    println!("robustness: {cases} cases over {} seeds, {} panics, {loaded} still loaded, {:.2} s", seeds.len(), panics.len(), elapsed.as_secs_f64());
    if let Some((name, case, input)) = panics.first() {
        let out = workspace_root().join("target/codeobj-robustness-panic.bin");
        let _ = std::fs::write(&out, input);
        let again = catch_unwind(AssertUnwindSafe(|| codeobj::fuzz_one(input)));
        panic!("{} panics; first: seed {name} case {case}, input saved to {} ({again:?})", panics.len(), out.display());
    }
    assert!(cases >= 10_000, "only {cases} cases");
}

/// A committed workload code object (no LLVM needed).
fn vadd_gfx90a() -> Vec<u8> {
    codeobj_common::read(&workspace_root().join("workloads/bin/gfx90a/vadd.co"))
}

fn load_error(bytes: &[u8]) -> String {
    let e = codeobj::load(bytes, None).map(|_| ()).unwrap_err().to_string();
    assert!(!e.contains('\n'), "{e}");
    e
}

#[test]
fn big_endian_elf_is_rejected_not_read_as_little_endian() {
    let mut d = vadd_gfx90a();
    d[5] = 2; // EI_DATA = ELFDATA2MSB
    let e = load_error(&d);
    assert!(e.contains("EI_DATA (byte 5) is 2") && e.contains("big-endian"), "{e}");
    assert!(codeobj::list_targets(&d).is_err(), "listing must refuse it too");
    d[5] = 1;
    d[4] = 1; // EI_CLASS = ELFCLASS32
    assert!(load_error(&d).contains("EI_CLASS (byte 4) is 1"));
}

#[test]
fn other_machines_are_named_not_reported_as_missing_fatbin() {
    let mut d = vadd_gfx90a();
    d[18..20].copy_from_slice(&62u16.to_le_bytes()); // EM_X86_64
    let e = load_error(&d);
    assert!(e.contains("e_machine is 62 (x86-64, EM_X86_64), not 224 (EM_AMDGPU)"), "{e}");
    assert!(e.contains("no .hip_fatbin section"), "{e}");
    d[18..20].copy_from_slice(&190u16.to_le_bytes()); // EM_CUDA: an NVIDIA cubin
    assert!(load_error(&d).contains("(NVIDIA CUDA, EM_CUDA)"));
}

/// Made with `llvm-objcopy-19 --add-section .note.dup=<.note bytes> --set-section-type
/// .note.dup=7` from workloads/bin/gfx90a/vadd.co: an identical copy of the metadata note
/// changes nothing.
#[test]
fn duplicate_metadata_notes_identical_load_once() {
    let data = workspace_root().join("isa/tests/data");
    let same = codeobj::load(&codeobj_common::read(&data.join("vadd-gfx90a-duplicate-note.co")), None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(same.kernels.iter().map(|k| k.name.as_str()).collect::<Vec<_>>(), ["vadd"]);
}

/// `isa/tests/data/linked/build.sh`: `ld.lld -shared a.o b.o` keeps both objects'
/// metadata notes (llvm-readelf-19 --notes lists two NT_AMDGPU_METADATA records); each
/// names one kernel, and both kernels are there. Notes that disagree on the target are an
/// error naming the second note.
#[test]
fn metadata_notes_of_linked_objects_merge() {
    let data = workspace_root().join("isa/tests/data/linked");
    let linked = codeobj::load(&codeobj_common::read(&data.join("linked.co")), None).unwrap_or_else(|e| panic!("{e}"));
    let mut names: Vec<&str> = linked.kernels.iter().map(|k| k.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["scale_a", "scale_b"]);
    assert!(linked.kernels.iter().all(|k| k.kernarg().is_some_and(|l| l.args.iter().filter(|a| !a.value_kind.is_hidden()).count() == 2)));
    let e = load_error(&codeobj_common::read(&data.join("linked-other-target.co")));
    assert!(e.contains("note NT_AMDGPU_METADATA (.note.dup+0x14)") && e.contains("target amdgcn-amd-amdhsa--gfx90a:xnack+ differs"), "{e}");
}

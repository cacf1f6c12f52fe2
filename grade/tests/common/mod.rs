//! What the grade tests (and the language bench) share: where the litmus files are, the
//! shared catalogue's SKIPPED check, and the small generators and token splitting of the
//! mutation tests (the crate needs no `rand`).

// Each test binary compiles this module on its own and uses only part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `workloads/litmus`: the grading cases, in every checkout.
pub fn workload_cases() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads/litmus")
}

/// The case files directly in `workloads/litmus`, sorted.
pub fn case_files() -> Vec<PathBuf> {
    let dir = workload_cases();
    assert!(dir.is_dir(), "workloads/litmus exists");
    litmus_in(&dir)
}

/// The shared catalogue next to the repository, which not every checkout has.
pub fn shared_litmus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/litmus")
}

/// The shared catalogue when `needs` (a path inside it) passes `present`; otherwise prints
/// `SKIPPED: {why}` and gives `None`, so the test passes in a checkout without it.
pub fn shared_or_skip(needs: &str, present: fn(&Path) -> bool, why: &str) -> Option<PathBuf> {
    let root = shared_litmus();
    if present(&root.join(needs)) {
        Some(root)
    } else {
        println!("SKIPPED: {why}");
        None
    }
}

fn is_litmus(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "litmus")
}

/// The `*.litmus` files directly in `dir` (none when it cannot be read), sorted.
pub fn litmus_in(dir: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir).into_iter().flatten().flatten();
    let mut out: Vec<PathBuf> = entries.map(|e| e.path()).filter(|p| is_litmus(p)).collect();
    out.sort();
    out
}

/// The `*.litmus` files anywhere below `dir`, sorted.
pub fn litmus_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                dirs.push(p);
            } else if is_litmus(&p) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A deterministic source of numbers for a mutation test.
pub trait Draw {
    fn next(&mut self) -> u64;

    /// A number below `n` (0 when `n` is 0); always draws, so the sequence does not depend
    /// on `n`.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// splitmix64.
pub struct SplitMix(pub u64);

impl Draw for SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// xorshift64*.
pub struct XorShift(pub u64);

impl Draw for XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Token boundaries in `text`: runs of `word` units, or single other units; tokens that
/// start with a `blank` unit are left out.
pub fn tokens<T: Copy>(text: &[T], word: impl Fn(T) -> bool, blank: impl Fn(T) -> bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let start = i;
        i += 1;
        if word(text[start]) {
            while i < text.len() && word(text[i]) {
                i += 1;
            }
        }
        if !blank(text[start]) {
            out.push((start, i));
        }
    }
    out
}

//! The LDS race check of a parallel worker ([`super::par`]): two waves of one work-group that
//! touch one LDS dword between the same two barriers (an *epoch*), one of them writing, leave
//! a result that depends on their interleaving, so the worker gives the dispatch back to the
//! sequential engine.
//!
//! Each wave marks the dwords it reads and writes in bitmaps of its own (a bit per dword), so
//! an access costs a few bit operations per lane, whatever the lanes' pattern (a transpose's
//! strided LDS reads touch one dword per lane, kilobytes apart). The waves are compared when
//! the epoch ends — its barrier releases or its group ends: each wave's bits against the union
//! of the waves compared before it, over the words it touched, which covers every pair once.
//! A race is known only then, not at the access; what a racing group does in between is
//! discarded with it, so the answer, race or not, is the one a check at every access gives.

use crate::wave::MAX_LANES;

/// Bits of a bitmap word.
const BITS: usize = 64;

/// A wave not in this epoch's `active` list (its range of touched words empty).
const UNTOUCHED: (u32, u32) = (u32::MAX, 0);
/// A wave in the list that has set no bit yet (an access wholly past the LDS): still an empty
/// range, which the first bit set narrows, but the wave is listed once only.
const LISTED: (u32, u32) = (u32::MAX - 1, 0);

/// Per wave of the running group, what it touched in the running epoch (see the module doc).
#[derive(Debug, Clone, Default)]
pub(super) struct LdsCheck {
    /// LDS dwords of a group, and bitmap words per wave (one more: a lane's block may
    /// straddle the last word boundary, its bits past the end never set).
    dwords: usize,
    words: usize,
    /// Wave `w`'s bits are `write[w * words..][..words]`, and `read` likewise.
    write: Vec<u64>,
    read: Vec<u64>,
    /// Per wave, the words it set bits in this epoch (`lo..hi`).
    touched: Vec<(u32, u32)>,
    /// Waves that touched LDS this epoch.
    active: Vec<u32>,
    /// The union of the waves compared so far, while an epoch ends (zero otherwise).
    seen_write: Vec<u64>,
    seen_read: Vec<u64>,
}

impl LdsCheck {
    /// The check for work-groups of `lds_bytes` bytes of LDS.
    pub fn new(lds_bytes: u32) -> LdsCheck {
        let dwords = (lds_bytes as usize).div_ceil(4);
        let words = dwords.div_ceil(BITS) + 1;
        LdsCheck { dwords, words, seen_write: vec![0; words], seen_read: vec![0; words], ..LdsCheck::default() }
    }

    /// The bitmap words of wave `wave` (made at its first access).
    #[inline]
    fn wave_base(&mut self, wave: usize) -> usize {
        if self.touched.len() <= wave {
            self.touched.resize(wave + 1, UNTOUCHED);
            self.write.resize((wave + 1) * self.words, 0);
            self.read.resize((wave + 1) * self.words, 0);
        }
        if self.touched[wave] == UNTOUCHED {
            self.active.push(wave as u32);
            self.touched[wave] = LISTED;
        }
        wave * self.words
    }

    /// Wave `wave` touched dwords `first..end` (those past the LDS are not checked).
    pub fn mark(&mut self, wave: usize, first: usize, end: usize, write: bool) {
        let end = end.min(self.dwords);
        if first >= end {
            return;
        }
        let base = self.wave_base(wave);
        let bits = if write { &mut self.write[base..base + self.words] } else { &mut self.read[base..base + self.words] };
        // A word at a time: a coalesced access's range is hundreds of dwords.
        let (fw, lw) = (first / BITS, (end - 1) / BITS);
        for (w, word) in bits.iter_mut().enumerate().take(lw + 1).skip(fw) {
            let lo = if w == fw { first % BITS } else { 0 };
            let hi = if w == lw { (end - 1) % BITS + 1 } else { BITS };
            // 1..=64 bits from `lo`.
            *word |= (u64::MAX >> (BITS - (hi - lo))) << lo;
        }
        let t = &mut self.touched[wave];
        *t = (t.0.min((first / BITS) as u32), t.1.max(((end - 1) / BITS + 1) as u32));
    }

    /// Wave `wave`'s lanes `lanes` each touched `D` dwords from byte `offsets[lane]`.
    #[inline(always)]
    pub fn lanes<const D: usize>(&mut self, wave: usize, lanes: u64, offsets: &[u32; MAX_LANES], write: bool) {
        if lanes == 0 {
            return;
        }
        let (base, dwords, words) = (self.wave_base(wave), self.dwords, self.words);
        let bits = if write { &mut self.write[base..base + words] } else { &mut self.read[base..base + words] };
        let block: u64 = (1 << D) - 1;
        if lanes == u64::MAX {
            // Every lane aligned and inside the LDS (nearly every access; the tests are one
            // pass the compiler vectorises): the lanes' blocks set with no test per lane.
            let size = 4 * D as u32;
            let (unaligned, top, bottom) = offsets.iter().fold((0u32, 0u32, u32::MAX), |(u, t, b), &o| (u | (o % size), t.max(o), b.min(o)));
            if unaligned % 4 == 0 && top as usize / 4 + D <= dwords {
                let low = bottom as usize / 4 / BITS;
                if unaligned == 0 {
                    // Blocks at multiples of their size never straddle a word (D divides it).
                    for &o in offsets {
                        let d = o as usize / 4;
                        bits[d / BITS] |= block << (d % BITS);
                    }
                } else {
                    for &o in offsets {
                        let d = o as usize / 4;
                        // The block's bits from bit `d % BITS` of word `d / BITS` on, into the
                        // next word when it straddles (the spare last word: there is one).
                        let m = u128::from(block) << (d % BITS);
                        bits[d / BITS] |= m as u64;
                        bits[d / BITS + 1] |= (m >> BITS) as u64;
                    }
                }
                let t = &mut self.touched[wave];
                *t = (t.0.min(low as u32), t.1.max((top as usize / 4 / BITS + 2).min(words) as u32));
                return;
            }
        }
        let (mut lo, mut hi, mut odd) = (usize::MAX, 0, 0u64);
        let mut one = |lane: usize| {
            let offset = offsets[lane];
            let d = offset as usize / 4;
            if offset % 4 != 0 || d + D > dwords {
                odd |= 1 << lane;
                return;
            }
            let (w, b) = (d / BITS, d % BITS);
            bits[w] |= block << b;
            if b + D > BITS {
                // The block's rest in the next word (the spare last word: a block that ends
                // at the last dword sets nothing there).
                bits[w + 1] |= block >> (BITS - b);
            }
            (lo, hi) = (lo.min(w), hi.max(w + 2));
        };
        if lanes == u64::MAX {
            (0..MAX_LANES).for_each(&mut one);
        } else {
            let mut m = lanes;
            while m != 0 {
                one(m.trailing_zeros() as usize % MAX_LANES);
                m &= m - 1;
            }
        }
        if lo < hi {
            let t = &mut self.touched[wave];
            *t = (t.0.min(lo as u32), t.1.max(hi.min(words) as u32));
        }
        while odd != 0 {
            let lane = odd.trailing_zeros() as usize % MAX_LANES;
            odd &= odd - 1;
            let offset = offsets[lane] as usize;
            self.mark(wave, offset / 4, (offset + 4 * D).div_ceil(4), write);
        }
    }

    /// The epoch ends: whether two waves raced in it. Every bit is clear after.
    pub fn end_epoch(&mut self) -> bool {
        if self.active.len() < 2 {
            // One wave alone races with nobody: only its bits to clear.
            if let Some(w) = self.active.pop() {
                self.clear(w as usize);
            }
            return false;
        }
        let mut race = 0u64;
        let (mut lo_all, mut hi_all) = (usize::MAX, 0);
        for i in 0..self.active.len() {
            let w = self.active[i] as usize;
            let (lo, hi) = (self.touched[w].0 as usize, self.touched[w].1 as usize);
            let base = w * self.words;
            for k in lo..hi {
                let (wr, rd) = (self.write[base + k], self.read[base + k]);
                race |= wr & (self.seen_write[k] | self.seen_read[k]) | rd & self.seen_write[k];
                self.seen_write[k] |= wr;
                self.seen_read[k] |= rd;
            }
            (lo_all, hi_all) = (lo_all.min(lo), hi_all.max(hi));
            self.clear(w);
        }
        if lo_all < hi_all {
            self.seen_write[lo_all..hi_all].fill(0);
            self.seen_read[lo_all..hi_all].fill(0);
        }
        self.active.clear();
        race != 0
    }

    /// Clear wave `w`'s bits (the words it touched).
    fn clear(&mut self, w: usize) {
        let (lo, hi) = std::mem::replace(&mut self.touched[w], UNTOUCHED);
        if lo < hi {
            let base = w * self.words;
            self.write[base + lo as usize..base + hi as usize].fill(0);
            self.read[base + lo as usize..base + hi as usize].fill(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};
    use std::collections::HashMap;

    /// The definition, dword by dword: which waves read and wrote each dword this epoch.
    #[derive(Default)]
    struct Reference {
        by_dword: HashMap<usize, (Vec<usize>, Vec<usize>)>,
    }

    impl Reference {
        fn touch(&mut self, wave: usize, first: usize, end: usize, write: bool, dwords: usize) {
            for d in first..end.min(dwords) {
                let e = self.by_dword.entry(d).or_default();
                if write { &mut e.0 } else { &mut e.1 }.push(wave);
            }
        }

        fn end_epoch(&mut self) -> bool {
            let race = self.by_dword.values().any(|(w, r)| w.iter().any(|&a| w.iter().chain(r).any(|&b| b != a)));
            self.by_dword.clear();
            race
        }
    }

    #[test]
    fn bulk_and_single_marks_race_exactly_when_the_definition_says() {
        // Seeded instructions of up to three waves (contiguous, strided, uniform, unaligned,
        // past-the-end lanes; 1 to 4 dwords; some lanes off), epochs of a few instructions.
        let mut rng = StdRng::seed_from_u64(0x2545_f491_4f6c_dd1du64);
        let mut next = move || rng.random::<u64>();
        let lds_bytes = 1100;
        let (mut check, mut reference) = (LdsCheck::new(lds_bytes), Reference::default());
        let dwords = (lds_bytes as usize).div_ceil(4);
        let (mut raced, mut epochs) = (0, 0);
        for case in 0..2000 {
            let wave = (next() % 3) as usize;
            let d = [1usize, 2, 4][(next() % 3) as usize];
            let (base, stride) = ((next() % 1150) as u32, [0u32, 4, 8, 16, 20, 68, 2][(next() % 7) as usize]);
            let offsets: [u32; MAX_LANES] = std::array::from_fn(|l| base.wrapping_add(stride * l as u32));
            let lanes = if next() % 3 == 0 { next() } else { u64::MAX };
            let write = next() % 2 == 0;
            if next() % 4 == 0 {
                // A coalesced access's one range: up to a few hundred dwords, over several
                // bitmap words, ending anywhere (past the LDS too).
                let (first, n) = ((next() % 300) as usize, (next() % 300) as usize);
                check.mark(wave, first, first + n, write);
                reference.touch(wave, first, first + n, write, dwords);
                continue;
            }
            match d {
                1 => check.lanes::<1>(wave, lanes, &offsets, write),
                2 => check.lanes::<2>(wave, lanes, &offsets, write),
                _ => check.lanes::<4>(wave, lanes, &offsets, write),
            }
            for l in (0..64).filter(|l| lanes >> l & 1 != 0) {
                let o = offsets[l] as usize;
                reference.touch(wave, o / 4, (o + 4 * d).div_ceil(4), write, dwords);
            }
            if next() % 3 == 0 {
                let (got, want) = (check.end_epoch(), reference.end_epoch());
                assert_eq!(got, want, "epoch ending at case {case}");
                raced += usize::from(want);
                epochs += 1;
            }
        }
        // Both answers occur, or the comparison says little.
        assert!(raced > epochs / 10 && raced < epochs * 9 / 10, "{raced} of {epochs} epochs raced");
    }

    #[test]
    fn a_range_over_several_words_marks_each_of_its_dwords_and_no_other() {
        // Ranges starting and ending on and beside bitmap-word edges; every dword of each,
        // and the one on either side, against another wave's one-dword write.
        let mut c = LdsCheck::new(4 * 300);
        for (first, end) in [(0, 64), (3, 130), (63, 65), (64, 128), (60, 200), (5, 6), (127, 300)] {
            for d in first.max(1) - 1..=end {
                c.mark(0, first, end, false);
                c.mark(1, d, d + 1, true);
                let inside = (first..end).contains(&d) && d < 300;
                assert_eq!(c.end_epoch(), inside, "dword {d} against {first}..{end}");
            }
        }
    }

    #[test]
    fn a_full_wave_of_aligned_blocks_marks_every_dword_of_each() {
        // 64 lanes of 16-byte blocks 32 bytes apart, then of 8-byte ones 16 apart: a block
        // and a gap as long, probed dword by dword with another wave's write.
        let mut c = LdsCheck::new(64 * 32 + 64);
        let (wide, narrow): ([u32; MAX_LANES], [u32; MAX_LANES]) = (std::array::from_fn(|l| 32 * l as u32), std::array::from_fn(|l| 16 * l as u32));
        for d in 0..64 * 8 + 2 {
            c.lanes::<4>(0, u64::MAX, &wide, false);
            c.mark(1, d, d + 1, true);
            assert_eq!(c.end_epoch(), d % 8 < 4 && d < 64 * 8, "16-byte blocks, dword {d}");
            c.lanes::<2>(0, u64::MAX, &narrow, false);
            c.mark(1, d, d + 1, true);
            assert_eq!(c.end_epoch(), d % 4 < 2 && d < 64 * 4, "8-byte blocks, dword {d}");
        }
    }

    #[test]
    fn two_waves_race_only_within_one_epoch() {
        let mut c = LdsCheck::new(64);
        c.mark(0, 0, 1, true);
        c.mark(1, 1, 2, false);
        c.mark(1, 2, 3, true);
        assert!(!c.end_epoch(), "different dwords");
        c.mark(1, 0, 1, false);
        c.mark(0, 0, 1, false);
        c.mark(0, 2, 3, true);
        assert!(!c.end_epoch(), "two waves read one dword");
        c.mark(1, 0, 1, false);
        c.mark(0, 0, 1, true);
        assert!(c.end_epoch(), "wave 1 read what wave 0 wrote in one epoch");
        c.mark(1, 2, 3, false);
        c.mark(1, 2, 3, true);
        assert!(!c.end_epoch(), "one wave reads and writes its own dword; earlier epochs are forgotten");
        c.mark(0, 16, 17, true);
        c.mark(1, 16, 17, true);
        assert!(!c.end_epoch(), "past the LDS (64 bytes: 16 dwords) nothing is checked");
    }
}

//! LDS bank conflicts. The LDS is split into `banks` banks of `bank_width_bytes`, consecutive
//! words in consecutive banks; each cycle it serves one word per bank, and lanes reading the
//! same word share it (a broadcast). So the lanes' accesses are taken in order, as many as
//! fill the banks once (32 dword accesses, 16 of 8 bytes, ...), and each such step takes as
//! many cycles as the most distinct words one bank must deliver (AMD CDNA ISA guides, LDS
//! chapter; rocprof-compute's LDS bank-conflict metric counts the cycles beyond one per step).

use crate::gpus::bounds::MAX_LDS_BANKS;

/// Most distinct words one step can touch: a step covers at most `MAX_LDS_BANKS` accesses
/// (`Timing::check` rejects configs with more banks, so the per-bank counts below fit in an
/// array) of up to 16 bytes (`ds_read_b128`) in banks at least 4 bytes wide (`Timing::check`
/// again).
const MAX_STEP_WORDS: usize = MAX_LDS_BANKS as usize * 4;

/// Cycles an instruction keeps the LDS busy and how many of them are bank conflicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LdsCycles {
    pub busy: u64,
    pub conflicts: u64,
}

/// `accesses`: (lane, byte offset, bytes) in the order the instruction made them (lane order;
/// a `read2`/`write2` lane's two accesses one after the other). `banks` is at most
/// [`MAX_LDS_BANKS`] (larger counts are taken as that). Runs on every DS instruction, so it works
/// in fixed-size buffers and allocates nothing.
pub fn cycles(accesses: &[(u32, u32, u32)], banks: u32, bank_width_bytes: u32) -> LdsCycles {
    let geo = Banks::new(banks, bank_width_bytes);
    let mut out = LdsCycles::default();
    let mut step_words = StepWords::new();
    let mut i = 0;
    while i < accesses.len() {
        let per_access = geo.words_of(accesses[i].2);
        let step = ((geo.banks / per_access).max(1) as usize).min(accesses.len() - i);
        let c = step_words.cycles(&accesses[i..i + step], &geo) as u64;
        out.busy += c;
        out.conflicts += c - 1;
        i += step;
    }
    out
}

/// The banks' shape, with the divisions of the common power-of-two shapes as masks and shifts
/// (this runs for every word of every DS instruction).
struct Banks {
    banks: u32,
    width: u32,
    /// `banks - 1` when `banks` is a power of two.
    bank_mask: Option<u32>,
    /// log2 of `width` when it is a power of two.
    width_shift: Option<u32>,
}

impl Banks {
    fn new(banks: u32, bank_width_bytes: u32) -> Banks {
        let (banks, width) = (banks.clamp(1, MAX_LDS_BANKS), bank_width_bytes.max(1));
        Banks { banks, width, bank_mask: banks.is_power_of_two().then_some(banks - 1), width_shift: width.is_power_of_two().then(|| width.trailing_zeros()) }
    }

    /// The word holding byte `off`.
    #[inline]
    fn word(&self, off: u32) -> u32 {
        match self.width_shift {
            Some(s) => off >> s,
            None => off / self.width,
        }
    }

    /// Words an access of `bytes` touches (at least one).
    #[inline]
    fn words_of(&self, bytes: u32) -> u32 {
        match self.width_shift {
            Some(s) => ((bytes as u64 + (1 << s) - 1) >> s).max(1) as u32,
            None => bytes.div_ceil(self.width).max(1),
        }
    }

    #[inline]
    fn bank(&self, w: u32) -> usize {
        match self.bank_mask {
            Some(m) => (w & m) as usize,
            None => (w % self.banks) as usize,
        }
    }
}

/// No word: the end of a bank's chain.
const NONE: u16 = u16::MAX;

/// The distinct words of one step, counted per bank. Each bank chains the words already seen
/// in it, so a word is looked up only among its own bank's (a repeated word can only be in
/// the same bank): one comparison per access when the step has no conflicts.
struct StepWords {
    words: [u32; MAX_STEP_WORDS],
    /// Per recorded word, the previous word recorded in its bank.
    next: [u16; MAX_STEP_WORDS],
    /// Per bank, the last word recorded in it.
    head: [u16; MAX_LDS_BANKS as usize],
    per_bank: [u32; MAX_LDS_BANKS as usize],
    n: usize,
    /// The highest word recorded: a word above it is new without a search (lanes mostly walk
    /// up through the LDS, strided ones too, which would otherwise search their whole bank).
    top: u32,
}

impl StepWords {
    fn new() -> StepWords {
        StepWords {
            words: [0; MAX_STEP_WORDS],
            next: [NONE; MAX_STEP_WORDS],
            head: [NONE; MAX_LDS_BANKS as usize],
            per_bank: [0; MAX_LDS_BANKS as usize],
            n: 0,
            top: 0,
        }
    }

    /// Cycles of one step: the most distinct words one bank must deliver (at least one).
    fn cycles(&mut self, step: &[(u32, u32, u32)], geo: &Banks) -> u32 {
        match ascending_span(step, geo) {
            // Words rising within fewer words than there are banks: each in its own bank.
            Some(span) if span < geo.banks => 1,
            Some(_) => self.count_ascending(step, geo),
            None => {
                self.per_bank[..geo.banks as usize].fill(0);
                self.head[..geo.banks as usize].fill(NONE);
                self.n = 0;
                self.top = 0;
                let mut most = 1;
                for &(_, off, bytes) in step {
                    let first = geo.word(off);
                    for k in 0..geo.words_of(bytes) {
                        most = most.max(self.add(first.wrapping_add(k), geo));
                    }
                }
                most
            }
        }
    }

    /// Count the step's words per bank when they rise strictly, access after access (lanes
    /// walking up through the LDS, strided or not: [`ascending_span`]): then no word repeats
    /// and none needs looking up. Returns the largest count.
    #[inline]
    fn count_ascending(&mut self, step: &[(u32, u32, u32)], geo: &Banks) -> u32 {
        self.per_bank[..geo.banks as usize].fill(0);
        let mut most = 1;
        for &(_, off, bytes) in step {
            let first = geo.word(off);
            for k in 0..geo.words_of(bytes) {
                let c = &mut self.per_bank[geo.bank(first + k)];
                *c += 1;
                most = most.max(*c);
            }
        }
        most
    }

    /// Count word `w` in its bank unless the step already touched it; returns the bank's
    /// count. A word past the buffer (not possible within the bounds above) is counted as
    /// distinct, which can only overstate conflicts.
    #[inline]
    fn add(&mut self, w: u32, geo: &Banks) -> u32 {
        let bank = geo.bank(w);
        let mut j = if self.n > 0 && w <= self.top { self.head[bank] } else { NONE };
        while j != NONE {
            if self.words[j as usize] == w {
                return self.per_bank[bank];
            }
            j = self.next[j as usize];
        }
        if self.n < MAX_STEP_WORDS {
            self.words[self.n] = w;
            self.next[self.n] = self.head[bank];
            self.head[bank] = self.n as u16;
            self.n += 1;
            self.top = self.top.max(w);
        }
        self.per_bank[bank] += 1;
        self.per_bank[bank]
    }
}

/// When the step's words rise strictly, access after access, without passing the top of the
/// word range: the last word minus the first. `None` as soon as one access does not rise.
#[inline]
fn ascending_span(step: &[(u32, u32, u32)], geo: &Banks) -> Option<u32> {
    let (mut lowest, mut next) = (0u32, 0u32);
    for (j, &(_, off, bytes)) in step.iter().enumerate() {
        let first = geo.word(off);
        if j == 0 {
            lowest = first;
        } else if first < next {
            return None;
        }
        next = first.checked_add(geo.words_of(bytes))?;
    }
    Some(next - 1 - lowest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lanes(n: u32, stride_bytes: u32, bytes: u32) -> Vec<(u32, u32, u32)> {
        (0..n).map(|l| (l, l * stride_bytes, bytes)).collect()
    }

    #[test]
    fn consecutive_dwords_do_not_conflict() {
        // wave64, one dword each, 32 banks: two groups of 32 lanes, one cycle each.
        assert_eq!(cycles(&lanes(64, 4, 4), 32, 4), LdsCycles { busy: 2, conflicts: 0 });
    }

    #[test]
    fn stride_of_the_bank_count_serialises() {
        // Every lane of a group in bank 0: 32 cycles per group.
        assert_eq!(cycles(&lanes(64, 128, 4), 32, 4), LdsCycles { busy: 64, conflicts: 62 });
        // Stride 2 dwords: two lanes per bank.
        assert_eq!(cycles(&lanes(32, 8, 4), 32, 4), LdsCycles { busy: 2, conflicts: 1 });
    }

    #[test]
    fn same_word_is_a_broadcast() {
        let all_zero: Vec<(u32, u32, u32)> = (0..64).map(|l| (l, 0, 4)).collect();
        assert_eq!(cycles(&all_zero, 32, 4), LdsCycles { busy: 2, conflicts: 0 });
    }

    #[test]
    fn wide_accesses_fill_the_banks_with_fewer_lanes() {
        // ds_read_b64 of consecutive lanes: 16 lanes fill the 32 banks: 2 cycles for 32 lanes.
        assert_eq!(cycles(&lanes(32, 8, 8), 32, 4), LdsCycles { busy: 2, conflicts: 0 });
        // ds_read2_b32 with offsets t and t + 128 words: both words of a lane in one bank.
        let read2: Vec<(u32, u32, u32)> = (0..32).flat_map(|l| [(l, 4 * l, 4), (l, 4 * (l + 128), 4)]).collect();
        assert_eq!(cycles(&read2, 32, 4), LdsCycles { busy: 4, conflicts: 2 });
    }

    #[test]
    fn bank_counts_beyond_the_hardware_are_taken_as_the_maximum() {
        // 64 lanes, stride 64 dwords: with 64 banks all in bank 0 (64 cycles in one step); a
        // bank count of millions (a bad config the checks let through) must not allocate it.
        assert_eq!(cycles(&lanes(64, 256, 4), 64, 4), LdsCycles { busy: 64, conflicts: 63 });
        assert_eq!(cycles(&lanes(64, 256, 4), 32_000_000, 4), cycles(&lanes(64, 256, 4), MAX_LDS_BANKS, 4));
    }

    /// The definition, written plainly: per step, the distinct words of each bank.
    fn reference(accesses: &[(u32, u32, u32)], banks: u32, width: u32) -> LdsCycles {
        let mut out = LdsCycles::default();
        let mut i = 0;
        while i < accesses.len() {
            let step = ((banks / accesses[i].2.div_ceil(width).max(1)).max(1) as usize).min(accesses.len() - i);
            let mut words: Vec<u32> =
                accesses[i..i + step].iter().flat_map(|&(_, off, bytes)| (0..bytes.div_ceil(width).max(1)).map(move |k| off / width + k)).collect();
            words.sort_unstable();
            words.dedup();
            let c = (0..banks).map(|b| words.iter().filter(|&&w| w % banks == b).count()).max().unwrap_or(0).max(1) as u64;
            out.busy += c;
            out.conflicts += c - 1;
            i += step;
        }
        out
    }

    /// Banks, bank width and bytes a lane, drawn from what the GPUs have and instructions move,
    /// and now and then a shape that is not a power of two (a config may give one; it takes
    /// the division path rather than masks and shifts).
    fn random_geometry(rng: &mut rand::rngs::StdRng) -> (u32, u32, u32) {
        use rand::RngExt;
        ([16, 32, 64, 24][rng.random_range(0..4)], [4, 8, 12][rng.random_range(0..3)], [4, 8, 16][rng.random_range(0..3)])
    }

    /// Lanes walking up (the fast count) and patterns that break the walk part-way.
    #[test]
    fn strided_patterns_match_the_definition() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(8);
        for _ in 0..2000 {
            let (banks, width, bytes) = random_geometry(&mut rng);
            let stride = [0, 4, 8, 16, 20, 64, 128, 132, 256][rng.random_range(0..9)];
            let n = rng.random_range(1..=128);
            let mut acc: Vec<(u32, u32, u32)> = (0..n).map(|l| (l, 1024 + l * stride, bytes)).collect();
            if rng.random_range(0..3) == 0 {
                // One lane steps back or repeats another's words.
                let l = rng.random_range(0..n) as usize;
                acc[l].1 = rng.random_range(0..2048) * 4;
            }
            assert_eq!(cycles(&acc, banks, width), reference(&acc, banks, width), "{banks} banks of {width} B, {bytes}-byte accesses: {acc:?}");
        }
    }

    #[test]
    fn random_patterns_match_the_definition() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for _ in 0..2000 {
            let (banks, width, bytes) = random_geometry(&mut rng);
            // Few distinct words (a small address range) make repeats and conflicts common.
            let range = [64, 512, 65536][rng.random_range(0..3)];
            let n = rng.random_range(1..=128);
            let acc: Vec<(u32, u32, u32)> = (0..n).map(|l| (l, rng.random_range(0..range) * 4, bytes)).collect();
            assert_eq!(cycles(&acc, banks, width), reference(&acc, banks, width), "{banks} banks of {width} B, {bytes}-byte accesses: {acc:?}");
        }
    }
}

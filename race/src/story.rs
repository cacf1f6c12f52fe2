//! What the simulated GPU shows of a race: the memory-system story of a racing run.
//!
//! A race makes the program undefined whatever it printed, but a student also wants to know
//! what the hardware did with it. In timing mode the caches hold data, so a racing read can
//! return an older value than the racing write stored, and the reason is in the memory
//! system: a stale line in the reader's L1, a write still on its way to the L2, another
//! XCD's L2. [`Story`] is an observer that, during a replay of a racing seed, watches the
//! racing granule (every wave's accesses to it, with the values) and the two racing waves'
//! memory instructions and cache actions; [`Told`] puts them in issue order and says what
//! the racing read returned against what the racing write stored.

use crate::detector::Race;
use hipscope_sim::memsys::Level;
use hipscope_sim::observe::{Access, CacheAction, CacheOp, Dir, DispatchInfo, Executed, Layout, MemoryDone, Observer, Space};
use hipscope_sim::timing::trace::{cache_op_name, level_name};
use hipscope_sim::WaveId;
use std::collections::{HashMap, HashSet};

/// What to watch: the race's granule, its two waves, and the PCs whose completions matter.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Focus {
    pub race: Race,
    /// Memory instructions of the two waves to show besides the racing pair (the kernel's
    /// atomics and fences).
    pub pcs: Vec<u64>,
}

/// One thing that happened, at its issue cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Happened {
    /// A lane access to the racing granule (its 4 bytes, when the engine handed them out).
    Touch { wave: WaveId, write: bool, value: Option<u32> },
    /// A memory instruction of a racing wave completed.
    Memory { wave: WaveId, name: String, level: Option<Level>, done: u64, cu: usize },
    /// A cache action of a racing wave.
    Cache { op: CacheOp, lines: u64, done: u64, cu: usize },
}

/// An event of the replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub issue: u64,
    pub pc: u64,
    pub what: Happened,
}

/// The instruction being executed, and whether it touched the racing granule yet (a
/// broadcast access is shown once).
#[derive(Clone, Copy)]
struct Current {
    wave: WaveId,
    pc: u64,
    issue: u64,
    shown: bool,
}

/// The observer (attach it to a timing-mode replay of a seed that raced).
pub struct Story {
    focus: Focus,
    /// The racing waves, by wave index.
    racing: HashSet<u32>,
    current: Option<Current>,
    pub events: Vec<Event>,
    /// The GPU, as the timing model lays it out.
    pub layout: Option<Layout>,
}

impl Story {
    pub fn new(focus: Focus) -> Story {
        Story { focus, racing: HashSet::new(), current: None, events: Vec::new(), layout: None }
    }

    /// The racing granule's bytes within an access, if it covers them.
    fn granule_value(&self, a: &Access) -> Option<Option<u32>> {
        let g = self.focus.race.address & !3;
        let end = a.address + u64::from(a.bytes.max(1));
        if g + 4 <= a.address || g >= end {
            return None;
        }
        let off = g.checked_sub(a.address).map(|o| o as usize);
        let value = off.and_then(|o| a.data.get(o..o + 4)).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        Some(value)
    }
}

impl Observer for Story {
    fn dispatch_started(&mut self, d: &DispatchInfo) {
        self.layout = d.timing.map(|t| t.layout);
    }

    fn wave_started(&mut self, wave: WaveId, index: u32) {
        if wave == self.focus.race.first.wave || wave == self.focus.race.second.wave {
            self.racing.insert(index);
        }
    }

    fn executed(&mut self, e: &Executed) {
        self.current = Some(Current { wave: e.wave, pc: e.pc, issue: e.cycle.unwrap_or(0), shown: false });
    }

    fn access(&mut self, a: &Access) {
        let want = if self.focus.race.lds { Space::Lds } else { Space::Global };
        let Some(Current { wave, pc, issue, shown }) = self.current else { return };
        if a.space != want || shown {
            return;
        }
        // LDS is per work-group: only the racing group's LDS is the racing granule.
        if self.focus.race.lds && wave.workgroup != self.focus.race.second.wave.workgroup {
            return;
        }
        let Some(value) = self.granule_value(a) else { return };
        self.current = Some(Current { wave, pc, issue, shown: true });
        self.events.push(Event { issue, pc, what: Happened::Touch { wave, write: a.dir == Dir::Write, value } });
    }

    fn memory_done(&mut self, m: &MemoryDone) {
        let r = &self.focus.race;
        let shown = m.pc == r.first.pc || m.pc == r.second.pc || self.focus.pcs.contains(&m.pc);
        if self.racing.contains(&m.wave_index) && shown {
            self.events.push(Event {
                issue: m.issue,
                pc: m.pc,
                what: Happened::Memory { wave: m.wave, name: m.name.to_string(), level: m.level, done: m.done, cu: m.cu },
            });
        }
    }

    fn cache_action(&mut self, a: &CacheAction) {
        if self.racing.contains(&a.wave_index) {
            self.events.push(Event { issue: a.issue, pc: a.pc, what: Happened::Cache { op: a.op, lines: a.lines, done: a.done, cu: a.cu } });
        }
    }
}

/// A replay's story, told.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Told {
    pub seed: u64,
    /// The events in issue order, one line each.
    pub lines: Vec<String>,
    /// What it comes to (the racing read's value against the racing write's, and why).
    pub conclusion: String,
    pub shows: Shows,
}

/// What a replay shows of the race.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shows {
    /// The read issued after the write had completed and still returned the older value: a
    /// stale copy between the reader and the writer.
    Stale,
    /// The read issued before the write completed and returned the older value.
    InFlight,
    /// The read returned the value the write stored: the run hid the race.
    Hidden,
    /// Both sides write.
    Writes,
    /// The racing accesses did not both run with their values seen.
    NotRun,
}

/// How to name an instruction and a PC's source line in a story.
pub trait Describe {
    fn instruction(&self, pc: u64) -> String;
    fn line(&self, pc: u64) -> Option<String>;
}

/// Lines a story keeps at most (a spin loop repeats the same events thousands of times).
const MAX_LINES: usize = 40;
/// Occurrences of one instruction's event shown before the rest are summed up.
const SHOWN_REPEATS: usize = 2;

impl Story {
    fn rdna(&self) -> bool {
        self.layout.is_some_and(|l| l.rdna)
    }

    /// Where CU `cu` is, for a reader: "CU 40" or, on a GPU of several XCDs, "CU 40 (XCD 1)".
    fn place(&self, cu: usize) -> String {
        match self.layout {
            Some(l) if l.xcds > 1 => format!("CU {cu} (XCD {})", l.xcd_of(cu)),
            _ => format!("CU {cu}"),
        }
    }
}

/// Tell what `story` saw in the replay of `seed`.
pub fn tell(story: &Story, seed: u64, names: &dyn Describe) -> Told {
    let mut events = story.events.clone();
    events.sort_by_key(|e| e.issue);
    let start = events.first().map_or(0, |e| e.issue);
    let (conclusion, shows) = conclude(story, &events, start, names);
    Told { seed, lines: condensed(story, &events, start, names), conclusion, shows }
}

/// The events as lines, a loop's repeats summed up: each instruction's first occurrences,
/// then one line for how many more there were, then the last occurrence of each.
fn condensed(story: &Story, events: &[Event], start: u64, names: &dyn Describe) -> Vec<String> {
    let key = |e: &Event| {
        let what = match e.what {
            Happened::Touch { write, .. } => u8::from(write),
            Happened::Memory { .. } => 2,
            Happened::Cache { op, .. } => 3 + op as u8,
        };
        (e.pc, what)
    };
    let mut seen: HashMap<_, usize> = HashMap::new();
    let mut last: HashMap<_, usize> = HashMap::new();
    for (i, e) in events.iter().enumerate() {
        last.insert(key(e), i);
    }
    let mut lines = Vec::new();
    let mut skipped = 0usize;
    let mut tail = Vec::new();
    for (i, e) in events.iter().enumerate() {
        let n = seen.entry(key(e)).or_default();
        *n += 1;
        if *n <= SHOWN_REPEATS {
            lines.push(line(story, e, start, names));
        } else if last.get(&key(e)) == Some(&i) {
            tail.push(line(story, e, start, names));
        } else {
            skipped += 1;
        }
    }
    if skipped > 0 {
        let until = events.last().map_or(0, |e| e.issue - start);
        lines.push(format!("… the same instructions again, {skipped} more events (a loop) up to +{until} cycles; the last of each:"));
        lines.extend(tail);
    } else {
        lines.extend(tail);
    }
    if lines.len() > MAX_LINES {
        let cut = lines.len() - MAX_LINES;
        lines.truncate(MAX_LINES);
        lines.push(format!("… and {cut} more lines"));
    }
    lines
}

fn line(story: &Story, e: &Event, start: u64, names: &dyn Describe) -> String {
    let r = &story.focus.race;
    let at = |pc: u64| names.line(pc).map_or_else(|| format!("{pc:#x}"), |l| format!("{l} [{pc:#x}]"));
    let rdna = story.rdna();
    let text = match &e.what {
        Happened::Touch { wave, write, value } => {
            let v = value.map_or_else(String::new, |v| format!(" {}", v as i32));
            format!("{wave} {}{v} at {:#x} ({})", if *write { "writes" } else { "reads" }, r.address & !3, at(e.pc))
        }
        Happened::Memory { name, level, done, cu, .. } => {
            let level = level.map_or("no cache level", |l| level_name(l, rdna));
            format!("{name} ({}) on {}: served by {level}, done at +{}", at(e.pc), story.place(*cu), done - start)
        }
        Happened::Cache { op, lines, done, cu } => {
            let what = if *op == CacheOp::WritebackL2 { "written back" } else { "dropped" };
            format!("{} ({}) on {}: {lines} line(s) {what}, done at +{}", cache_op_name(*op, rdna), names.instruction(e.pc), story.place(*cu), done - start)
        }
    };
    format!("+{} cycles: {text}", e.issue - start)
}

/// The racing read against the racing write: what it returned, and what in the memory
/// system explains it.
fn conclude(story: &Story, events: &[Event], start: u64, names: &dyn Describe) -> (String, Shows) {
    let r = &story.focus.race;
    let (write_side, read_side) = match (r.first.write, r.second.write) {
        (true, false) => (&r.first, &r.second),
        (false, true) => (&r.second, &r.first),
        _ => return ("both sides write: which value remains depends on the order the writes reach memory in".into(), Shows::Writes),
    };
    let rdna = story.rdna();
    let name = |l: Option<Level>| l.map_or("no cache level", |l| level_name(l, rdna));
    let line = |pc: u64| names.line(pc).unwrap_or_else(|| format!("{pc:#x}"));
    let rel = |c: u64| c.saturating_sub(start);
    let touches = |side: &crate::detector::Side, write: bool| {
        let (pc, wave) = (side.pc, side.wave);
        events.iter().filter_map(move |e| match &e.what {
            Happened::Touch { write: w, value: Some(v), wave: by } if e.pc == pc && *w == write && *by == wave => Some((e.issue, *v)),
            _ => None,
        })
    };
    // The completion of the instruction `side`'s wave issued at `issue` from `pc`.
    let done = |side: &crate::detector::Side, issue: u64| {
        events.iter().find_map(|e| match &e.what {
            Happened::Memory { wave, done, level, cu, .. } if e.pc == side.pc && e.issue == issue && *wave == side.wave => Some((*done, *level, *cu)),
            _ => None,
        })
    };
    let Some((w_issue, written)) = touches(write_side, true).next() else {
        return ("the racing write did not run in this replay".into(), Shows::NotRun);
    };
    let (w_done, w_level, w_cu) = done(write_side, w_issue).unwrap_or((w_issue, None, 0));
    // The read that matters: the first one issued once the write had completed (a spinning
    // reader's first chance to see it), else the last one before.
    let reads: Vec<(u64, u32)> = touches(read_side, false).collect();
    let Some(&(r_issue, read)) = reads.iter().find(|x| x.0 >= w_done).or(reads.last()) else {
        return ("the racing read did not run in this replay".into(), Shows::NotRun);
    };
    let (_, r_level, r_cu) = done(read_side, r_issue).unwrap_or((r_issue, None, 0));
    let (rl, wl) = (line(read_side.pc), line(write_side.pc));
    if read == written {
        return (
            format!("the read at {rl} (+{}) returned {}, the value the write at {wl} stored: this run hid the race", rel(r_issue), read as i32),
            Shows::Hidden,
        );
    }
    let head = format!("the read at {rl} (+{}) returned {}, not the {} the write at {wl} stored", rel(r_issue), read as i32, written as i32);
    if r_issue < w_done {
        return (format!("{head}: it issued before the write completed (+{}); which value it gets is up to the schedule", rel(w_done)), Shows::InFlight);
    }
    let xcd = |cu: usize| story.layout.filter(|l| l.xcds > 1).map(|l| l.xcd_of(cu));
    let why = match (xcd(w_cu), xcd(r_cu)) {
        (Some(a), Some(b)) if a != b && r_level.is_some_and(|l| l > Level::L2) => format!(
            "the write had reached the L2 of XCD {a} by +{}, but the read ran on {} and was served by {}, which did not have it: nothing wrote XCD {a}'s line back to memory in between",
            rel(w_done),
            story.place(r_cu),
            name(r_level)
        ),
        _ if r_level.is_some_and(|l| w_level.is_none_or(|w| l < w)) => {
            let invalidated = events.iter().any(|e| {
                matches!(e.what, Happened::Cache { op: CacheOp::InvalidateL1 | CacheOp::InvalidateGl1, cu, .. } if cu == r_cu) && e.issue >= w_done && e.issue <= r_issue
            });
            format!(
                "the write had reached {} by +{}, but the read was served by {} on {}, which kept a stale line{}",
                name(w_level),
                rel(w_done),
                name(r_level),
                story.place(r_cu),
                if invalidated { "" } else { " (nothing invalidated it in between)" }
            )
        }
        _ => format!("the write had reached {} by +{}; the read was served by {} and still returned the older value", name(w_level), rel(w_done), name(r_level)),
    };
    (format!("{head}: {why}"), Shows::Stale)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detector::{Rule, Side};

    struct Plain;
    impl Describe for Plain {
        fn instruction(&self, pc: u64) -> String {
            format!("inst@{pc:#x}")
        }
        fn line(&self, pc: u64) -> Option<String> {
            Some(format!("k.hip:{}", pc / 4))
        }
    }

    const W: WaveId = WaveId { workgroup: [0, 0, 0], wave: 0 };
    const R: WaveId = WaveId { workgroup: [1, 0, 0], wave: 0 };

    /// A write at 0x100 by W racing with a later read at 0x200 by R, on one XCD or two.
    fn story(xcds: u32) -> Story {
        let side =
            |wave, pc, write| Side { wave, lane: 0, pc, write, atomic: None, shared_code: false, scope_from: None, gpu: None, kernel: None, host: false };
        let race = Race {
            kernel: "k".into(),
            rule: Rule::DataRace,
            lds: false,
            address: 0x1000,
            first: side(W, 0x100, true),
            second: side(R, 0x200, false),
            note: None,
            count: 1,
        };
        let mut s = Story::new(Focus { race, pcs: Vec::new() });
        s.layout = Some(Layout { compute_units: 8, shader_engines: 1, xcds, rdna: false });
        s
    }

    fn touch(s: &mut Story, issue: u64, wave: WaveId, pc: u64, write: bool, value: u32) {
        s.events.push(Event { issue, pc, what: Happened::Touch { wave, write, value: Some(value) } });
    }

    fn served(s: &mut Story, issue: u64, wave: WaveId, pc: u64, level: Level, done: u64, cu: usize) {
        s.events.push(Event { issue, pc, what: Happened::Memory { wave, name: "global_load_dword".into(), level: Some(level), done, cu } });
    }

    #[test]
    fn a_read_served_by_a_nearer_level_after_the_write_completed_is_a_stale_line() {
        let mut s = story(1);
        touch(&mut s, 10, W, 0x100, true, 7);
        served(&mut s, 10, W, 0x100, Level::L2, 100, 0);
        touch(&mut s, 150, R, 0x200, false, 0);
        served(&mut s, 150, R, 0x200, Level::L1, 170, 5);
        let t = tell(&s, 3, &Plain);
        assert_eq!(t.shows, Shows::Stale, "{t:?}");
        assert!(
            t.conclusion.contains("returned 0, not the 7") && t.conclusion.contains("L1 on CU 5") && t.conclusion.contains("stale line"),
            "{}",
            t.conclusion
        );
        // An invalidate of the reader's L1 in between is not "nothing invalidated it".
        s.events.push(Event { issue: 120, pc: 0x1f0, what: Happened::Cache { op: CacheOp::InvalidateL1, lines: 3, done: 140, cu: 5 } });
        assert!(!tell(&s, 3, &Plain).conclusion.contains("nothing invalidated"));
    }

    #[test]
    fn across_xcds_the_story_names_the_writer_s_l2() {
        let mut s = story(2);
        touch(&mut s, 10, W, 0x100, true, 7);
        served(&mut s, 10, W, 0x100, Level::L2, 100, 0);
        touch(&mut s, 150, R, 0x200, false, 0);
        served(&mut s, 150, R, 0x200, Level::Mall, 600, 6);
        let t = tell(&s, 1, &Plain);
        assert_eq!(t.shows, Shows::Stale);
        assert!(t.conclusion.contains("L2 of XCD 0") && t.conclusion.contains("CU 6 (XCD 1)"), "{}", t.conclusion);
    }

    #[test]
    fn the_read_that_counts_is_the_first_after_the_write_completed() {
        let mut s = story(1);
        touch(&mut s, 0, R, 0x200, false, 0);
        touch(&mut s, 10, W, 0x100, true, 7);
        served(&mut s, 10, W, 0x100, Level::L2, 100, 0);
        touch(&mut s, 120, R, 0x200, false, 7);
        assert_eq!(tell(&s, 1, &Plain).shows, Shows::Hidden);
        let mut s = story(1);
        touch(&mut s, 0, R, 0x200, false, 0);
        touch(&mut s, 10, W, 0x100, true, 7);
        served(&mut s, 10, W, 0x100, Level::L2, 100, 0);
        assert_eq!(tell(&s, 1, &Plain).shows, Shows::InFlight, "only a read before the write completed");
        // Another wave's touches at the same PCs are not the racing sides'.
        let mut s = story(1);
        touch(&mut s, 10, W, 0x100, true, 7);
        touch(&mut s, 150, W, 0x200, false, 0);
        assert_eq!(tell(&s, 1, &Plain).shows, Shows::NotRun);
    }

    #[test]
    fn a_loop_s_repeats_are_summed_up() {
        let mut s = story(1);
        touch(&mut s, 10, W, 0x100, true, 7);
        for i in 0..1000 {
            touch(&mut s, 20 + i, R, 0x200, false, 0);
        }
        let t = tell(&s, 1, &Plain);
        assert!(t.lines.len() <= 6, "{:#?}", t.lines);
        assert!(t.lines.iter().any(|l| l.contains("997 more events")), "{:#?}", t.lines);
        assert!(t.lines.last().is_some_and(|l| l.starts_with("+1009 cycles")), "{:#?}", t.lines);
    }
}

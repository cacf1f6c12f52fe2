//! Where work-groups run: the dispatcher hands each work-group to a CU with room for it
//! (wave slots and VGPRs on its SIMDs, LDS, work-group slots), visiting the CUs so that
//! consecutive work-groups go to different shader engines and, on MI300, different XCDs
//! (work-groups are dispatched round-robin across XCDs: AMD CDNA 3 white paper).

use crate::gpus::timing::Timing;
use crate::kernel::LoadedKernel;

/// What one work-group of a kernel needs.
#[derive(Debug, Clone, Copy)]
pub struct Needs {
    pub waves: u32,
    /// VGPRs per lane of one wave (arch + acc, rounded to the allocation granule).
    pub vgprs: u32,
    pub lds_bytes: u32,
}

/// How a kernel's work-groups occupy CUs: what one needs and how it may be placed, read from
/// the kernel descriptor. The timing engine places by it; a launch sizes the scratch backing
/// store by [`Occupancy::max_resident_groups`].
#[derive(Debug, Clone, Copy)]
pub struct Occupancy {
    pub needs: Needs,
    /// CUs a work-group may spread over (see [`Placement::new`]).
    pub cus_per_unit: u32,
    /// tgsplit: one work-group's waves may run on different CUs.
    pub split: bool,
}

impl Occupancy {
    /// A kernel's work-groups of `waves` waves and `lds_bytes` of LDS (static + dynamic).
    pub fn of(k: &LoadedKernel, waves: u32, lds_bytes: u32) -> Occupancy {
        let needs = Needs { waves, vgprs: k.vgprs.next_multiple_of(8).max(8), lds_bytes };
        // RDNA WGP mode (the kernel descriptor's WGP_MODE bit): work-groups are placed on
        // workgroup processors of two CUs (AMD RDNA ISA guides, "WGP mode").
        let cus_per_unit = if k.descriptor.compute_pgm_rsrc1.wgp_mode == Some(true) { 2 } else { 1 };
        // tgsplit mode (the descriptor's COMPUTE_PGM_RSRC3.TG_SPLIT bit): one work-group's
        // waves may run on different CUs, and no LDS is allocated for it (AMDGPUUsage, *Memory
        // Model GFX90A*, *GFX942*).
        let split = k.descriptor.compute_pgm_rsrc3.tg_split() == Some(true);
        Occupancy { needs, cus_per_unit, split }
    }

    /// The most work-groups a [`Placement`] of `compute_units` CUs can hold at once. Every
    /// bound it takes is one `try_cu` / `take_wave` enforce (work-group slots, wave slots of
    /// the SIMDs with the VGPRs they need, LDS), so no dispatch ever has more resident; it is
    /// at most `compute_units × max_workgroups_per_cu`, often far less (a 1024-item group of
    /// wave64 fills a GCN CU's 40 wave slots with two groups, not 40 of its group slots).
    pub fn max_resident_groups(&self, t: &Timing, compute_units: u32) -> u64 {
        let per = u64::from(self.cus_per_unit.max(1));
        let units = (u64::from(compute_units) / per).max(1);
        let n = &self.needs;
        let waves_per_simd = u64::from(t.core.max_waves_per_simd).min(u64::from(t.core.vgprs_per_simd) / u64::from(n.vgprs.max(1)));
        let wave_slots = u64::from(t.core.simds_per_cu.max(1)) * per * waves_per_simd;
        let group_slots = u64::from(t.core.max_workgroups_per_cu) * per;
        let waves = u64::from(n.waves.max(1));
        if self.split {
            // Waves go anywhere in an XCD: only the totals bound the groups.
            return (units * group_slots).min(units * wave_slots / waves);
        }
        let mut per_unit = group_slots.min(wave_slots / waves);
        if n.lds_bytes > 0 {
            per_unit = per_unit.min(u64::from(t.lds.size_bytes) * per / u64::from(n.lds_bytes));
        }
        units * per_unit
    }
}

#[derive(Debug, Clone, Default)]
struct Cu {
    waves: Vec<u32>,
    vgprs: Vec<u32>,
    lds: u32,
    groups: u32,
    /// SIMD the next wave tries first.
    next_simd: u32,
}

/// Occupancy of every CU.
#[derive(Debug, Clone)]
pub struct Placement {
    cus: Vec<Cu>,
    xcds: usize,
    engines: usize,
    /// Per XCD, its CUs in dispatch order (consecutive work-groups of an XCD go to different
    /// shader engines), and where its next search starts.
    xcd_order: Vec<Vec<usize>>,
    xcd_cursor: Vec<usize>,
    simds: u32,
    max_waves: u32,
    vgprs_per_simd: u32,
    lds_bytes: u32,
    max_groups: u32,
}

impl Placement {
    /// `cus_per_unit`: CUs a work-group may spread over (2 in RDNA's WGP mode, where a
    /// work-group runs on a workgroup processor: both CUs' SIMDs, their LDS as one 128 KiB
    /// pool, twice the work-group slots; 1 otherwise). Units are what this placement hands out.
    pub fn new(t: &Timing, compute_units: u32, cus_per_unit: u32) -> Placement {
        let per = cus_per_unit.max(1);
        let cus = (compute_units / per).max(1) as usize;
        let simds = t.core.simds_per_cu.max(1) * per;
        let xcds = t.topology.xcds.max(1) as usize;
        let order = dispatch_order(cus, xcds, t.topology.shader_engines.max(1) as usize);
        Placement {
            cus: vec![Cu { waves: vec![0; simds as usize], vgprs: vec![0; simds as usize], ..Cu::default() }; cus],
            xcds,
            engines: (t.topology.shader_engines.max(1) as usize).min(cus),
            xcd_order: (0..xcds).map(|x| order.iter().copied().filter(|&cu| xcd_of(cu, xcds, cus) == x).collect()).collect(),
            xcd_cursor: vec![0; xcds],
            simds,
            max_waves: t.core.max_waves_per_simd,
            vgprs_per_simd: t.core.vgprs_per_simd,
            lds_bytes: t.lds.size_bytes * per,
            max_groups: t.core.max_workgroups_per_cu * per,
        }
    }

    /// Whether a work-group with `n` could ever fit on an empty CU.
    pub fn fits_at_all(&self, n: &Needs) -> bool {
        let per_simd = n.waves.div_ceil(self.simds);
        per_simd <= self.max_waves && per_simd * n.vgprs <= self.vgprs_per_simd && n.lds_bytes <= self.lds_bytes && self.max_groups > 0
    }

    /// Place on a CU of XCD `xcd`: its CUs are visited in dispatch order, each XCD with its own
    /// cursor, so every XCD cycles through all its CUs before reusing one.
    pub fn place_in_xcd(&mut self, xcd: usize, n: &Needs) -> Option<Placed> {
        let len = self.xcd_order.get(xcd)?.len();
        for k in 0..len {
            let at = (self.xcd_cursor[xcd] + k) % len;
            let cu = self.xcd_order[xcd][at];
            if let Some(p) = self.try_cu(cu, n) {
                self.xcd_cursor[xcd] = (at + 1) % len;
                return Some(p);
            }
        }
        None
    }

    /// Place a work-group of a kernel built in tgsplit mode (GFX90A/GFX942,
    /// `COMPUTE_PGM_RSRC3.TG_SPLIT`): its waves may run on different CUs (LLVM AMDGPUUsage,
    /// *Memory Model GFX90A*: "the waves of a work-group can be executing on different CUs"),
    /// and no LDS is allocated for it. How the hardware spreads them is not documented; we
    /// assume the widest spread, consecutive waves on consecutive CUs of the XCD in dispatch
    /// order, so that a work-group of more than one wave always spans CUs (and L1s). Each CU a
    /// work-group occupies uses one of its work-group slots. All or nothing.
    pub fn place_split_in_xcd(&mut self, xcd: usize, n: &Needs) -> Option<Placed> {
        let len = self.xcd_order.get(xcd)?.len();
        let mut placed = Placed { waves: Vec::with_capacity(n.waves as usize) };
        let mut pos = self.xcd_cursor[xcd];
        for _ in 0..n.waves {
            let found = (0..len).map(|k| (pos + k) % len).find_map(|at| {
                let cu = self.xcd_order[xcd][at];
                let first_here = !placed.waves.iter().any(|&(c, _)| c == cu);
                self.take_wave(cu, n.vgprs, first_here).map(|simd| (at, cu, simd))
            });
            let Some((at, cu, simd)) = found else {
                self.release_split(&placed, n);
                return None;
            };
            placed.waves.push((cu, simd));
            pos = (at + 1) % len;
        }
        self.xcd_cursor[xcd] = pos;
        Some(placed)
    }

    /// The shader engine of `cu` (CUs are numbered engine by engine, as `dispatch_order` lays
    /// them out).
    pub fn engine_of(&self, cu: usize) -> usize {
        cu / self.cus.len().div_ceil(self.engines).max(1)
    }

    /// The XCD of `cu` (CUs are numbered XCD by XCD).
    pub fn xcd_of(&self, cu: usize) -> usize {
        xcd_of(cu, self.xcds, self.cus.len())
    }

    /// Place on `cu` only (after one of its work-groups ended).
    pub fn place_on(&mut self, cu: usize, n: &Needs) -> Option<Placed> {
        self.try_cu(cu, n)
    }

    fn try_cu(&mut self, cu: usize, n: &Needs) -> Option<Placed> {
        let (simds, max_waves, vpr) = (self.simds, self.max_waves, self.vgprs_per_simd);
        let c = &mut self.cus[cu];
        if c.groups >= self.max_groups || c.lds + n.lds_bytes > self.lds_bytes {
            return None;
        }
        // Waves go to SIMDs round-robin, each to the next SIMD with a free slot and VGPRs.
        let mut waves = c.waves.clone();
        let mut vgprs = c.vgprs.clone();
        let mut out = Placed { waves: Vec::with_capacity(n.waves as usize) };
        let mut s = c.next_simd;
        for _ in 0..n.waves {
            let pick = (0..simds).map(|k| (s + k) % simds).find(|&x| waves[x as usize] < max_waves && vgprs[x as usize] + n.vgprs <= vpr)?;
            waves[pick as usize] += 1;
            vgprs[pick as usize] += n.vgprs;
            out.waves.push((cu, pick));
            s = (pick + 1) % simds;
        }
        c.waves = waves;
        c.vgprs = vgprs;
        c.next_simd = s;
        c.lds += n.lds_bytes;
        c.groups += 1;
        Some(out)
    }

    /// One wave of `vgprs` on `cu` (and, for the work-group's first wave there, one of its
    /// work-group slots): the SIMD it goes to.
    fn take_wave(&mut self, cu: usize, vgprs: u32, first_here: bool) -> Option<u32> {
        let (simds, max_waves, vpr, max_groups) = (self.simds, self.max_waves, self.vgprs_per_simd, self.max_groups);
        let c = &mut self.cus[cu];
        if first_here && c.groups >= max_groups {
            return None;
        }
        let s = c.next_simd;
        let pick = (0..simds).map(|k| (s + k) % simds).find(|&x| c.waves[x as usize] < max_waves && c.vgprs[x as usize] + vgprs <= vpr)?;
        c.waves[pick as usize] += 1;
        c.vgprs[pick as usize] += vgprs;
        c.next_simd = (pick + 1) % simds;
        c.groups += u32::from(first_here);
        Some(pick)
    }

    /// A work-group placed by [`Placement::place_in_xcd`] or [`Placement::place_on`] ended.
    pub fn release(&mut self, p: &Placed, n: &Needs) {
        for &(cu, s) in &p.waves {
            let c = &mut self.cus[cu];
            c.waves[s as usize] -= 1;
            c.vgprs[s as usize] -= n.vgprs;
        }
        if let Some(&(cu, _)) = p.waves.first() {
            let c = &mut self.cus[cu];
            c.lds -= n.lds_bytes;
            c.groups -= 1;
        }
    }

    /// A work-group placed by [`Placement::place_split_in_xcd`] ended (or did not fit).
    pub fn release_split(&mut self, p: &Placed, n: &Needs) {
        for (i, &(cu, s)) in p.waves.iter().enumerate() {
            let c = &mut self.cus[cu];
            c.waves[s as usize] -= 1;
            c.vgprs[s as usize] -= n.vgprs;
            if !p.waves[..i].iter().any(|&(x, _)| x == cu) {
                c.groups -= 1;
            }
        }
    }
}

/// Where a work-group runs: per wave, in wave order, its placement unit (a CU, or a WGP in
/// RDNA's WGP mode) and the SIMD of that unit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Placed {
    pub waves: Vec<(usize, u32)>,
}

impl Placed {
    /// The units it occupies, each once, in wave order.
    pub fn units(&self) -> Vec<usize> {
        let mut u: Vec<usize> = Vec::with_capacity(1);
        for &(cu, _) in &self.waves {
            if !u.contains(&cu) {
                u.push(cu);
            }
        }
        u
    }
}

/// The shader engine of `cu` (CU numbers are contiguous per shader engine, as in
/// [`dispatch_order`]).
pub fn shader_engine_of(cu: usize, cus: usize, engines: usize) -> usize {
    let engines = engines.clamp(1, cus.max(1));
    cu / cus.max(1).div_ceil(engines)
}

/// CUs in the order the dispatcher visits them: shader engines round-robin (XCDs
/// interleaved), then the CUs within each engine. CU numbers are contiguous per XCD and per
/// shader engine.
/// The XCD of `cu` among `cus` CUs numbered XCD by XCD (as the memory system numbers them).
fn xcd_of(cu: usize, xcds: usize, cus: usize) -> usize {
    (cu * xcds / cus.max(1)).min(xcds.max(1) - 1)
}

fn dispatch_order(cus: usize, xcds: usize, engines: usize) -> Vec<usize> {
    let engines = engines.clamp(1, cus);
    let per_engine = cus.div_ceil(engines);
    let per_xcd = engines.div_ceil(xcds.max(1)).max(1);
    let mut se_order = Vec::with_capacity(engines);
    for s in 0..per_xcd {
        for x in 0..xcds.max(1) {
            let se = x * per_xcd + s;
            if se < engines {
                se_order.push(se);
            }
        }
    }
    let mut order = Vec::with_capacity(cus);
    for i in 0..per_engine {
        for &se in &se_order {
            let cu = se * per_engine + i;
            if cu < cus && (se + 1) * per_engine > cu {
                order.push(cu);
            }
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_visits_every_cu_once_alternating_engines_and_xcds() {
        let o = dispatch_order(16, 2, 4);
        let mut sorted = o.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..16).collect::<Vec<_>>());
        // Engines 0,1 on XCD 0 (CUs 0-7), 2,3 on XCD 1 (CUs 8-15): XCD 0, XCD 1, XCD 0, ...
        assert_eq!(&o[..4], &[0, 8, 4, 12]);
    }

    #[test]
    fn limits_waves_vgprs_lds_and_groups() {
        let t = crate::gpus::builtin("mi210").unwrap().timing.unwrap();
        let mut p = Placement::new(&t, 1, 1);
        // 4 waves of 128 VGPRs: one per SIMD; 512 VGPRs per SIMD allow 4 such groups.
        let n = Needs { waves: 4, vgprs: 128, lds_bytes: 0 };
        for _ in 0..4 {
            assert!(p.place_in_xcd(0, &n).is_some());
        }
        assert!(p.place_in_xcd(0, &n).is_none(), "VGPRs exhausted");
        p.release(&Placed { waves: (0..4).map(|s| (0, s)).collect() }, &n);
        assert!(p.place_in_xcd(0, &n).is_some());
        let mut p = Placement::new(&t, 1, 1);
        let big = Needs { waves: 1, vgprs: 8, lds_bytes: 40000 };
        assert!(p.place_in_xcd(0, &big).is_some());
        assert!(p.place_in_xcd(0, &big).is_none(), "LDS exhausted");
        let mut p = Placement::new(&t, 1, 1);
        let tiny = Needs { waves: 1, vgprs: 8, lds_bytes: 0 };
        for _ in 0..16 {
            assert!(p.place_in_xcd(0, &tiny).is_some());
        }
        assert!(p.place_in_xcd(0, &tiny).is_none(), "16 work-groups per CU");
        assert!(!p.fits_at_all(&Needs { waves: 40, vgprs: 8, lds_bytes: 0 }));
    }

    /// Fill an empty GPU with work-groups of `n` (as the engine does at a dispatch's start):
    /// how many fit.
    fn fill(t: &Timing, cus: u32, o: &Occupancy) -> u64 {
        let mut p = Placement::new(t, cus, o.cus_per_unit);
        let mut placed = 0;
        // Round-robin over the XCDs until a whole round places nothing.
        loop {
            let before = placed;
            for x in 0..p.xcds {
                let got = if o.split { p.place_split_in_xcd(x, &o.needs) } else { p.place_in_xcd(x, &o.needs) };
                placed += u64::from(got.is_some());
            }
            if placed == before {
                return placed;
            }
        }
    }

    #[test]
    fn max_resident_groups_bounds_what_placement_admits() {
        // The scratch store has one slot per resident wave: fewer slots than the placement
        // admits would make two waves share scratch.
        for gpu in crate::gpus::builtins() {
            let t = gpu.timing.clone().unwrap();
            let cus = gpu.compute_units.min(16);
            for (waves, vgprs, lds_bytes) in [(1, 8, 0), (4, 32, 0), (16, 128, 0), (4, 8, 20_000), (32, 16, 0), (2, 256, 64 * 1024), (3, 512, 0)] {
                for (cus_per_unit, split) in [(1, false), (2, false), (1, true)] {
                    let o = Occupancy { needs: Needs { waves, vgprs, lds_bytes }, cus_per_unit, split };
                    let (bound, real) = (o.max_resident_groups(&t, cus), fill(&t, cus, &o));
                    assert!(real <= bound, "{}: {o:?}: {real} placed, bound {bound}", gpu.name);
                    assert!(bound <= u64::from(cus * t.core.max_workgroups_per_cu), "{}: {o:?}", gpu.name);
                    // Tight where only the wave slots limit (no LDS, few VGPRs, groups of one SIMD's worth).
                    if !split && cus_per_unit == 1 && lds_bytes == 0 && vgprs <= 32 {
                        assert_eq!(real, bound, "{}: {o:?}", gpu.name);
                    }
                }
            }
        }
    }

    #[test]
    fn tgsplit_work_groups_span_cus_and_give_their_slots_back() {
        let t = crate::gpus::builtin("mi210").unwrap().timing.unwrap();
        let mut p = Placement::new(&t, 8, 1);
        let n = Needs { waves: 4, vgprs: 64, lds_bytes: 0 };
        let a = p.place_split_in_xcd(0, &n).unwrap();
        assert_eq!(a.units().len(), 4, "four waves on four CUs: {a:?}");
        let b = p.place_split_in_xcd(0, &n).unwrap();
        assert!(b.units().iter().all(|u| !a.units().contains(u)), "the next group starts on the next CUs: {a:?} {b:?}");
        p.release_split(&a, &n);
        p.release_split(&b, &n);
        // Everything given back: a CU again takes its 16 one-wave groups and no more.
        let one = Needs { waves: 1, vgprs: 8, lds_bytes: 0 };
        let mut p1 = Placement::new(&t, 1, 1);
        for _ in 0..16 {
            assert!(p1.place_split_in_xcd(0, &one).is_some());
        }
        assert!(p1.place_split_in_xcd(0, &one).is_none(), "16 work-groups per CU");
        assert_eq!(p.cus.iter().map(|c| c.groups + c.waves.iter().sum::<u32>() + c.vgprs.iter().sum::<u32>()).sum::<u32>(), 0);
    }
}

//! Straight runs (`engine::straight`): the functional engine executes stretches of direct-path
//! VALU operations, scalar ALU register operations and `s_nop`/wait instructions in one call,
//! counting them as it goes. An observer makes the engine step every instruction on its own (its
//! events must come one by one), so the observed launch is the per-instruction reference: both
//! must leave the same memory, the same instruction count and the same count per opcode, and
//! fault at the same wave and PC when the runaway limit falls inside a run.
//!
//! The kernel is HIP-Examples' mini-nbody `bodyForce` (`workloads/nbody`, gfx942), whose inner
//! loop is mostly such stretches (v_sub/v_pk_*/v_fma/v_sqrt/v_div_* with `s_nop`s between, and
//! the loop's `s_add_u32`/`s_addc_u32`/`s_add_i32`/`s_cmp_*` among them), and its prologue
//! writes EXEC with `s_and_saveexec_b64` in a run.

use hipscope_isa::codeobj;
use hipscope_sim::launch::Hooks;
use hipscope_sim::observe::{Executed, Observer};
use hipscope_sim::{Device, EngineOptions, Geometry, MemoryKind};
use std::path::Path;

/// Counts the instructions it is told of (being there is what matters).
#[derive(Default)]
struct Count(u64);

impl Observer for Count {
    fn executed(&mut self, _: &Executed) {
        self.0 += 1;
    }
}

/// What a launch leaves: the bodies' bytes and (instructions, per-opcode counts), or the fault
/// as text.
type Outcome = Result<(Vec<u8>, u64, Vec<u64>), String>;

/// `bodyForce` over `n` bodies (positions and velocities from a fixed formula) with `opts`,
/// observed or not; `None` when the program is not in the checkout.
fn body_force(n: u32, opts: &EngineOptions, observe: bool) -> Option<Outcome> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads/nbody/bin/nbody-orig");
    let Ok(bytes) = std::fs::read(&path) else {
        println!("SKIPPED: {} is missing (workloads/nbody/build.sh builds it)", path.display());
        return None;
    };
    let co = codeobj::load(&bytes, Some("gfx942")).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut dev = Device::new(co.target.processor);
    let kernel = dev.load_kernel(&co, "_Z9bodyForceP4Bodyfi").unwrap();
    // Six floats a body (x, y, z, vx, vy, vz) of mixed signs and magnitudes.
    let body = |i: u32, c: u32| ((i * 37 + c * 11) % 101) as f32 * 0.173 - 8.0;
    let data: Vec<u8> = (0..n).flat_map(|i| (0..6).flat_map(move |c| body(i, c).to_le_bytes())).collect();
    let p = dev.mem.alloc_init("p", data, MemoryKind::Device);
    let args = vec![p.to_le_bytes().to_vec(), 0.01f32.to_le_bytes().to_vec(), n.to_le_bytes().to_vec()];
    let geo = Geometry { grid: [n, 1, 1], block: [64, 1, 1], dynamic_lds: 0 };
    let mut count = Count::default();
    let hooks = if observe { Hooks { observer: Some(&mut count), ..Hooks::default() } } else { Hooks::default() };
    let r = dev.launch_hooked(&kernel, geo, &args, opts, hooks);
    dev.synchronize();
    Some(r.map(|s| (dev.mem.find("p").unwrap().data.to_vec(), s.instructions, s.opcode_counts)).map_err(|e| format!("{e:?}")))
}

#[test]
fn straight_runs_leave_what_single_steps_leave() {
    for seed in [1, 7] {
        let opts = EngineOptions { seed, ..EngineOptions::default() };
        let (Some(runs), Some(steps)) = (body_force(256, &opts, false), body_force(256, &opts, true)) else { return };
        let (runs, steps) = (runs.unwrap(), steps.unwrap());
        // Four waves, each running the 256-iteration inner loop of some 50 instructions.
        assert!(steps.1 > 4 * 256 * 50, "seed {seed}: only {} instructions", steps.1);
        assert_eq!(runs.1, steps.1, "seed {seed}: instruction counts");
        assert!(runs.2 == steps.2, "seed {seed}: per-opcode counts differ");
        assert!(runs.0 == steps.0, "seed {seed}: the bodies differ");
    }
}

#[test]
fn the_runaway_limit_stops_a_run_where_single_steps_stop() {
    // Limits that fall inside the inner loop's stretches and on their edges.
    for limit in [200, 1001, 1234, 1500] {
        let opts = EngineOptions { max_wave_instructions: limit, ..EngineOptions::default() };
        let (Some(runs), Some(steps)) = (body_force(128, &opts, false), body_force(128, &opts, true)) else { return };
        let fault = steps.expect_err("the limit must stop the kernel");
        assert!(fault.contains("RunawayLoop"), "limit {limit}: {fault}");
        assert_eq!(runs.expect_err("the limit must stop the kernel"), fault, "limit {limit}");
    }
}

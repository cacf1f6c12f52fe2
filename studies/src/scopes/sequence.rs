//! The instructions a measurement kernel executes between its two clock reads: what the
//! compiler emitted for the operation, in LLVM syntax.

use hipscope_isa::decode::{Ctx, Inst};
use hipscope_isa::print::format_inst;
use hipscope_isa::tables::{flags, Opcode};
use hipscope_sim::kernel::{CodeSlot, LoadedKernel};

/// Whether `inst` (printed as `text`) reads the shader clock: `s_memtime`, `s_memrealtime`
/// (GFX8-10.3; scalar memory), `s_getreg_b32 … SHADER_CYCLES…` (GFX10.3-12),
/// `s_sendmsg_rtn_b64 … REALTIME`; the last two only with that operand.
fn reads_clock(inst: &Inst, text: &str) -> bool {
    inst.has(flags::READS_CLOCK) && (inst.has(flags::SMRD) || text.contains("SHADER_CYCLES") || text.contains("REALTIME"))
}

/// Whether `inst` is a wait-counter instruction (`s_waitcnt*`, GFX12 `s_wait_*cnt*`), or the
/// dependency-counter wait `s_waitcnt_depctr` the compiler may also place there.
fn is_wait(inst: &Inst) -> bool {
    inst.has(flags::WAITCNT) || inst.opcode() == Opcode::S_WAITCNT_DEPCTR
}

/// The instructions strictly between the first two clock reads, without the kernel's own
/// drain of every counter just before the second read (the run of waits the suite puts there;
/// a wait the compiler placed right after the operation is in that run too and goes with it,
/// which only hides what the drain would have waited for anyway). Empty when the kernel does
/// not read the clock twice.
pub fn between_clock_reads(k: &LoadedKernel) -> Vec<String> {
    let ctx = Ctx::new(k.processor, k.wave64, false);
    let mut window: Vec<(&Inst, String)> = Vec::new();
    let mut reads = 0;
    // The code holds the whole text section; this kernel starts at its entry.
    let first = k.index_of(k.entry).unwrap_or(0);
    for slot in &k.code[first..] {
        let CodeSlot::Inst(e) = slot else { continue };
        let text = format_inst(&e.inst, &ctx);
        if reads_clock(&e.inst, &text) {
            reads += 1;
            if reads == 2 {
                break;
            }
            continue;
        }
        if reads == 1 {
            window.push((&e.inst, text));
        }
    }
    if reads < 2 {
        return Vec::new();
    }
    while window.last().is_some_and(|(i, _)| is_wait(i)) {
        window.pop();
    }
    window.into_iter().map(|(_, t)| t).collect()
}

//! Machine code as the lowering tables see it: waits with their counters, memory and
//! cache-maintenance instructions with their cache bits, everything else dropped. Shared by
//! the lowering test (clang-19's code) and the hardware test (`grade/tests/suite/hardware.rs`, the
//! grader's own kernels; it includes this file by path).

// Each test binary compiles this module on its own and uses only part of it.
#![allow(dead_code)]

use hipscope_isa::decode::{Ctx, Inst};
use hipscope_isa::print::format_inst;
use hipscope_isa::Family;
use hipscope_mm::lower::Line;
use hipscope_mm::{Counter, Wait};

pub fn counter(name: &str) -> Option<Counter> {
    Some(match name {
        "vmcnt" | "vm" => Counter::Vm,
        "lgkmcnt" | "lgkm" => Counter::Lgkm,
        "expcnt" | "exp" => Counter::Exp,
        "vscnt" | "vs" => Counter::Vs,
        "loadcnt" | "load" => Counter::Load,
        "storecnt" | "store" => Counter::Store,
        "dscnt" | "ds" => Counter::Ds,
        "kmcnt" | "km" => Counter::Km,
        "samplecnt" | "sample" => Counter::Sample,
        "bvhcnt" | "bvh" => Counter::Bvh,
        _ => return None,
    })
}

pub fn parse_number(s: &str) -> u32 {
    let s = s.trim().trim_end_matches(',');
    match s.strip_prefix("0x") {
        Some(h) => u32::from_str_radix(h, 16).expect("hex"),
        None => s.parse().expect("number"),
    }
}

/// A wait instruction as a [`Wait`], from its printed form: `s_waitcnt vmcnt(0) lgkmcnt(0)`,
/// `s_waitcnt_vscnt null, 0x0`, GFX12 `s_wait_loadcnt 0x0` and the combined
/// `s_wait_loadcnt_dscnt 0x0` (ISA: the first counter in bits 13:8, dscnt in bits 5:0).
pub fn parse_wait(text: &str) -> Option<Wait> {
    let mut words = text.split_whitespace();
    let m = words.next()?;
    let mut w = Wait::default();
    if m == "s_waitcnt" {
        for field in words {
            let (name, rest) = field.split_once('(')?;
            w.add(counter(name)?, parse_number(rest.trim_end_matches(')')));
        }
        return Some(w);
    }
    if let Some(name) = m.strip_prefix("s_waitcnt_") {
        // s_waitcnt_vscnt null, N
        let value = parse_number(text.rsplit(' ').next()?);
        w.add(counter(name)?, value);
        return Some(w);
    }
    let names = m.strip_prefix("s_wait_")?;
    let value = parse_number(words.next()?);
    let parts: Vec<&str> = names.split('_').collect();
    match parts.as_slice() {
        [one] => w.add(counter(one)?, value),
        [a, b] => {
            w.add(counter(a)?, (value >> 8) & 0x3f);
            w.add(counter(b)?, value & 0x3f);
        }
        _ => return None,
    }
    Some(w)
}

pub fn is_memory_model_inst(m: &str) -> bool {
    ["global_", "flat_", "buffer_", "ds_", "scratch_", "s_barrier"].iter().any(|p| m.starts_with(p))
}

pub fn is_wait(m: &str) -> bool {
    m.starts_with("s_waitcnt") || (m.starts_with("s_wait_") && m.contains("cnt"))
}

/// One instruction as a [`Line`], or `None` when it is not part of the memory model.
pub fn line_of(inst: &Inst, ctx: &Ctx, family: Family) -> Result<Option<Line>, String> {
    let m = inst.mnemonic();
    if is_wait(m) {
        let text = format_inst(inst, ctx);
        return Ok(Some(Line::Wait(parse_wait(&text).ok_or_else(|| format!("unparsed wait `{text}`"))?)));
    }
    Ok(is_memory_model_inst(m).then(|| Line::inst(family, m, inst.cache_policy().0)))
}

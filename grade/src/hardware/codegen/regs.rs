//! Where one thread's registers live in VGPRs, and which type's bits each one holds.
//!
//! A register takes one VGPR, or an even-aligned pair (GFX90A and later require aligned
//! 64-bit VGPR operands, AMDGPUUsage "VGPR alignment") when its declared type is 64 bits or a
//! 64-bit location is read into it. A value read from memory lands in the register with the
//! location's type ("raw"); converting it to the register's declared type (sign- or
//! zero-extension, truncation, `!= 0` for `bool`) needs the value, so it is done when the
//! register is next read, after the wait the compiler would put there anyway.

use super::Unsupported;
use crate::litmus::{for_each_stmt, Litmus, RegId, Stmt, Thread};
use hipscope_mm::ValueType;

/// The first VGPR of the registers and how many there are.
pub const REG_BASE: u8 = 40;
pub const REG_VGPRS: usize = 48;

#[derive(Clone)]
pub struct Regs {
    first: Vec<u8>,
    declared: Vec<ValueType>,
    /// The type whose bits each register holds now.
    raw: Vec<ValueType>,
}

impl Regs {
    /// No registers (the prologue's).
    pub fn empty() -> Regs {
        Regs { first: Vec::new(), declared: Vec::new(), raw: Vec::new() }
    }

    /// The plan for `thread` of `test`.
    pub fn new(test: &Litmus, thread: &Thread) -> Result<Regs, Unsupported> {
        let declared: Vec<ValueType> = (0..thread.regs.len()).map(|r| thread.reg_type(RegId(r as u16))).collect();
        let mut wide: Vec<bool> = declared.iter().map(|t| t.wide()).collect();
        for_each_stmt(&thread.body, &mut |_, st| {
            let (reg, target) = match st {
                Stmt::Load { reg, target, .. } | Stmt::Rmw { old: Some(reg), target, .. } | Stmt::Cas { old: Some(reg), target, .. } => (*reg, target),
                _ => return,
            };
            if let Some(w) = wide.get_mut(reg.0 as usize) {
                *w |= test.loc_type(target.loc).wide();
            }
        });
        let mut first = Vec::with_capacity(wide.len());
        let mut next = usize::from(REG_BASE);
        for &w in &wide {
            if w {
                next += next % 2;
            }
            first.push(next);
            next += 1 + usize::from(w);
        }
        if next > usize::from(REG_BASE) + REG_VGPRS {
            return Err(Unsupported(format!(
                "thread {}'s registers need {} VGPRs; the hardware layer has {REG_VGPRS}",
                thread.name,
                next - usize::from(REG_BASE)
            )));
        }
        let first = first.into_iter().map(|f| f as u8).collect();
        Ok(Regs { first, raw: declared.clone(), declared })
    }

    /// The (first) VGPR of `reg`.
    pub fn vgpr(&self, reg: RegId) -> u8 {
        self.first.get(reg.0 as usize).copied().unwrap_or(REG_BASE)
    }

    pub fn declared(&self, reg: RegId) -> ValueType {
        self.declared.get(reg.0 as usize).copied().unwrap_or(ValueType::INT)
    }

    pub fn raw(&self, reg: RegId) -> ValueType {
        self.raw.get(reg.0 as usize).copied().unwrap_or(ValueType::INT)
    }

    pub fn set_raw(&mut self, reg: RegId, ty: ValueType) {
        if let Some(slot) = self.raw.get_mut(reg.0 as usize) {
            *slot = ty;
        }
    }

    /// Registers whose bits are not yet their declared type's.
    pub fn stale(&self) -> Vec<RegId> {
        (0..self.raw.len()).map(|r| RegId(r as u16)).filter(|r| self.raw(*r) != self.declared(*r)).collect()
    }
}

//! Whole-object disassembly in the layout of `llvm-objdump -d`: each executable section,
//! symbol by symbol, one instruction per line with its address and encoding words in a
//! trailing comment, and branch targets named relative to their symbol.

use super::format_inst;
use crate::codeobj::{CodeObject, CodeSymbol, CodeSymbolKind, ElfType, Section};
use crate::decode::{Decoder, Inst};
use std::fmt::Write;

/// What to disassemble and how.
#[derive(Debug, Clone, Default)]
pub struct ListingOptions {
    /// Only symbols with this name (kernel or function).
    pub symbol: Option<String>,
    /// Decode as wave64 (`Some(true)`) or wave32 (`Some(false)`). `None`: each kernel in the
    /// wave size its descriptor asks for (functions: the object's first kernel's). Note that
    /// llvm-objdump ignores descriptors and decodes GFX10+ code as wave32.
    pub wave64: Option<bool>,
}

/// Why a listing could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ListingError {
    #[error("no symbol named '{0}' in an executable section (kernels: {1})")]
    NoSuchSymbol(String, String),
}

/// Disassemble a code object. `file_name` is printed in the header line as objdump does.
pub fn listing(co: &CodeObject, file_name: &str, opts: &ListingOptions) -> Result<String, ListingError> {
    if let Some(want) = &opts.symbol {
        if !co.code_symbols.iter().any(|s| &s.name == want) {
            let kernels: Vec<&str> = co.kernels.iter().map(|k| k.name.as_str()).collect();
            return Err(ListingError::NoSuchSymbol(want.clone(), kernels.join(", ")));
        }
    }
    let mut out = format!("\n{file_name}:\tfile format elf64-amdgpu\n");
    let default_wave64 = co.kernels.first().is_none_or(|k| k.wave_size == 64);
    for section in co.text_sections() {
        let _ = write!(out, "\nDisassembly of section {}:\n", section.name);
        let symbols: Vec<&CodeSymbol> = co.code_symbols_in(section).collect();
        // With one symbol asked for, the local labels inside it (hand-written kernels such as
        // Tensile's keep theirs in the symbol table) are part of it: its listing runs on
        // through them to the next function or kernel.
        let mut inside_wanted = false;
        for (i, sym) in symbols.iter().enumerate() {
            if let Some(want) = &opts.symbol {
                inside_wanted = &sym.name == want || (inside_wanted && sym.kind == CodeSymbolKind::Label);
                if !inside_wanted {
                    continue;
                }
            }
            let end = symbols.get(i + 1).map_or(section.address + section.size, |next| next.address);
            let wave64 = opts.wave64.unwrap_or_else(|| kernel_wave64(co, sym).unwrap_or(default_wave64));
            symbol_block(&mut out, co, section, sym, end, &symbols, wave64);
        }
    }
    Ok(out)
}

fn kernel_wave64(co: &CodeObject, sym: &CodeSymbol) -> Option<bool> {
    co.kernels.iter().find(|k| k.entry_address == sym.address || k.name == sym.name).map(|k| k.wave_size == 64)
}

/// One symbol: its label line and the instructions up to the next symbol.
fn symbol_block(out: &mut String, co: &CodeObject, section: &Section, sym: &CodeSymbol, end: u64, symbols: &[&CodeSymbol], wave64: bool) {
    let _ = write!(out, "\n{:016x} <{}>:\n", sym.address, sym.name);
    // A code object v2 kernel symbol starts with its 256-byte amd_kernel_code_t header.
    let start = if sym.kind == CodeSymbolKind::HsaKernel {
        co.kernels.iter().find(|k| k.name == sym.name).map_or(sym.address, |k| k.entry_address)
    } else {
        sym.address
    };
    // llvm-objdump shows an unlinked object's bytes as stored, before relocation.
    let bytes = if co.elf_type == ElfType::Relocatable { &section.file_bytes } else { &section.bytes };
    let lo = (start.saturating_sub(section.address)) as usize;
    let hi = (end.saturating_sub(section.address) as usize).min(bytes.len());
    let Some(code) = bytes.get(lo..hi) else { return };
    let decoder = Decoder::new(co.target.processor, wave64);
    let mut off = 0usize;
    while off + 4 <= code.len() {
        let zeros = skippable_zeros(&code[off..]);
        if zeros > 0 {
            out.push_str("\t\t...\n");
            off += zeros;
            continue;
        }
        let address = start + off as u64;
        match decoder.decode(&code[off..], address) {
            Ok(inst) => {
                let size = inst.size as usize;
                let words = encoding_words(&code[off..off + size]);
                let target = branch_comment(&inst, symbols);
                let _ = writeln!(out, "\t{:<59}// {address:012X}: {words}{target}", format_inst(&inst, decoder.ctx()));
                off += size;
            }
            Err(_) => {
                let words = encoding_words(&code[off..(off + 4).min(code.len())]);
                let _ = writeln!(out, "\t{:<59}// {address:012X}: {words}", "<unknown>");
                off += 4;
            }
        }
    }
}

/// Zero bytes llvm-objdump skips (printing `...`) at an instruction boundary: a run of at least
/// 8, rounded down to whole words so that no instruction starting with a zero byte is cut.
fn skippable_zeros(bytes: &[u8]) -> usize {
    let n = bytes.iter().take_while(|&&b| b == 0).count();
    if n < 8 {
        0
    } else {
        n & !3
    }
}

/// Encoding as little-endian 32-bit words in upper-case hex.
fn encoding_words(bytes: &[u8]) -> String {
    bytes
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            format!("{:08X}", u32::from_le_bytes(w))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// ` <symbol+0x..>` for a branch whose target lies in a known symbol.
fn branch_comment(inst: &Inst, symbols: &[&CodeSymbol]) -> String {
    let Some(target) = inst.branch_target() else { return String::new() };
    let Some(sym) = symbols.iter().rev().find(|s| s.address <= target) else { return String::new() };
    match target - sym.address {
        0 => format!(" <{}>", sym.name),
        off => format!(" <{}+{off:#x}>", sym.name),
    }
}

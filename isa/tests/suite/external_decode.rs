//! Every instruction of the independently compiled objects in `../shared/external-code-objects`
//! decodes (gfx803 code object v2, gfx942 code object v6 unlinked), and each kernel's code
//! reaches an `s_endpgm`. Where `llvm-objdump-19` is installed, our listing of the gfx942
//! objects (which it can read; it rejects code object v2) is also compared with its output.

use hipscope_isa::codeobj::{self, CodeObject};
use hipscope_isa::decode::{Decoder, Program};
use hipscope_isa::print::{listing, ListingOptions};
use hipscope_isa::tables::Opcode;
use std::path::{Path, PathBuf};
use std::process::Command;

fn external_objects() -> Option<Vec<PathBuf>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/external-code-objects");
    if !root.is_dir() {
        return None;
    }
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(dir).ok()?.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "hsaco") {
                out.push(p);
            }
        }
    }
    out.sort();
    Some(out)
}

/// Decode each kernel from its entry to the end of its symbol; count instructions.
fn decode_kernels(path: &Path, co: &CodeObject) -> usize {
    let mut total = 0;
    for k in &co.kernels {
        let sym = co.code_symbols.iter().find(|s| s.name == k.name || s.address == k.entry_address);
        let end = sym.map_or(0, |s| s.address + s.size);
        let section = co.section_at(k.entry_address).expect("entry in a section");
        let end = if end > k.entry_address { end } else { section.address + section.size };
        let code = co.read(k.entry_address, end - k.entry_address).expect("kernel bytes");
        let decoder = Decoder::new(co.target.processor, k.wave_size == 64);
        let program = Program::decode(&decoder, code, k.entry_address).unwrap_or_else(|e| panic!("{}: kernel {}: {e}", path.display(), k.name));
        assert!(program.insts.iter().any(|i| i.opcode() == Opcode::S_ENDPGM), "{}: kernel {} has no s_endpgm", path.display(), k.name);
        total += program.insts.len();
    }
    total
}

#[test]
fn external_objects_decode_completely() {
    let Some(objects) = external_objects() else {
        println!("SKIPPED: ../shared/external-code-objects not found next to the repository");
        return;
    };
    assert_eq!(objects.len(), 10, "expected the ten external objects");
    let objdump = Command::new("llvm-objdump-19").arg("--version").output().is_ok_and(|o| o.status.success());
    if !objdump {
        println!("SKIPPED (comparison part only): llvm-objdump-19 not installed; decoding is still checked");
    }
    for path in &objects {
        let bytes = std::fs::read(path).expect("read object");
        let co = codeobj::load(&bytes, None).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let n = decode_kernels(path, &co);
        let mut line = format!("{}: {} kernel(s), {n} instructions decoded", co.target, co.kernels.len());
        if objdump && co.code_object_version >= 3 {
            let theirs = Command::new("llvm-objdump-19").args(["-d", "--no-show-raw-insn"]).arg(path).output().expect("objdump");
            let theirs = String::from_utf8_lossy(&theirs.stdout);
            let ours = listing(&co, "", &ListingOptions::default()).expect("listing");
            let strip = |s: &str| -> Vec<String> {
                s.lines().filter(|l| l.starts_with('\t')).map(|l| l.split("//").next().unwrap_or("").split_whitespace().collect::<Vec<_>>().join(" ")).collect()
            };
            assert_eq!(strip(&ours), strip(&theirs), "{}: listing differs from llvm-objdump-19", path.display());
            line.push_str(&format!(", {} lines identical to llvm-objdump-19", strip(&theirs).len()));
        }
        println!("{}: {line}", path.file_name().and_then(|n| n.to_str()).unwrap_or("?"));
    }
}

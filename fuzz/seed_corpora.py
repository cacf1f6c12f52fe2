#!/usr/bin/env python3
"""Write the seed corpora of the fuzz targets into fuzz/corpus/<target>/ (gitignored).

  load_code_object  the external code objects (../shared/external-code-objects, when present)
                    and every committed workload file (workloads/bin)
  decode            the encoding lines of the LLVM MC disassembler tests (../shared/llvm-mc-tests,
                    when present), 32 lines per input, behind the selector byte of the file's
                    first RUN line (processor index * 4 + wave64 + 2 * true16, as
                    hipscope_isa::decode::fuzz_one reads it)
  launch            every workloads/bin/*/*.co behind a 16-byte header (see
                    sim/src/fuzzing.rs): kernels 0 and 1 in functional mode, kernel 0 in timing
                    mode, n = 64 in the by-value arguments
  litmus            the committed seeds (fuzz/seeds/litmus, one or two files per dialect), the
                    workload litmus tests (workloads/litmus) and the copied catalogues
                    (../shared/litmus, when present), each file as it is

Usage: python3 fuzz/seed_corpora.py [TARGET...]   (all four by default)
"""

import hashlib
import pathlib
import re
import sys

FUZZ = pathlib.Path(__file__).resolve().parent
ROOT = FUZZ.parent
SHARED = ROOT.parent / "shared"

# Processor order of isa/src/target.rs (`processors!`), and the aliases it accepts.
PROCESSORS = ["gfx802", "gfx803", "gfx810", "gfx900", "gfx906", "gfx908", "gfx90a", "gfx940", "gfx942",
              "gfx1010", "gfx1011", "gfx1012", "gfx1030", "gfx1100", "gfx1150", "gfx1200", "gfx1201"]
ALIASES = {"tonga": "gfx802", "iceland": "gfx802", "fiji": "gfx803", "polaris10": "gfx803", "polaris11": "gfx803",
           "stoney": "gfx810", "gfx941": "gfx942", "gfx1031": "gfx1030", "gfx1032": "gfx1030", "gfx1033": "gfx1030",
           "gfx1034": "gfx1030", "gfx1035": "gfx1030", "gfx1036": "gfx1030", "gfx1101": "gfx1100",
           "gfx1102": "gfx1100", "gfx1151": "gfx1150"}

LINES_PER_INPUT = 32


def put(directory, data):
    """Store one input under its hash (as libFuzzer names corpus files)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / hashlib.sha1(data).hexdigest()).write_bytes(data)


def load_code_object(out):
    ext = SHARED / "external-code-objects"
    files = sorted(ext.rglob("*.hsaco")) if ext.is_dir() else []
    files += sorted(p for p in (ROOT / "workloads/bin").rglob("*") if p.is_file())
    for f in files:
        put(out, f.read_bytes())


def selector(run_line):
    """The decode selector byte of a RUN line, or None for a processor we do not decode."""
    m = re.search(r"-mcpu=(\S+)", run_line)
    if not m:
        return None
    cpu = ALIASES.get(m.group(1), m.group(1))
    if cpu not in PROCESSORS:
        return None
    attrs = " ".join(re.findall(r"-mattr=(\S+)", run_line)).lower()
    # GCN and CDNA are wave64 only; RDNA is wave32 unless the RUN line asks for wave64.
    rdna = len(cpu) == 7  # gfx10xx, gfx11xx, gfx12xx
    wave64 = not rdna or ("+wavefrontsize64" in attrs and "+wavefrontsize32" not in attrs)
    true16 = "+real-true16" in attrs
    return PROCESSORS.index(cpu) * 4 + int(wave64) + 2 * int(true16)


def decode(out):
    tests = SHARED / "llvm-mc-tests/Disassembler/AMDGPU"
    if not tests.is_dir():
        print(f"note: {tests} not found; no decode seeds", file=sys.stderr)
        return
    for f in sorted(tests.glob("*.txt")):
        text = f.read_text(errors="replace").splitlines()
        sels = [s for s in (selector(l) for l in text if l.startswith("# RUN:") or l.startswith("// RUN:")) if s is not None]
        if not sels:
            continue
        lines = []
        for l in text:
            l = l.split("#")[0].split("//")[0].strip()
            if l.startswith("0x"):
                try:
                    lines.append(bytes(int(b, 16) for b in re.split(r"[,\s]+", l) if b))
                except ValueError:
                    continue
        for i in range(0, len(lines), LINES_PER_INPUT):
            put(out, bytes([sels[0]]) + b"".join(lines[i:i + LINES_PER_INPUT]))


def launch(out):
    n64 = bytes([64, 0, 0, 0]) * 3
    for f in sorted((ROOT / "workloads/bin").glob("*/*.co")):
        co = f.read_bytes()
        # gpu, mode (bit 0 timing; geometry, LDS and buffer fill 0), kernel, seed, scalars.
        for mode, kernel in [(0, 0), (0, 1), (1, 0)]:
            put(out, bytes([0, mode, kernel, 0]) + n64 + co)


def litmus(out):
    dirs = [FUZZ / "seeds/litmus", ROOT / "workloads/litmus", SHARED / "litmus"]
    for d in dirs:
        if not d.is_dir():
            print(f"note: {d} not found; no litmus seeds from it", file=sys.stderr)
            continue
        for f in sorted(d.rglob("*.litmus")):
            put(out, f.read_bytes())


TARGETS = {"load_code_object": load_code_object, "decode": decode, "launch": launch, "litmus": litmus}

if __name__ == "__main__":
    for name in sys.argv[1:] or TARGETS:
        if name not in TARGETS:
            sys.exit(f"unknown target {name}; one of {', '.join(TARGETS)}")
        d = FUZZ / "corpus" / name
        TARGETS[name](d)
        print(f"{d.relative_to(ROOT)}: {len(list(d.iterdir())) if d.is_dir() else 0} inputs")

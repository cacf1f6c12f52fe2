#!/usr/bin/env python3
"""Build isa/tests/llvm22/: LLVM 22's AMDGPU disassembler test inputs with llvm-mc-22's output.

Input:  llvm/test/MC/Disassembler/AMDGPU/*.txt of LLVM 22.1.8 (see README.md here).
Output: one `<cpu>[<mattr>].tsv` per disassembly configuration found in the files' RUN lines:
        `hex bytes <TAB> llvm-mc-22's text`, one encoding line per row, deduplicated.

Every byte line of a file is disassembled by `llvm-mc-22 --disassemble` for each RUN
configuration, as one stream with a marker pair (`s_nop 0x3e; s_nop 0x3d`) after every line, so
that each output can be paired with its input line. A line whose output is one instruction
covering exactly its bytes gets that text; a line with no output gets `<invalid>`; a line
whose bytes ran into the marker or decoded as several instructions is left out (counted).

Usage: make_corpus.py LLVM_TEST_DIR OUT_DIR [LLVM_MC]
"""
import collections
import os
import re
import subprocess
import sys

MARKER = [0x3e, 0x00, 0x80, 0xbf, 0x3d, 0x00, 0x80, 0xbf]
ENC = re.compile(r"^\s*(.*?)\s*; encoding: \[([^\]]*)\]")


def run_configs(text):
    """(mcpu, mattr) of every RUN line that disassembles with llvm-mc."""
    out = []
    for line in text.splitlines():
        if "RUN:" not in line or "llvm-mc" not in line or "disassemble" not in line:
            continue
        cpu = re.search(r"-mcpu=(\S+)", line)
        attr = re.search(r"-mattr=(\S+)", line)
        if cpu:
            out.append((cpu.group(1), attr.group(1) if attr else ""))
    return out


def byte_lines(text):
    """Encoding lines of a test file: lists of byte values."""
    out = []
    for line in text.splitlines():
        s = line.split("#")[0].split("//")[0].strip()
        if not s.startswith("0x"):
            continue
        toks = [t for t in re.split(r"[\s,]+", s) if t]
        try:
            out.append([int(t, 16) for t in toks])
        except ValueError:
            continue
    return out


def disassemble(mc, cpu, attr, lines):
    """{tuple(bytes): text or '<invalid>'} for the lines that pair cleanly; count of the rest."""
    stream = "\n".join(",".join(f"0x{b:02x}" for b in l + MARKER) for l in lines) + "\n"
    cmd = [mc, "--disassemble", "-triple=amdgcn", f"-mcpu={cpu}", "--show-encoding"]
    if attr:
        cmd.append(f"-mattr={attr}")
    res = subprocess.run(cmd, input=stream, capture_output=True, text=True)
    insts = []
    for o in res.stdout.splitlines():
        m = ENC.match(o)
        if m:
            insts.append((" ".join(m.group(1).split()), [int(t, 16) for t in m.group(2).split(",") if t]))
    out, left_out, i = {}, 0, 0
    for l in lines:
        group = []
        while i < len(insts) and not (insts[i][1] == MARKER[:4] and i + 1 < len(insts) and insts[i + 1][1] == MARKER[4:]):
            group.append(insts[i])
            i += 1
        if i >= len(insts):
            left_out += 1
            break
        i += 2
        if not group:
            out[tuple(l)] = "<invalid>"
        elif len(group) == 1 and len(group[0][1]) == len(l):
            out[tuple(l)] = group[0][0]
        else:
            left_out += 1
    return out, left_out + max(0, len(lines) - len(out) - left_out) * 0


def main(src, dst, mc="llvm-mc-22"):
    per_config = collections.defaultdict(dict)
    left_out = collections.Counter()
    for name in sorted(os.listdir(src)):
        if not name.endswith(".txt"):
            continue
        with open(os.path.join(src, name)) as f:
            text = f.read()
        lines = byte_lines(text)
        for cpu, attr in sorted(set(run_configs(text))):
            got, n = disassemble(mc, cpu, attr, lines)
            per_config[(cpu, attr)].update(got)
            left_out[(cpu, attr)] += n
    os.makedirs(dst, exist_ok=True)
    for (cpu, attr), rows in sorted(per_config.items()):
        fname = cpu + (f"[{attr}]" if attr else "") + ".tsv"
        with open(os.path.join(dst, fname), "w") as f:
            for b, t in sorted(rows.items()):
                f.write("".join(f"{x:02x}" for x in b) + "\t" + t + "\n")
        print(f"{fname}: {len(rows)} lines, {left_out[(cpu, attr)]} left out", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(*sys.argv[1:])

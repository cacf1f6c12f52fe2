#!/usr/bin/env python3
"""Writes the hip_api seed corpus: small programs in the byte encoding of
hip/src/fuzzing (one opcode byte, then the bytes each argument reads; see mod.rs,
state.rs and the *_ops.rs files there). Each seed is one misuse class of
workloads/hip/misuse_*.cpp in miniature, so that mutations start from calls that
reach the runtime's checks. Run from anywhere: python3 fuzz/hip_api_seeds.py (it writes
fuzz/seeds/hip_api/<name>.bin).
"""
import os

# Opcodes (step() in hip/src/fuzzing/mod.rs).
MALLOC, FREE, COPY, FILL, COPY2D, COPY3D, SYMBOL, QUERY, PITCHED, STREAM, EVENT, GRAPHS, MISC, KERNEL = 0, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
# Table indices (memory_ops.rs, launch_ops.rs).
A100, A4096, A16G, A1T, A0 = 2, 4, 10, 11, 0
L0, L4, L100, L101, L4096, L4097 = 0, 3, 5, 6, 7, 8
H2H, H2D, D2H, D2D, DEFAULT, BADKIND = 0, 1, 2, 3, 4, 6


def buf(i, where=0):
    """Buffer i at: 0 start, 1 middle, 2 last byte, 3 one past the end, 4 +1, 5 a page past."""
    return [1, i, where]


def host(i=0, where=0):
    return [4, i, where]


NULL = [0]
S0 = [0]          # the null stream
SNEW = [4, 0]     # the first stream the input made


def seeds():
    out = {}
    # Copies and fills one byte past a 100-byte allocation, and exactly to its end.
    out["bounds"] = (
        [MALLOC, A100, 0]
        + [COPY, L101] + buf(0) + host() + [H2D] + S0 + [0]
        + [COPY, L100] + buf(0) + host() + [H2D] + S0 + [0]
        + [COPY, L4] + host() + buf(0, 3) + [DEFAULT] + S0 + [0]
        + [FILL, L101] + buf(0) + [0x5a] + S0 + [0]
        + [FILL, L100] + buf(0) + [0x5a] + S0 + [0]
    )
    # Zero, huge and impossible sizes; frees of good, freed and bad pointers.
    out["sizes"] = (
        [MALLOC, A0, 0, MALLOC, A16G, 0, MALLOC, A1T, 0, MALLOC, A4096, 1, MALLOC, A4096, 2]
        + [FREE] + buf(0) + [0] + [FREE] + buf(0) + [0] + [FREE] + buf(1, 1) + [0] + [FREE] + NULL + [0]
    )
    # A stream used after destroy.
    out["streams"] = (
        [STREAM, 0, 0, 0]
        + [STREAM] + SNEW + [1] + [STREAM] + SNEW + [1] + [STREAM] + SNEW + [2]
        + [MALLOC, A4096, 0, COPY, L4096] + buf(0) + host() + [H2D] + SNEW + [1]
        + [KERNEL, 2, 2, 0, 0, 3, 0, 0, 0] + buf(0) + buf(0) + [2, 1] + SNEW + [0]
    )
    # Events: record, elapsed, destroy twice, never recorded.
    out["events"] = (
        [EVENT, 0, 0, 0, 0, EVENT, 0, 0, 0, 0]
        + [EVENT, 2, 0, 2, 1] + S0 + [2]
        + [EVENT, 2, 0, 2, 1] + S0 + [5]
        + [EVENT, 2, 0, 2, 1] + S0 + [1]
        + [EVENT, 2, 0, 2, 1] + S0 + [1]
        + [EVENT, 2, 1, 2, 1] + S0 + [3]
    )
    # Launches: good, empty grid, big block, too much LDS, unknown stub.
    good = [2, 2, 0, 0, 3, 0, 0, 0]  # registered stub; grid 2; block 64; no LDS
    out["launch"] = (
        [MALLOC, A4096, 0, MALLOC, A4096, 0]
        + [KERNEL] + good + buf(0) + buf(1) + [2, 1] + S0 + [0]
        + [KERNEL, 2, 0, 0, 0, 3, 0, 0, 0] + buf(0) + buf(1) + [2, 1] + S0 + [0]
        + [KERNEL, 2, 2, 0, 0, 5, 0, 0, 0] + buf(0) + buf(1) + [2, 1] + S0 + [0]
        + [KERNEL, 2, 2, 0, 0, 3, 0, 0, 4] + buf(0) + buf(1) + [2, 1] + S0 + [2]
        + [KERNEL, 0, 2, 0, 0, 3, 0, 0, 0] + buf(0) + buf(1) + [2, 1] + S0 + [0]
    )
    # vadd from the first function: 2 groups of 64, no LDS, hipModuleLaunchKernel; a, b, c
    # the first buffer; n = 64; kernelParams; the null stream.
    launch_vadd = [2, 0, 2, 0, 0, 3, 0, 0, 0, 0] + buf(0) + buf(0) + buf(0) + [2, 0, 0, 2] + S0
    # A module: load, look up, launch, unload twice, launch again.
    out["module"] = (
        [MALLOC, A4096, 0]
        + [MISC, 1, 0, 0, 0]
        + [MISC, 1, 2, 0, 1, 2]
        + [MISC, 2] + launch_vadd
        + [MISC, 1, 2, 0, 1, 4]
        + [MISC, 1, 2, 0, 1, 4]
        + [MISC, 2] + launch_vadd
    )
    # Capture a kernel into a graph, instantiate, launch, destroy twice.
    out["graphs"] = (
        [MALLOC, A4096, 0, STREAM, 0, 0, 0]
        + [GRAPHS] + SNEW + [0, 0, 0, 0]
        + [KERNEL] + good + buf(0) + buf(0) + [2, 1] + SNEW + [0]
        + [GRAPHS] + SNEW + [0, 0, 1]
        + [GRAPHS] + S0 + [2, 0, 0, 4]
        + [GRAPHS] + S0 + [0, 2, 0, 5]
        + [GRAPHS] + S0 + [0, 2, 0, 6]
        + [GRAPHS] + S0 + [0, 2, 0, 5]
        + [GRAPHS] + S0 + [2, 0, 0, 7]
        + [GRAPHS] + S0 + [2, 0, 0, 7]
    )
    # hipDeviceReset, then the old buffer and stream.
    out["reset"] = (
        [MALLOC, A4096, 0, STREAM, 0, 0, 0]
        + [MISC, 0, 0]
        + [COPY, L4] + buf(0) + host() + [H2D] + S0 + [0]
        + [FREE] + buf(0) + [0]
        + [STREAM] + SNEW + [2]
        + [KERNEL] + good + buf(0) + buf(0) + [2, 1] + S0 + [0]
    )
    # Pitched allocations, 2D and 3D copies and fills past them.
    out["pitched"] = (
        [PITCHED, 3, 2, 1, 0]
        + [COPY2D, 3, 2, 4, 4] + buf(0) + host() + [H2D] + S0 + [0]
        + [COPY2D, 3, 4, 4, 4] + buf(0) + host() + [H2D] + S0 + [0]
        + [COPY3D, 3, 2, 2, 4, 4, 2, 2] + buf(0) + host() + [H2D] + S0 + [0]
        + [COPY3D, 3, 2, 3, 4, 4, 2, 2] + buf(0) + host() + [H2D] + S0 + [2, 0]
    )
    # Symbols: in bounds, past the variable, an unknown symbol, a bad kind.
    out["symbols"] = (
        [SYMBOL, 0, 2, 0] + host() + [H2D] + S0 + [0]
        + [SYMBOL, 0, 3, 0] + host() + [H2D] + S0 + [0]
        + [SYMBOL, 0, 2, 1] + host() + [H2D] + S0 + [0]
        + [SYMBOL, 1, 2, 0] + host() + [H2D] + S0 + [0]
        + [SYMBOL, 0, 2, 0] + host() + [D2H] + S0 + [0]
        + [SYMBOL, 0, 2, 0] + host() + [D2H] + S0 + [2]
        + [QUERY, 7, 0, 0, QUERY, 0, 3]
    )
    return out


def main():
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds", "hip_api")
    os.makedirs(here, exist_ok=True)
    for name, data in seeds().items():
        assert all(0 <= b < 256 for b in data), name
        with open(os.path.join(here, name + ".bin"), "wb") as f:
            f.write(bytes(data))


if __name__ == "__main__":
    main()

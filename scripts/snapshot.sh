#!/usr/bin/env bash
# Behaviour snapshot for restructuring work: everything a behaviour-preserving change must
# leave byte-identical. Run it with the binary before and after the change and diff the two
# directories:
#
#   scripts/snapshot.sh target/release/hipscope /tmp/before      # on the old commit
#   scripts/snapshot.sh target/release/hipscope /tmp/after       # on the new one
#   diff -r -I '"path": ' /tmp/before /tmp/after
#
# (a sweep's plan.json records its workloads' paths relative to the output directory, so they
# differ between checkouts in different places).
#
# What it records: the scope suite on every built-in GPU of the suite (JSON, CSV and the
# Markdown report), every validation dataset found (JSON), the committed sweeps' results, the
# timing traces and counters of four workloads, and the grader's JSON over every litmus file of
# the repository and of ../shared/litmus (when present). Wall-clock fields are blanked.
# BIN needs hipscope's HIP runtime (libamdhip64.so) beside it, as `cargo build --release` leaves
# it in target/release (copy both when keeping a binary for later).
# Needs ../shared for validation data and the shared litmus catalogues; what it cannot find is
# listed in OUT/SKIPPED.
set -euo pipefail

bin=$(realpath "$1")
out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
shared=$root/../shared
mkdir -p "$out"
out=$(realpath "$out")
: >"$out/SKIPPED"
cd "$root"

# Fields that measure the host, not the simulation.
scrub() { sed -E 's/"(wall|elapsed|host)_[a-z_]*(s|ms|seconds)": *[0-9.e+-]+/"\1_time": 0/g'; }

step() { printf '%s\n' "$*" >&2; }

step "scopes"
"$bin" scopes --json --out "$out/scopes" | scrub >"$out/scopes.json"
"$bin" scopes --csv --out "$out/scopes-csv" >"$out/scopes.csv"
rm -f "$out"/scopes*/*.svg # plots repeat the numbers above

step "validate"
if [ -d "$shared/device-data" ]; then
    for only in vcopy latency bandwidth mixbench; do
        "$bin" validate --only "$only" --json 2>/dev/null | scrub >"$out/validate-$only.json" || true
    done
else
    echo "validate: ../shared/device-data not found" >>"$out/SKIPPED"
fi
if [ -d "$shared/apps/mgpusim-gpu-perf" ]; then
    # Whole programs under `exec`: the rows of real time up to APPS_MAX_REAL_MS (the full
    # dataset takes about 25 minutes; SNAPSHOT_APPS_MAX_REAL_MS=1 runs all of it).
    "$bin" validate --only apps --json --apps-max-real-ms "${SNAPSHOT_APPS_MAX_REAL_MS:-0.02}" \
        2>/dev/null | scrub >"$out/validate-apps.json" || true
else
    echo "validate: ../shared/apps/mgpusim-gpu-perf not found" >>"$out/SKIPPED"
fi

step "sweeps"
for plan in agent-fence-xcds-mi300x cu-wgp-rx7900xtx vcopy-l2-mi210; do
    "$bin" sweep "workloads/sweeps/$plan.ron" --out "$out/sweeps/$plan" >/dev/null 2>&1 || true
    rm -rf "$out/sweeps/$plan/plots"
    for f in "$out/sweeps/$plan"/*; do scrub <"$f" >"$f.tmp" && mv "$f.tmp" "$f"; done
    # Worker processes finish points in any order; the shard file records them as they end.
    for f in "$out/sweeps/$plan"/shard-*.jsonl; do LC_ALL=C sort "$f" -o "$f"; done
done

step "traces"
for w in vadd lds_reduce spin_lock histogram; do
    for gpu in mi300x rx7900xtx; do
        "$bin" run "workloads/$w.ron" --gpu "$gpu" --mode timing --json \
            --trace "$out/trace-$w-$gpu.json" --counters "$out/counters-$w-$gpu.csv" \
            2>&1 | scrub >"$out/run-$w-$gpu.json" || true
    done
done

step "grade"
grade_dir() {
    local name=$1 dir=$2
    find "$dir" -name '*.litmus' | LC_ALL=C sort | while read -r f; do
        printf '== %s\n' "${f#"$dir"/}"
        "$bin" grade --json "$f" 2>&1 | scrub || true
    done >"$out/grade-$name.txt"
}
grade_dir repo workloads/litmus
if [ -d "$shared/litmus" ]; then
    grade_dir shared "$shared/litmus"
else
    echo "grade: ../shared/litmus not found" >>"$out/SKIPPED"
fi
step "done: $out"

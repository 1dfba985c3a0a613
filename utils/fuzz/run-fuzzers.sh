#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, -fsanitize=fuzzer,address,undefined)
# in their own build directory and runs each one for a bounded time, one at
# a time with -jobs=1 (fork mode: a crash is recorded and fuzzing goes on).
# Prints the executions of each target and every crash, out-of-memory
# abort (-rss_limit_mb=4096) or timeout it found; exits 1 if any.
#
#   utils/fuzz/run-fuzzers.sh [SECONDS_PER_TARGET [TARGET...]]
#
# SECONDS_PER_TARGET defaults to 60; ASMEVO_FUZZ_PARALLEL=N runs N targets at
# a time. Seeds are made at run time from the
# test kernels of the main build (ASMEVO_BUILD_DIR, default build/; run
# utils/run-tests.sh or utils/build.sh first) and, when present, from
# ../shared/corpus (ASMEVO_CORPUS_DIR); nothing is copied into the sources.
# Fuzzing state lives in ASMEVO_FUZZ_DIR (default build-fuzz/): the corpus
# each target grew is reused by the next run; findings are in
# build-fuzz/fuzz-work/TARGET/artifacts/ (reproduce: build-fuzz/fuzz/bin/TARGET FILE).
# With no targets named it then runs the emulator's random-program check
# (asmevo-emu-random-programs, gfx942 and gfx90a) in the same build.
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
secs="${1:-60}"
shift || true
build="${ASMEVO_BUILD_DIR:-$here/build}"
fuzz="${ASMEVO_FUZZ_DIR:-$here/build-fuzz}"
corpus="${ASMEVO_CORPUS_DIR:-$here/../shared/corpus}"
jobs="${ASMEVO_JOBS:-2}"
all=(fuzz-code-object fuzz-bundle fuzz-lift fuzz-mir fuzz-asm
     fuzz-launch-spec fuzz-address-map fuzz-npy fuzz-mcp fuzz-edit-script
     fuzz-pc-profile)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

kernels="$build/test/kernels"
opt="$build/bin/asmevo-opt"
if [ ! -x "$opt" ] || [ ! -f "$kernels/suite_relu-gfx942.co" ]; then
  echo "run-fuzzers: no test kernels or asmevo-opt in $build (run utils/build.sh first)" >&2
  exit 2
fi
# The programs CMake found for the main build (cmake/AsmEvoTools.cmake).
tool() { /usr/bin/python3 "$here/utils/asmevo_tools.py" "$build" "$1"; }

t0=$(date +%s)
if [ ! -f "$fuzz/build.ninja" ]; then
  cmake -G Ninja -S "$here" -B "$fuzz" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELEASE=-O1 -DNDEBUG" \
    -DASMEVO_ENABLE_FUZZERS=ON ${ASMEVO_CMAKE_ARGS:-} >/dev/null
fi
ninja -C "$fuzz" -j"$jobs" asmevo-fuzzers asmevo-emu-random-programs >/dev/null
t1=$(date +%s)
echo "run-fuzzers: built in $((t1 - t0)) s"

# --- Seeds, made fresh every run ------------------------------------------
seeds="$fuzz/fuzz-seeds"
rm -rf "$seeds"
for t in "${all[@]}"; do mkdir -p "$seeds/$t"; done
small=(suite_relu loop device_call suite_softmax_rows preload divergence)
for k in "$kernels"/*.co; do
  cp "$k" "$seeds/fuzz-code-object/"
done
for k in "${small[@]}"; do
  for a in gfx942 gfx90a; do
    co="$kernels/$k-$a.co"
    [ -f "$co" ] || continue
    cp "$co" "$seeds/fuzz-lift/"
    "$opt" "$co" --emit=mir -o "$seeds/fuzz-mir/$k-$a.mir" 2>/dev/null || true
    "$opt" "$co" --emit=asm -o "$seeds/fuzz-asm/$k-$a.s" 2>/dev/null || true
  done
done
if [ -d "$corpus" ]; then
  # The smallest third-party objects: seeds outside the source tree only.
  # (Read whole, then cut: `sort | head` under pipefail fails with SIGPIPE
  # whenever head closes before sort has written everything.)
  mapfile -t small_corpus < <(find "$corpus" -name '*.co' -size -200k | sort)
  for f in "${small_corpus[@]:0:24}"; do
    n="corpus-$(echo "$f" | md5sum | cut -c1-12).co"
    cp "$f" "$seeds/fuzz-code-object/$n"
    cp "$f" "$seeds/fuzz-lift/$n"
  done
fi
b="$seeds/fuzz-bundle"
"$(tool clang-offload-bundler)" -type=o \
  -targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx942,hipv4-amdgcn-amd-amdhsa--gfx90a \
  -input=/dev/null -input="$kernels/suite_relu-gfx942.co" -input="$kernels/loop-gfx90a.co" \
  -output="$b/plain.bundle"
"$(tool clang-offload-bundler)" -type=o -compress \
  -targets=host-x86_64-unknown-linux-gnu,hipv4-amdgcn-amd-amdhsa--gfx942 \
  -input=/dev/null -input="$kernels/suite_relu-gfx942.co" -output="$b/compressed.bundle" 2>/dev/null
echo 'main: ret' | "$(tool llvm-mc)" -filetype=obj -triple=x86_64-unknown-linux-gnu -o "$b/host.o"
"$(tool llvm-objcopy)" --add-section .hip_fatbin="$b/plain.bundle" "$b/host.o" "$b/app.o"
rm "$b/host.o"
cp "$kernels/suite_relu-gfx942.co" "$b/"
for s in "$here"/test/kernels/suite/specs/*.yaml "$here"/test/Verify/Inputs/*.yaml; do
  cp "$s" "$seeds/fuzz-launch-spec/"
done
printf '%s\n' 'ceil_div(n, 256) * 4 + (m % 3)' 'min(n, 1 << 20) / 2' \
  '-(n - 1) * 8' > "$seeds/fuzz-launch-spec/expr.txt"
# MCP sessions and agent answers: the messages the protocol tests send.
cp "$here"/test/Agent/Inputs/mcp-requests.jsonl "$here"/test/Agent/Inputs/llm-session.jsonl \
  "$seeds/fuzz-mcp/"
am="$seeds/fuzz-address-map"
work="$fuzz/fuzz-work"
mkdir -p "$work"
"$opt" "$kernels/suite_relu-gfx942.co" -run-pass=insert-nops \
  --address-map="$am/relu.map" -o "$work/relu-nops.co"
export ASMEVO_FUZZ_K0="$kernels/suite_relu-gfx942.co"
# Edit scripts: the tests' hand-written ones (stale, hostile, over limits
# among them) and what the optimizer records of -O2 on small kernels.
es="$seeds/fuzz-edit-script"
cp "$here"/test/Transforms/Inputs/apply-edits/*.json "$es/"
for k in suite_relu suite_softmax_rows loop; do
  "$opt" "$kernels/$k-gfx942.co" -passes=O2 --record-edits="$es/rec-$k.json" \
    -o "$work/rec-$k.co" 2>/dev/null || true
done
cp "$here"/test/Search/Inputs/*.json "$here"/test/Search/Inputs/*.csv \
  "$seeds/fuzz-pc-profile/"
export ASMEVO_FUZZ_K1="$work/relu-nops.co"
python3 - "$seeds/fuzz-npy" <<'PY'
import struct, sys
out = sys.argv[1]
# Byte 0: element type (bits 1..) and raw (bit 0); bytes 1-4: the count.
for i, (descr, n, es) in enumerate([("<f4", 16, 4), ("<f2", 8, 2),
                                    ("<f8", 4, 8), ("<i4", 3, 4),
                                    ("|u1", 10, 1), ("<i8", 2, 8)]):
    tsel = {"<f4": 0, "<f2": 1, "<f8": 3, "<i4": 4, "|u1": 5, "<i8": 6}[descr]
    hdr = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, n)
    hdr += " " * ((64 - (10 + len(hdr) + 1) % 64) % 64) + "\n"
    npy = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode()
    npy += bytes(n * es)
    open("%s/npy%d" % (out, i), "wb").write(bytes([tsel << 1]) + struct.pack("<I", n) + npy)
    open("%s/raw%d" % (out, i), "wb").write(bytes([(tsel << 1) | 1]) + struct.pack("<I", n) + bytes(n * es))
PY

# --- Fuzzing ----------------------------------------------------------------
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
export TMPDIR="$work"
# ASMEVO_FUZZ_PARALLEL targets run at a time (default 1): the long runs
# outside CI use both cores; each target's table line is printed when all
# of them are done, in the order given.
parallel="${ASMEVO_FUZZ_PARALLEL:-1}"
fuzz_one() {
  local t="$1" d="$work/$1"
  mkdir -p "$d/corpus" "$d/artifacts"
  local before s0 s1 execs after new what
  before=$(ls "$d/artifacts" | wc -l)
  s0=$(date +%s)
  "$fuzz/fuzz/bin/$t" -fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 \
    -max_total_time="$secs" -rss_limit_mb=4096 -timeout=30 -max_len=1048576 \
    -artifact_prefix="$d/artifacts/" "$d/corpus" "$seeds/$t" >"$d/log" 2>&1 || true
  s1=$(date +%s)
  execs=$( (grep -oE '^#[0-9]+' "$d/log" || true) | tail -1 | tr -d '#')
  after=$(ls "$d/artifacts" | wc -l)
  new=$((after - before))
  what="none"
  if [ "$new" -gt 0 ]; then
    what="$new new: $(ls -t "$d/artifacts" | head -n "$new" | tr '\n' ' ' || true)"
  fi
  printf '%-18s %12s %8s  %s\n' "$t" "${execs:-?}" "$((s1 - s0))" "$what" >"$d/result"
}
running=0
for t in "${targets[@]}"; do
  fuzz_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$parallel" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait
found=0
printf '%-18s %12s %8s  %s\n' target executions seconds findings
for t in "${targets[@]}"; do
  cat "$work/$t/result"
  grep -q ' none$' "$work/$t/result" || found=1
done

# --- The emulator on random programs (issue 11), in this ASan + UBSan build:
# a sanitizer report aborts the run (exit status non-zero), and every
# implemented opcode must have run. Skipped when targets were named.
if [ $# -eq 0 ]; then
  for isa in gfx942 gfx90a; do
    r0=$(date +%s)
    if "$fuzz/bin/asmevo-emu-random-programs" --isa "$isa" --length 8 \
        >"$work/random-programs-$isa.log" 2>&1; then
      echo "random-programs $isa ($(( $(date +%s) - r0 )) s): $(tail -1 "$work/random-programs-$isa.log")"
    else
      found=1
      echo "random-programs $isa: FAILED ($work/random-programs-$isa.log):"
      tail -20 "$work/random-programs-$isa.log"
    fi
  done
fi
if [ "$found" -ne 0 ]; then
  echo "run-fuzzers: findings above; logs in $work/TARGET/log" >&2
  exit 1
fi

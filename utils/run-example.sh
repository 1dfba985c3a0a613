#!/usr/bin/env bash
# The main job on a bundled example: -O2 behind the gate on a gfx942 suite
# kernel and its launch spec (kept only if the emulator finds it equivalent
# and the cycle model robustly faster; the report says which), after a tour
# of the lifter: what was recovered from a kernel calling a device function
# that reads a device global, its MachineIR, an identity rebuild through
# lld, moved code and its verification.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
"$here/utils/build.sh"
build="${ASMEVO_BUILD_DIR:-$here/build}"
k="$build/test/kernels/device_call-gfx942.co"
opt="$build/bin/asmevo-opt"
out="$build/example"
mkdir -p "$out"
echo "== What was recovered ($k)"
"$opt" "$k" --info | sed -n '1,/^kernels:/p'
echo "== Lifted MachineIR of the device function (excerpt)"
"$opt" "$k" --emit=mir -o "$out/device_call.mir"
sed -n '/^name: *_Z/,/^\.\.\./p' "$out/device_call.mir" | grep -v '^  *$' | head -40
echo "== Rebuild through lld"
"$opt" "$k" -o "$out/device_call.rebuilt.co" --address-map="$out/device_call.map"
cmp "$k" "$out/device_call.rebuilt.co" && echo "identity rebuild: byte-identical ($(stat -c %s "$k") bytes)"
echo "== Moving code: an s_nop at the top of every block"
"$opt" "$k" -run-pass=insert-nops --verify-each -o "$out/device_call.nops.co" --address-map="$out/device_call.nops.map"
echo "rebuilt with moved code: $out/device_call.nops.co (address map: $out/device_call.nops.map)"
echo "== Round-trip check"
"$opt" "$k" --roundtrip-check
echo "== Verify the moved code against the original (the emulator is the oracle here: no GPU)"
s="$here/test/kernels/suite/specs/softmax_rows.yaml"
sk="$build/test/kernels/suite_softmax_rows-gfx942.co"
"$opt" "$sk" -run-pass=insert-nops -o "$out/softmax.nops.co" --address-map="$out/softmax.nops.map"
"$build/bin/asmevo-verify" check "$sk" "$out/softmax.nops.co" --spec "$s" \
  --address-map="$out/softmax.nops.map" --receipt "$out/softmax.receipt.json"
echo "receipt: $out/softmax.receipt.json"
echo "== The main job: -O2 behind the gate (verifier + cycle model; no GPU here, so every time is the model's)"
tk="$build/test/kernels/suite_topk_rows-gfx942.co"
"$opt" "$tk" -O2 --spec "$here/test/kernels/suite/specs/topk_rows.yaml" \
  -o "$out/topk_rows.O2.co" --report="$out/topk_rows.O2.json"
echo "optimized: $out/topk_rows.O2.co (report: $out/topk_rows.O2.json)"

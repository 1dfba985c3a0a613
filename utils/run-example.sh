#!/usr/bin/env bash
# The main job on a bundled example: lift a HIP kernel built for gfx942
# (a kernel calling a device function that reads a device global), rebuild
# it through lld, and show what was recovered and that nothing changed.
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

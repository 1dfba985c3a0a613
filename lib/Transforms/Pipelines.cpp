//===- Pipelines.cpp - The -O1 and -O2 pass lists -------------------------===//
//
// -O1 changes only what keeps every instruction where it is or removes
// instructions without reordering the rest: wait counts and s_nops. Those
// edits are also the ones an in-place patch can carry.
//
// -O2 adds the passes that move, merge and rewrite instructions, in this
// order, for these reasons:
//   0. exec-if-flatten, then loop-unroll: unrolling copies loop bodies, so
//      every later pass (and above all schedule-window, which can then
//      issue the second iteration's loads before the first one's wait)
//      sees every copy; exec-if-flatten first makes single blocks of the
//      loops whose body is a row of ifs over masked loads, which a
//      compare-exited loop's guarded unroll then issues heads first
//      (gemm_mfma_bf16's K loop in the cycle model: 1.03x -> 1.22x on
//      gfx942, 1.02x -> 1.26x on gfx90a).
//      exec-loop-pipeline next, for the same reason, on the loops whose
//      lanes leave as they finish (every strided row loop of the suite):
//      four iterations' loads in flight per trip instead of one is what
//      the latency-bound reductions need (reduce_sum_rows 1.20x,
//      reduce_max_rows 1.25x, histogram 2.98x, layernorm 1.13x in the
//      cycle model); two copies left most of their latency exposed.
//      exec-loop-flatten before it makes the loops whose body is an if
//      over masked loads (gemm_mfma_f16's tile staging: 1.33x) single
//      blocks it can take; exec-if-flatten before it merges the ifs nested
//      in such a body (conv_bn_relu's row and column bounds) and leaves a
//      loop's own guard to it. exec-if-flatten also puts consecutive
//      guarded loads in one block, where hoist-guarded-load overlaps them
//      (matmul_tiled 1.23x, batched_matmul 1.36x). exec-loop-flatten and
//      hoist-guarded-load run before both loop passes, which can then take
//      a loop whose second load hoist-guarded-load lifted out of its guard
//      block: exec-loop-pipeline batched_matmul's tile staging (1.37x ->
//      1.67x), loop-unroll matmul_tiled's K loop (1.24x -> 1.61x; the
//      other kernels' results are unchanged by the order).
//   1. redundancy-elim: dead writes and duplicate moves removed
//      give every later pass less to look at and fewer false dependencies.
//   2. fold-address-step, scalarize, pack-f32, mem-widen: they change
//      *which* instructions there are (one pointer step for an unrolled
//      loop's several, the rest in load offsets: matmul_naive 2.16x ->
//      2.27x on gfx90a, conv1d 1.38x -> 1.42x; SALU for VALU, one packed
//      op for two, one wide load for several); the scheduler must see the
//      final instruction mix.
//   3. schedule-window: orders each block for the final mix, renumbering
//      the waits it moves past memory operations.
//   4. sink-waitcnt, relax-waitcnt, nop-shrink: after scheduling, every
//      wait and s_nop is placed and sized for the order that will run.
//   5. setprio, block-layout: touch only control flow and priority, so
//      nothing after them needs to be recomputed.
// regalloc-compact is not in -O2: after -O2's passes, none of the suite's
// kernels (gfx942 and gfx90a) has a hole whose removal drops a VGPR
// granule, so it would change nothing there (the AGPR and SGPR files were
// checked only on the objects as compiled: none of the 107 test kernels'
// objects changes), and it has not been run over the corpus behind the
// gate. Its place would be after the passes that
// delete or rename register uses, before schedule-window. Run it with
// -passes=.
// A pass not built yet is simply absent from the list (the list holds
// only registered passes, see optimizationPipeline()).
//
//===----------------------------------------------------------------------===//
#include "asmevo/Transforms/Pass.h"

using namespace llvm;
using namespace asmevo;

std::vector<std::string> asmevo::optimizationPipeline(unsigned Level) {
  static const char *const O1[] = {"relax-waitcnt", "nop-shrink"};
  static const char *const O2[] = {
      "exec-if-flatten", "exec-loop-flatten", "hoist-guarded-load", "loop-unroll",
      "exec-loop-pipeline", "redundancy-elim", "fold-address-step",
      "scalarize",       "pack-f32",        "mem-widen",
      "schedule-window", "sink-waitcnt", "relax-waitcnt", "nop-shrink",
      "setprio",         "block-layout"};
  std::vector<std::string> Out;
  if (Level == 0)
    return Out;
  auto Add = [&](ArrayRef<const char *> Names) {
    for (const char *N : Names)
      if (findPass(N))
        Out.push_back(N);
  };
  if (Level == 1)
    Add(O1);
  else
    Add(O2);
  return Out;
}

Expected<std::vector<std::string>> asmevo::expandPipeline(StringRef Pipeline) {
  SmallVector<StringRef, 8> Names;
  Pipeline.split(Names, ',', -1, false);
  std::vector<std::string> Out;
  for (StringRef N : Names) {
    N = N.trim();
    if (N == "O1" || N == "O2") {
      auto P = optimizationPipeline(N == "O1" ? 1 : 2);
      Out.insert(Out.end(), P.begin(), P.end());
      continue;
    }
    auto Spec = parsePassSpec(N);
    if (!Spec)
      return Spec.takeError();
    Out.push_back(Spec->str());
  }
  return Out;
}

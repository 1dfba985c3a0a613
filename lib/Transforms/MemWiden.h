//===- MemWiden.h - Adjacent memory accesses into one wide one --*- C++ -*-===//
#ifndef ASMEVO_LIB_TRANSFORMS_MEMWIDEN_H
#define ASMEVO_LIB_TRANSFORMS_MEMWIDEN_H

#include "RewriteGuard.h"
#include "asmevo/Transforms/Pass.h"

namespace asmevo {

/// Merges accesses of one block that use the same address registers:
///  - global_load/store_dword{,x2,x3} at consecutive offsets into
///    dwordx2/x3/x4, when the data registers are consecutive and start
///    even (64-bit tuples are even-aligned on gfx90a/gfx94x);
///  - ds_read_b32 pairs into ds_read2_b32 and ds_write_b32 pairs into
///    ds_write2_b32 (offsets in dwords, 0..255).
/// Alignment: a global dwordxN access needs no more alignment than its
/// dwords (aligned mode ignores the two low address bits of every dword
/// access, unaligned mode takes any address), so the merge is exact for
/// any address; ds_read_b64/b128 need 8/16-byte alignment, which the pass
/// cannot prove, so it uses read2/write2 (dword alignment) and leaves
/// offsets that are not dword multiples alone. Buffer accesses (range
/// checks per dword) are left alone. The later access moves up to the
/// earlier one, so nothing in between may be a memory access, wait,
/// branch or barrier, or touch its registers. The waits after a merged
/// pair count one operation less: their counters are lowered by one while
/// the merged operation may still be in flight, and the waitcnt and hazard
/// analyses must find no new violation (else the merge is undone).
class MemWidenPass : public Pass {
public:
  llvm::StringRef name() const override { return "mem-widen"; }
  llvm::Expected<bool> run(LiftedModule &LM, LiftedFunction &LF) override;

private:
  FactsCache Facts;
};

} // namespace asmevo

#endif

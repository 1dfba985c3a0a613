//===- Uncached.h - The analyses AnalysisCache memoizes, uncached -*- C++ -*-//
#ifndef ASMEVO_LIB_ANALYSIS_UNCACHED_H
#define ASMEVO_LIB_ANALYSIS_UNCACHED_H

#include "asmevo/Analysis/Hazards.h"
#include "asmevo/Analysis/LDSPartition.h"
#include "asmevo/Analysis/Waitcnt.h"

namespace asmevo {
namespace uncached {

std::vector<HazardHit> checkHazards(const InstrSeq &Seq, const ISAFacts &F);
WaitcntResult analyzeWaitcnts(const InstrSeq &Seq, const ISAFacts &F,
                              const WaitcntOptions &Opts);
std::optional<LDSPartition> proveWavePrivateLDS(const llvm::MachineFunction &MF,
                                                const ISAFacts &F,
                                                unsigned WorkItemIDDims,
                                                std::string &WhyNot);

} // namespace uncached
} // namespace asmevo

#endif

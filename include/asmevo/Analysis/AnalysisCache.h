//===- AnalysisCache.h - The whole-function checks, memoized ----*- C++ -*-===//
//
// The optimizer asks the same questions many times: the static checks run
// after every pass on every function, a pass re-analyzes a function after
// its edits, and the subset search rebuilds each candidate from K0, so
// K0's functions and every state a shared prefix of passes reaches are
// analyzed again and again. checkHazards, analyzeWaitcnts and
// proveWavePrivateLDS are pure functions of what they read, so their
// answers are kept, keyed by that input in full (every field of every
// InstrRecord, the block structure, the target, the options; for the LDS
// proof the MachineFunction's FunctionKey): a hit is the same input word
// for word, never a hash match alone, and returns the answer the analysis
// would compute. An input the key cannot spell exactly is analyzed
// uncached. (The soft-clause check costs less than its key: not memoized.)
//
// Process-wide, least recently used entries dropped past a memory budget.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_ANALYSIS_ANALYSISCACHE_H
#define ASMEVO_ANALYSIS_ANALYSISCACHE_H

#include <cstddef>
#include <cstdint>

namespace asmevo {

struct AnalysisCacheStats {
  uint64_t Hits = 0, Misses = 0, Uncacheable = 0;
  size_t Bytes = 0; ///< Keys and answers held now.
};

/// On by default; off computes every answer afresh (for comparing).
void setAnalysisCacheEnabled(bool On);
bool analysisCacheEnabled();
/// Budget in bytes (keys and answers); 0 restores the default.
void setAnalysisCacheBudget(size_t Bytes);
AnalysisCacheStats analysisCacheStats();
void clearAnalysisCache();

} // namespace asmevo

#endif

//===- StaticCost.h - Issue cycles of the code, without running it -*- C++ -*-//
//
// What --trust-static decides by: with no launch to trace there are no trip
// counts, no addresses and no stalls, so this counts only the issue cycles
// the cycle model's parameters give each instruction (VALU 4 on a SIMD16,
// transcendental 16, MFMA 4 per pass, s_nop N+1, a taken branch's refetch
// not included), each block weighted by 8 per enclosing loop. It can say an
// edit adds work; it cannot say an edit hides latency. A candidate passes
// it only when no function's weighted cycles went up.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_REWRITE_STATICCOST_H
#define ASMEVO_REWRITE_STATICCOST_H

#include "asmevo/Lift/LiftedModule.h"
#include <map>
#include <set>
#include <string>

namespace asmevo {
namespace timing {
struct TimingConfig;
}

/// Weighted issue cycles per simple function, by name (only those of
/// \p Only when given).
std::map<std::string, double>
staticCost(LiftedModule &LM, const timing::TimingConfig &C,
           const std::set<std::string> *Only = nullptr);

} // namespace asmevo

#endif

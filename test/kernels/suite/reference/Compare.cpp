//===- Compare.cpp --------------------------------------------------------===//
#include "Compare.h"
#include "llvm/Support/Format.h"

using namespace llvm;
using namespace asmevo::suite;

CompareResult asmevo::suite::compareOutput(StringRef Name,
                                           const HostBuffer &Got,
                                           const ExpectedBuffer &Exp,
                                           Tolerance Tol, raw_ostream &OS,
                                           unsigned MaxReported) {
  CompareResult R;
  R.Count = Got.count();
  bool Bitwise = !isFloatType(Got.type()) || Tol.exact();
  // Expected values rounded to the element type, for bitwise comparison.
  HostBuffer Rounded(Got.type(), Got.count());
  for (uint64_t I = 0; I < R.Count; ++I) {
    double E = Exp.Values[I], G = Got.get(I);
    bool Ok;
    double Allowed = 0, Diff = 0;
    if (Bitwise) {
      Rounded.set(I, E);
      Ok = Rounded.getBits(I) == Got.getBits(I);
      Diff = Ok ? 0 : std::fabs(G - E);
    } else if (std::isnan(E)) {
      Ok = std::isnan(G);
    } else if (std::isinf(E)) {
      Ok = G == E;
    } else {
      double Scale = std::isnan(Exp.Scales[I]) ? std::fabs(E) : Exp.Scales[I];
      Allowed = Tol.Abs + Tol.Rel * Scale;
      Diff = std::fabs(G - E);
      Ok = Diff <= Allowed; // false for a NaN result
      double Ratio = Allowed > 0 ? Diff / Allowed : (Diff > 0 ? INFINITY : 0);
      if (Ok && Ratio > R.WorstRatio) {
        R.WorstRatio = Ratio;
        R.WorstIndex = I;
      }
    }
    if (Ok)
      continue;
    if (R.Mismatches++ < MaxReported) {
      OS << "  " << Name << "[" << I << "]: got " << format("%.9g", G)
         << ", expected " << format("%.9g", E);
      if (!Bitwise)
        OS << ", |diff| " << format("%.3g", Diff) << " > allowed "
           << format("%.3g", Allowed);
      OS << "\n";
    }
  }
  return R;
}

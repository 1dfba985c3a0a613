//===- CandidateWire.cpp --------------------------------------------------===//
#include "asmevo/Search/CandidateWire.h"
#include <cstring>

using namespace llvm;

namespace asmevo {

namespace {
struct Writer {
  std::string Out;
  void u64(uint64_t V) { Out.append(reinterpret_cast<char *>(&V), 8); }
  void f64(double V) {
    uint64_t B;
    std::memcpy(&B, &V, 8);
    u64(B);
  }
  void str(StringRef S) {
    u64(S.size());
    Out.append(S.data(), S.size());
  }
};

struct Reader {
  StringRef In;
  bool Bad = false;
  uint64_t u64() {
    uint64_t V = 0;
    if (In.size() < 8) {
      Bad = true;
      return 0;
    }
    std::memcpy(&V, In.data(), 8);
    In = In.drop_front(8);
    return V;
  }
  double f64() {
    uint64_t B = u64();
    double V;
    std::memcpy(&V, &B, 8);
    return V;
  }
  std::string str() {
    uint64_t N = u64();
    if (N > In.size()) {
      Bad = true;
      return {};
    }
    std::string S = In.take_front(N).str();
    In = In.drop_front(N);
    return S;
  }
};
} // namespace

std::string encodeCandidate(Expected<CandidateRecord> E) {
  Writer W;
  if (!E) {
    W.u64(0);
    W.str(toString(E.takeError()));
    return W.Out;
  }
  const CandidateRecord &C = *E;
  W.u64(1);
  W.str(C.RunId);
  W.u64(C.Id);
  W.u64(C.Parent);
  for (const std::string *S :
       {&C.K0Hash, &C.CandidateHash, &C.Strategy, &C.Passes, &C.EditScript,
        &C.StaticCheck, &C.Verdict, &C.Receipt, &C.TimeSource})
    W.str(*S);
  W.f64(C.K0Micros);
  W.f64(C.Micros);
  W.u64(C.Speedups.size());
  for (double D : C.Speedups)
    W.f64(D);
  W.u64(C.Accepted);
  W.f64(C.Seconds);
  return W.Out;
}

Expected<CandidateRecord> decodeCandidate(StringRef Bytes) {
  Reader R{Bytes};
  uint64_t Ok = R.u64();
  if (!R.Bad && Ok == 0) {
    std::string Msg = R.str();
    if (!R.Bad)
      return createStringError(Msg);
  }
  CandidateRecord C;
  C.RunId = R.str();
  C.Id = R.u64();
  C.Parent = R.u64();
  for (std::string *S :
       {&C.K0Hash, &C.CandidateHash, &C.Strategy, &C.Passes, &C.EditScript,
        &C.StaticCheck, &C.Verdict, &C.Receipt, &C.TimeSource})
    *S = R.str();
  C.K0Micros = R.f64();
  C.Micros = R.f64();
  uint64_t N = R.u64();
  for (uint64_t I = 0; I < N && !R.Bad; ++I)
    C.Speedups.push_back(R.f64());
  C.Accepted = R.u64();
  C.Seconds = R.f64();
  if (R.Bad || !R.In.empty())
    return createStringError("a worker sent a malformed candidate (%zu bytes)",
                             Bytes.size());
  return C;
}

} // namespace asmevo

//===- AnalysisCache.cpp - Memoized checkHazards, analyzeWaitcnts, ... ----===//
#include "asmevo/Analysis/AnalysisCache.h"
#include "Uncached.h"
#include "asmevo/Lift/FunctionKey.h"
#include "asmevo/Support/PhaseTimer.h"
#include "asmevo/Support/TargetContext.h"
#include "llvm/CodeGen/MachineFunction.h"
#include <list>
#include <mutex>
#include <unordered_map>

using namespace llvm;

namespace asmevo {

namespace {

/// The analysis input, spelled out word by word.
struct Key {
  std::vector<uint64_t> Words;
  uint64_t Hash = 0;
  void finish() { Hash = keyDigest(Words); }
};

void addTarget(std::vector<uint64_t> &W, const ISAFacts &F) {
  appendKeyString(W, F.target().info().targetID());
  W.push_back(uint64_t(F.gen()) | uint64_t(F.xnackReplay()) << 8);
}

/// Every field of the sequence. False when a record's facts are not the
/// ones \p F gives its opcode (then the key would not spell the input).
bool addSeq(std::vector<uint64_t> &W, const InstrSeq &Seq, const ISAFacts &F) {
  W.reserve(W.size() + Seq.Instrs.size() * 8 + Seq.BlockBegin.size() * 6);
  W.push_back(Seq.Instrs.size());
  W.push_back(Seq.BlockBegin.size());
  W.push_back(Seq.BlockOf.size());
  W.push_back(Seq.Preds.size());
  W.push_back(Seq.Succs.size());
  for (unsigned B : Seq.BlockBegin)
    W.push_back(B);
  for (const auto *Edges : {&Seq.Preds, &Seq.Succs})
    for (const std::vector<unsigned> &E : *Edges) {
      W.push_back(E.size());
      for (unsigned X : E)
        W.push_back(X);
    }
  for (size_t I = 0; I < Seq.Instrs.size(); ++I) {
    const InstrRecord &R = Seq.Instrs[I];
    if (R.F != &F.get(R.Opcode))
      return false;
    W.push_back(uint64_t(R.Opcode) | uint64_t(R.NumDefs & 0xff) << 32 |
                uint64_t(R.DPPSrc) << 40 | uint64_t(R.Passes) << 48 |
                uint64_t(R.XDL) << 56);
    W.push_back(uint64_t(R.Imm));
    W.push_back(R.Addr);
    W.push_back(uint64_t(R.Regs.size()) | uint64_t(R.NumDefs) << 32 |
                uint64_t(I < Seq.BlockOf.size() ? Seq.BlockOf[I] : ~0u) << 8);
    for (const RegAccess &A : R.Regs)
      W.push_back(uint64_t(A.Slots.First) | uint64_t(A.Slots.Count) << 16 |
                  uint64_t(A.OpIdx) << 32 | uint64_t(A.Def) << 40 |
                  uint64_t(A.Implicit) << 41);
  }
  for (size_t I = Seq.Instrs.size(); I < Seq.BlockOf.size(); ++I)
    W.push_back(Seq.BlockOf[I]);
  return true;
}

/// Answers of one analysis by input, least recently used dropped first.
template <class T> class Memo {
public:
  std::optional<T> find(const Key &K) {
    auto It = Index.find(K.Hash);
    if (It == Index.end())
      return std::nullopt;
    for (auto E : It->second)
      if (E->K.Words == K.Words) {
        Order.splice(Order.begin(), Order, E);
        return E->Answer;
      }
    return std::nullopt;
  }
  /// Returns the bytes added.
  size_t insert(Key K, T Answer, size_t AnswerBytes) {
    K.Words.shrink_to_fit();
    size_t Bytes = K.Words.size() * sizeof(uint64_t) + AnswerBytes + 64;
    Order.push_front({std::move(K), std::move(Answer), Bytes});
    Index[Order.front().K.Hash].push_back(Order.begin());
    return Bytes;
  }
  /// Drops the least recently used entry; returns its bytes (0: empty).
  size_t evictOne() {
    if (Order.empty())
      return 0;
    auto Last = std::prev(Order.end());
    auto &Bucket = Index[Last->K.Hash];
    llvm::erase(Bucket, Last);
    if (Bucket.empty())
      Index.erase(Last->K.Hash);
    size_t Bytes = Last->Bytes;
    Order.erase(Last);
    return Bytes;
  }
  void clear() {
    Order.clear();
    Index.clear();
  }

private:
  struct Entry {
    Key K;
    T Answer;
    size_t Bytes;
  };
  std::list<Entry> Order;
  std::unordered_map<uint64_t, std::vector<typename std::list<Entry>::iterator>>
      Index;
};

struct LDSAnswer {
  std::optional<LDSPartition> P;
  std::string WhyNot;
};

constexpr size_t DefaultBudget = size_t(512) << 20;

struct Cache {
  std::mutex M;
  bool On = true;
  size_t Budget = DefaultBudget;
  AnalysisCacheStats Stats;
  Memo<std::vector<HazardHit>> Hazards;
  Memo<WaitcntResult> Waits;
  Memo<LDSAnswer> LDS;

  void trim() {
    while (Stats.Bytes > Budget) {
      size_t Freed = Hazards.evictOne();
      Freed += Waits.evictOne();
      Freed += LDS.evictOne();
      if (!Freed)
        break;
      Stats.Bytes -= std::min(Freed, Stats.Bytes);
    }
  }
};

Cache &cache() {
  // Never destroyed: freeing a full cache at exit took a quarter of a
  // second of an -O2 run over a large object, to no one's benefit.
  static Cache *C = new Cache;
  return *C;
}

/// Looks \p K up in \p Memo, else computes (outside the lock) and keeps.
template <class T, class ComputeFn, class SizeFn>
T memoized(Memo<T> Cache::*Which, StringRef Phase, Key K, ComputeFn Compute,
           SizeFn Size) {
  Cache &C = cache();
  K.finish();
  {
    std::lock_guard<std::mutex> L(C.M);
    if (std::optional<T> Hit = (C.*Which).find(K)) {
      ++C.Stats.Hits;
      PhaseTimer::count("analysis cache: hits");
      return std::move(*Hit);
    }
  }
  T Answer;
  {
    PhaseScope P(Phase);
    Answer = Compute();
  }
  std::lock_guard<std::mutex> L(C.M);
  ++C.Stats.Misses;
  PhaseTimer::count("analysis cache: misses");
  C.Stats.Bytes += (C.*Which).insert(std::move(K), Answer, Size(Answer));
  C.trim();
  return Answer;
}

bool enabled() {
  Cache &C = cache();
  std::lock_guard<std::mutex> L(C.M);
  return C.On;
}

void uncacheable() {
  Cache &C = cache();
  std::lock_guard<std::mutex> L(C.M);
  ++C.Stats.Uncacheable;
}

} // namespace

void setAnalysisCacheEnabled(bool On) {
  Cache &C = cache();
  std::lock_guard<std::mutex> L(C.M);
  C.On = On;
}

bool analysisCacheEnabled() { return enabled(); }

void setAnalysisCacheBudget(size_t Bytes) {
  Cache &C = cache();
  std::lock_guard<std::mutex> L(C.M);
  C.Budget = Bytes ? Bytes : DefaultBudget;
  C.trim();
}

AnalysisCacheStats analysisCacheStats() {
  Cache &C = cache();
  std::lock_guard<std::mutex> L(C.M);
  return C.Stats;
}

void clearAnalysisCache() {
  Cache &C = cache();
  std::lock_guard<std::mutex> L(C.M);
  C.Hazards.clear();
  C.Waits.clear();
  C.LDS.clear();
  C.Stats.Bytes = 0;
}

std::vector<HazardHit> checkHazards(const InstrSeq &Seq, const ISAFacts &F) {
  Key K;
  K.Words.push_back(1);
  addTarget(K.Words, F);
  if (!enabled() || !addSeq(K.Words, Seq, F)) {
    if (enabled())
      uncacheable();
    PhaseScope P("analysis: hazards");
    return uncached::checkHazards(Seq, F);
  }
  return memoized(
      &Cache::Hazards, "analysis: hazards", std::move(K),
      [&] { return uncached::checkHazards(Seq, F); },
      [](const std::vector<HazardHit> &H) {
        return H.size() * sizeof(HazardHit);
      });
}

WaitcntResult analyzeWaitcnts(const InstrSeq &Seq, const ISAFacts &F,
                              const WaitcntOptions &Opts) {
  Key K;
  K.Words.push_back(2);
  K.Words.push_back(uint64_t(Opts.LDSDMABeforeDSRead) |
                    uint64_t(Opts.WavePrivateLDS) << 1);
  static_assert(sizeof(WaitcntOptions) == 2,
                "a new WaitcntOptions field must be part of the key");
  addTarget(K.Words, F);
  if (!enabled() || !addSeq(K.Words, Seq, F)) {
    if (enabled())
      uncacheable();
    PhaseScope P("analysis: waitcnt");
    return uncached::analyzeWaitcnts(Seq, F, Opts);
  }
  return memoized(
      &Cache::Waits, "analysis: waitcnt", std::move(K),
      [&] { return uncached::analyzeWaitcnts(Seq, F, Opts); },
      [](const WaitcntResult &R) {
        return R.Violations.size() * sizeof(WaitViolation) +
               R.Waits.size() * sizeof(WaitSlack) + R.PendingVM.size() +
               R.PendingLgkm.size();
      });
}

std::optional<LDSPartition> proveWavePrivateLDS(const MachineFunction &MF,
                                                const ISAFacts &F,
                                                unsigned WorkItemIDDims,
                                                std::string *WhyNot) {
  Key K;
  K.Words.push_back(3);
  K.Words.push_back(WorkItemIDDims);
  addTarget(K.Words, F);
  auto Compute = [&] {
    LDSAnswer A;
    A.P = uncached::proveWavePrivateLDS(MF, F, WorkItemIDDims, A.WhyNot);
    return A;
  };
  LDSAnswer A;
  if (!enabled() || !appendFunctionKey(K.Words, MF)) {
    if (enabled())
      uncacheable();
    PhaseScope P("analysis: lds proof");
    A = Compute();
  } else {
    A = memoized(&Cache::LDS, "analysis: lds proof", std::move(K), Compute,
                 [](const LDSAnswer &A) { return A.WhyNot.size(); });
  }
  if (!A.P && WhyNot)
    *WhyNot = A.WhyNot;
  return A.P;
}

} // namespace asmevo

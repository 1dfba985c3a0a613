//===- VerifierMemo.cpp ---------------------------------------------------===//
#include "VerifierMemo.h"
#include "asmevo/Lift/FunctionKey.h"
#include "asmevo/Support/PhaseTimer.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include <list>
#include <mutex>
#include <unordered_map>

using namespace llvm;

namespace asmevo {

namespace {
/// Keys accepted, least recently used dropped past the budget.
struct Memo {
  std::mutex M;
  std::list<std::vector<uint64_t>> Order;
  std::unordered_map<uint64_t,
                     std::vector<std::list<std::vector<uint64_t>>::iterator>>
      Index;
  size_t Bytes = 0;
  static constexpr size_t Budget = size_t(256) << 20;
};
Memo &memo() {
  // Never destroyed, like the analysis cache: freeing it at exit is time
  // spent for nothing.
  static Memo *M = new Memo;
  return *M;
}
} // namespace

std::optional<std::vector<uint64_t>>
VerifierMemo::keyOf(const MachineFunction &MF,
                    const std::vector<uint64_t> *FnKey) {
  std::vector<uint64_t> W;
  const TargetSubtargetInfo &ST = MF.getSubtarget();
  appendKeyString(W, ST.getTargetTriple().str());
  appendKeyString(W, ST.getCPU());
  appendKeyString(W, ST.getFeatureString());
  if (FnKey) {
    W.insert(W.end(), FnKey->begin(), FnKey->end());
    return W;
  }
  if (!appendFunctionKey(W, MF))
    return std::nullopt;
  W.shrink_to_fit();
  return W;
}

bool VerifierMemo::accepted(const std::vector<uint64_t> &Key) {
  Memo &M = memo();
  std::lock_guard<std::mutex> L(M.M);
  auto It = M.Index.find(keyDigest(Key));
  if (It != M.Index.end())
    for (auto E : It->second)
      if (*E == Key) {
        M.Order.splice(M.Order.begin(), M.Order, E);
        PhaseTimer::count("verifier memo: hits");
        return true;
      }
  return false;
}

void VerifierMemo::remember(std::vector<uint64_t> Key) {
  Memo &M = memo();
  uint64_t D = keyDigest(Key);
  std::lock_guard<std::mutex> L(M.M);
  M.Bytes += Key.size() * sizeof(uint64_t);
  M.Order.push_front(std::move(Key));
  M.Index[D].push_back(M.Order.begin());
  while (M.Bytes > Memo::Budget && M.Order.size() > 1) {
    auto Last = std::prev(M.Order.end());
    auto &Bucket = M.Index[keyDigest(*Last)];
    llvm::erase(Bucket, Last);
    if (Bucket.empty())
      M.Index.erase(keyDigest(*Last));
    M.Bytes -= Last->size() * sizeof(uint64_t);
    M.Order.erase(Last);
  }
}

} // namespace asmevo

//===- EditSet.cpp - Which instructions of K1 differ from K0 --------------===//
#include "asmevo/Verify/EditSet.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Emulator/Emulator.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include <numeric>
#include <unordered_map>

using namespace llvm;
using namespace asmevo::emu;

namespace asmevo {
namespace verify {

StringRef editClassName(EditClass C) {
  switch (C) {
  case EditClass::Code:
    return "code";
  case EditClass::CachePolicy:
    return "cache-policy";
  case EditClass::MemoryScope:
    return "memory-scope";
  case EditClass::Synchronization:
    return "synchronization";
  }
  llvm_unreachable("bad edit class");
}

std::optional<EditClass> parseEditClass(StringRef S) {
  for (EditClass C : {EditClass::Code, EditClass::CachePolicy,
                      EditClass::MemoryScope, EditClass::Synchronization})
    if (S == editClassName(C))
      return C;
  return std::nullopt;
}

Expected<AddressMap> AddressMap::load(StringRef Path) {
  auto MB = MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!MB)
    return createStringError(MB.getError(), "cannot read address map '%s'",
                             Path.str().c_str());
  AddressMap M;
  M.Path = Path.str();
  std::map<uint64_t, size_t> OldLine;
  std::optional<uint64_t> Prev;
  SmallVector<StringRef, 8> Lines;
  (*MB)->getBuffer().split(Lines, '\n');
  for (size_t LN = 0; LN < Lines.size(); ++LN) {
    StringRef L = Lines[LN].trim();
    if (L.empty() || L.starts_with("#"))
      continue;
    auto Bad = [&](const Twine &Why) {
      return createStringError("%s:%zu: %s", Path.str().c_str(), LN + 1,
                               Why.str().c_str());
    };
    auto [NewS, Rest] = L.split(' ');
    StringRef OldS = Rest.trim().split(' ').first;
    uint64_t New, Old;
    if (NewS.getAsInteger(0, New))
      return Bad("expected '<new address> <original address|new> "
                 "<function>', got '" +
                 L.take_front(80) + "'");
    // asmevo-opt writes K1's addresses in increasing order, each once: a
    // map that is not is damaged or not the one of this K1.
    if (auto It = M.LineOf.find(New); It != M.LineOf.end())
      return Bad("K1 address 0x" + utohexstr(New, true) +
                 " is listed twice (first "
                 "on line " +
                 Twine(It->second) + ")");
    if (Prev && New < *Prev)
      return Bad("K1 address 0x" + utohexstr(New, true) +
                 " is out of order (the "
                 "line before lists 0x" +
                 utohexstr(*Prev, true) + ")");
    Prev = New;
    M.LineOf[New] = LN + 1;
    if (OldS == "new") {
      M.NewToOld[New] = std::nullopt;
      continue;
    }
    if (OldS.getAsInteger(0, Old))
      return Bad("bad original address '" + OldS.take_front(40) + "'");
    if (auto It = OldLine.find(Old); It != OldLine.end())
      return Bad("K0 address 0x" + utohexstr(Old, true) +
                 " is paired twice (first "
                 "on line " +
                 Twine(It->second) + ")");
    OldLine[Old] = LN + 1;
    M.NewToOld[New] = Old;
  }
  if (M.NewToOld.empty())
    return createStringError("address map '%s' has no entries",
                             Path.str().c_str());
  return M;
}

/// Pairs (x, y) of a longest common subsequence of two sequences of
/// lengths \p N and \p M under \p Eq (Myers' O((N+M)D) greedy algorithm,
/// D = the edit distance; the search is bounded, and beyond the bound only
/// the common prefix and suffix are paired, which over-approximates the
/// edit).
std::vector<std::pair<size_t, size_t>>
alignSequences(size_t N, size_t M,
                         function_ref<bool(size_t, size_t)> Eq) {
  std::vector<std::pair<size_t, size_t>> Out;
  size_t Pre = 0;
  while (Pre < N && Pre < M && Eq(Pre, Pre)) {
    Out.push_back({Pre, Pre});
    ++Pre;
  }
  size_t Suf = 0;
  while (Suf < N - Pre && Suf < M - Pre && Eq(N - 1 - Suf, M - 1 - Suf))
    ++Suf;
  // The middle: a[Pre, N-Suf) against b[Pre, M-Suf).
  int64_t NN = int64_t(N - Pre - Suf), MM = int64_t(M - Pre - Suf);
  constexpr int64_t MaxD = 4096;
  std::vector<std::vector<int64_t>> Trace; // V over k in [-D, D], per D.
  std::vector<int64_t> V(2 * std::min(NN + MM, MaxD) + 3, 0);
  const int64_t Off = std::min(NN + MM, MaxD) + 1;
  int64_t Found = -1;
  for (int64_t D = 0; D <= std::min(NN + MM, MaxD) && Found < 0; ++D) {
    for (int64_t K = -D; K <= D; K += 2) {
      int64_t X = (K == -D || (K != D && V[Off + K - 1] < V[Off + K + 1]))
                      ? V[Off + K + 1]
                      : V[Off + K - 1] + 1;
      int64_t Y = X - K;
      while (X < NN && Y < MM && Eq(Pre + X, Pre + Y))
        ++X, ++Y;
      V[Off + K] = X;
      if (X >= NN && Y >= MM)
        Found = D;
    }
    Trace.emplace_back(V.begin() + Off - D, V.begin() + Off + D + 1);
  }
  if (Found >= 0) {
    std::vector<std::pair<size_t, size_t>> Mid;
    int64_t X = NN, Y = MM;
    for (int64_t D = Found; D >= 0; --D) {
      // (X, Y) ends the snake of step D; it starts one move after the
      // endpoint (PX, PY) of step D-1 on the diagonal that move came from.
      int64_t SX = 0, PX = 0, PY = 0;
      if (D > 0) {
        const std::vector<int64_t> &TP = Trace[D - 1];
        auto Prev = [&](int64_t K) { return TP[K + D - 1]; };
        int64_t K = X - Y;
        bool Down = K == -D || (K != D && Prev(K - 1) < Prev(K + 1));
        int64_t PK = Down ? K + 1 : K - 1;
        PX = Prev(PK);
        PY = PX - PK;
        SX = Down ? PX : PX + 1;
      }
      for (; X > SX; --X, --Y)
        Mid.push_back({Pre + X - 1, Pre + Y - 1});
      X = PX;
      Y = PY;
    }
    Out.insert(Out.end(), Mid.rbegin(), Mid.rend());
  }
  for (size_t I = Suf; I-- > 0;)
    Out.push_back({N - 1 - I, M - 1 - I});
  return Out;
}

namespace {

struct Insn {
  uint64_t Addr = 0;
  std::string Mnemonic, Text;
  std::optional<uint64_t> Target;
  ArrayRef<uint8_t> Bytes;
  size_t Function = 0; ///< Index into the object's code ranges.
};

struct Listing {
  std::vector<Insn> Insns;
  /// Not a DenseMap: lookups take addresses from the address map and from
  /// branch targets, which may be DenseMap's reserved keys (~0, ~1).
  std::unordered_map<uint64_t, size_t> ByAddr;
  /// Per code range: indices of its instructions in address order.
  std::vector<std::vector<size_t>> PerFunction;
};

Expected<Listing> listInstructions(const Emulator &E) {
  const CodeObject &CO = E.codeObject();
  Listing L;
  ArrayRef<CodeRange> Ranges = CO.codeRanges();
  L.PerFunction.resize(Ranges.size());
  // Functions do not overlap: the one holding an address is the last that
  // starts at or before it.
  std::vector<size_t> ByStart(Ranges.size());
  std::iota(ByStart.begin(), ByStart.end(), 0);
  llvm::sort(ByStart, [&](size_t X, size_t Y) {
    return Ranges[X].Addr < Ranges[Y].Addr;
  });
  for (const Emulator::DecodedInstruction &D : E.decodedInstructions()) {
    Insn I;
    I.Addr = D.Addr;
    I.Mnemonic = D.Mnemonic;
    I.Text = D.Text;
    I.Target = D.BranchTarget;
    auto B = CO.bytesAt(D.Addr, D.Size);
    if (!B)
      return B.takeError();
    I.Bytes = *B;
    I.Function = Ranges.size();
    auto After = llvm::upper_bound(ByStart, D.Addr, [&](uint64_t A, size_t F) {
      return A < Ranges[F].Addr;
    });
    if (After != ByStart.begin()) {
      size_t F = *std::prev(After);
      if (D.Addr < Ranges[F].Addr + Ranges[F].Size)
        I.Function = F;
    }
    // Outside every function is padding (s_code_end's s_nops after the
    // last one): never executed, and it moves with the code before it.
    if (I.Function == Ranges.size())
      continue;
    L.ByAddr[I.Addr] = L.Insns.size();
    L.PerFunction[I.Function].push_back(L.Insns.size());
    L.Insns.push_back(std::move(I));
  }
  return L;
}

EditClass classOf(StringRef Mn) {
  if (Mn.starts_with("buffer_inv") || Mn.starts_with("buffer_wb") ||
      Mn.starts_with("buffer_gl") || Mn.starts_with("s_dcache_"))
    return EditClass::MemoryScope;
  if ((Mn.contains("_atomic") && !Mn.starts_with("ds_")) || Mn == "s_sleep")
    return EditClass::Synchronization;
  return EditClass::Code;
}

/// The instruction text without its cache-policy modifiers.
std::string withoutCachePolicy(StringRef Text) {
  SmallVector<StringRef, 16> Toks;
  SplitString(Text, Toks, " ,");
  std::string Out;
  for (StringRef T : Toks)
    if (!is_contained({"sc0", "sc1", "nt", "glc", "slc", "dlc"}, T))
      Out += (T + " ").str();
  return Out;
}

EditClass classOfChange(const Insn &A, const Insn &B) {
  if (A.Mnemonic == B.Mnemonic && A.Text != B.Text &&
      withoutCachePolicy(A.Text) == withoutCachePolicy(B.Text))
    return EditClass::CachePolicy;
  // The same atomic or cache operation on other registers orders memory
  // as before; what the emulator cannot judge is a change of the ordering
  // itself (another operation, one added or removed).
  if (A.Mnemonic == B.Mnemonic)
    return EditClass::Code;
  EditClass CA = classOf(A.Mnemonic), CB = classOf(B.Mnemonic);
  return CA != EditClass::Code ? CA : CB;
}

bool similar(const Insn &A, const Insn &B) {
  if (A.Target || B.Target)
    return A.Target && B.Target && A.Mnemonic == B.Mnemonic;
  return A.Bytes == B.Bytes;
}

/// K1 index -> K0 index.
using Pairing = DenseMap<size_t, size_t>;

Error pairByMap(const CodeObject &C0, const Listing &L0, const CodeObject &C1,
                const Listing &L1, const AddressMap &M, Pairing &P) {
  // Every line must lie in the code it claims to describe (an address in
  // code but between instructions is a data word the rebuild kept).
  auto InCode = [](const CodeObject &CO, uint64_t A) {
    const ELFSection *S = CO.sectionForAddr(A);
    return S && S->isExec();
  };
  for (auto [New, Old] : M.NewToOld) {
    size_t Line = M.LineOf.count(New) ? M.LineOf.at(New) : 0;
    if (!InCode(C1, New))
      return createStringError("%s:%zu: K1 address 0x%llx is outside K1's "
                               "code",
                               M.Path.c_str(), Line, (unsigned long long)New);
    if (Old && !InCode(C0, *Old))
      return createStringError("%s:%zu: K0 address 0x%llx is outside K0's "
                               "code",
                               M.Path.c_str(), Line, (unsigned long long)*Old);
  }
  for (size_t I = 0; I < L1.Insns.size(); ++I) {
    auto It = M.NewToOld.find(L1.Insns[I].Addr);
    if (It == M.NewToOld.end())
      return createStringError("the address map %s does not describe K1: "
                               "no entry for its instruction at 0x%llx",
                               M.Path.c_str(),
                               (unsigned long long)L1.Insns[I].Addr);
    if (!It->second)
      continue;
    auto J = L0.ByAddr.find(*It->second);
    if (J == L0.ByAddr.end())
      return createStringError("%s:%zu: the address map pairs K1 0x%llx with "
                               "K0 0x%llx, where K0 has no instruction",
                               M.Path.c_str(),
                               M.LineOf.count(L1.Insns[I].Addr)
                                   ? M.LineOf.at(L1.Insns[I].Addr)
                                   : size_t(0),
                               (unsigned long long)L1.Insns[I].Addr,
                               (unsigned long long)*It->second);
    P[I] = J->second;
  }
  return Error::success();
}

bool sameAddresses(const Listing &L0, const Listing &L1) {
  if (L0.Insns.size() != L1.Insns.size())
    return false;
  for (size_t I = 0; I < L0.Insns.size(); ++I)
    if (L0.Insns[I].Addr != L1.Insns[I].Addr ||
        L0.Insns[I].Bytes.size() != L1.Insns[I].Bytes.size())
      return false;
  return true;
}

void pairByAlignment(const CodeObject &C0, const Listing &L0,
                     const CodeObject &C1, const Listing &L1, Pairing &P) {
  ArrayRef<CodeRange> R0 = C0.codeRanges(), R1 = C1.codeRanges();
  for (size_t F1 = 0; F1 < R1.size(); ++F1) {
    size_t F0 = R0.size();
    for (size_t F = 0; F < R0.size(); ++F)
      if (R0[F].Name == R1[F1].Name)
        F0 = F;
    if (F0 == R0.size())
      continue;
    const std::vector<size_t> &A = L0.PerFunction[F0], &B = L1.PerFunction[F1];
    auto Eq = [&](size_t X, size_t Y) {
      return similar(L0.Insns[A[X]], L1.Insns[B[Y]]);
    };
    for (auto [X, Y] : alignSequences(A.size(), B.size(), Eq))
      P[B[Y]] = A[X];
  }
}

} // namespace

Expected<EditSet> findEdits(const Emulator &E0, const Emulator &E1,
                            const AddressMap *Map) {
  auto L0 = listInstructions(E0);
  if (!L0)
    return L0.takeError();
  auto L1 = listInstructions(E1);
  if (!L1)
    return L1.takeError();
  EditSet S;
  S.K1Instructions = L1->Insns.size();
  Pairing P;
  if (Map) {
    S.Method = "address map";
    if (Error E =
            pairByMap(E0.codeObject(), *L0, E1.codeObject(), *L1, *Map, P))
      return std::move(E);
  } else if (sameAddresses(*L0, *L1)) {
    S.Method = "same addresses";
    for (size_t I = 0; I < L1->Insns.size(); ++I)
      P[I] = I;
  } else {
    S.Method = "aligned per function";
    pairByAlignment(E0.codeObject(), *L0, E1.codeObject(), *L1, P);
  }

  DenseMap<size_t, size_t> K0ToK1;
  for (auto [I1, I0] : P) {
    K0ToK1[I0] = I1;
    S.K1ToK0[L1->Insns[I1].Addr] = L0->Insns[I0].Addr;
  }
  // Where a branch lands, as a K0 address: a branch to inserted code (or to
  // where removed code was) lands, once that code is done, where it did in
  // K0; the inserted or removed code itself is an edit of its own.
  auto Landing1 = [&](uint64_t Addr) -> std::optional<uint64_t> {
    auto I = L1->ByAddr.find(Addr);
    if (I != L1->ByAddr.end())
      for (size_t K = I->second; K < L1->Insns.size(); ++K)
        if (auto T = P.find(K); T != P.end())
          return L0->Insns[T->second].Addr;
    return std::nullopt;
  };
  auto Landing0 = [&](uint64_t Addr) -> std::optional<uint64_t> {
    auto I = L0->ByAddr.find(Addr);
    if (I != L0->ByAddr.end())
      for (size_t K = I->second; K < L0->Insns.size(); ++K)
        if (K0ToK1.count(K))
          return L0->Insns[K].Addr;
    return std::nullopt;
  };
  // An instruction that now runs before one it followed in K0 is edited
  // too, though its bytes are the same: an order no run executed is an
  // order nobody judged (a scheduler's swap in a block the spec never
  // reaches).
  std::optional<size_t> PrevK0;
  for (size_t I1 = 0; I1 < L1->Insns.size(); ++I1) {
    const Insn &B = L1->Insns[I1];
    EditedInstruction Ed;
    Ed.K1Addr = B.Addr;
    Ed.K1Text = B.Text;
    auto It = P.find(I1);
    bool Moved = false;
    if (It != P.end()) {
      Moved = PrevK0 && It->second < *PrevK0 &&
              L0->Insns[It->second].Function == L0->Insns[*PrevK0].Function;
      if (!PrevK0 || It->second > *PrevK0 ||
          L0->Insns[It->second].Function != L0->Insns[*PrevK0].Function)
        PrevK0 = It->second;
    }
    if (Moved) {
      const Insn &A = L0->Insns[It->second];
      Ed.K = EditedInstruction::Changed;
      Ed.K0Addr = A.Addr;
      Ed.K0Text = A.Text;
      Ed.K1Text = B.Text + " (moved)";
      Ed.Class = EditClass::Code;
      S.Edits.push_back(std::move(Ed));
      continue;
    }
    if (It == P.end()) {
      Ed.K = EditedInstruction::Added;
      Ed.Class = classOf(B.Mnemonic);
      S.Edits.push_back(std::move(Ed));
      continue;
    }
    const Insn &A = L0->Insns[It->second];
    bool Same;
    if (A.Target || B.Target) {
      std::optional<uint64_t> T1 = B.Target ? Landing1(*B.Target) : std::nullopt;
      std::optional<uint64_t> T0 = A.Target ? Landing0(*A.Target) : std::nullopt;
      Same = A.Mnemonic == B.Mnemonic && T1 && T0 && *T1 == *T0;
    } else {
      Same = A.Bytes == B.Bytes;
    }
    if (Same)
      continue;
    Ed.K = EditedInstruction::Changed;
    Ed.K0Addr = A.Addr;
    Ed.K0Text = A.Text;
    Ed.Class = classOfChange(A, B);
    S.Edits.push_back(std::move(Ed));
  }

  // A removed instruction is exercised where its neighbours now are.
  for (size_t I0 = 0; I0 < L0->Insns.size(); ++I0) {
    if (K0ToK1.count(I0))
      continue;
    const Insn &A = L0->Insns[I0];
    EditedInstruction Ed;
    Ed.K = EditedInstruction::Removed;
    Ed.K0Addr = A.Addr;
    Ed.K0Text = A.Text;
    Ed.Class = classOf(A.Mnemonic);
    std::optional<size_t> Where;
    if (A.Function < L0->PerFunction.size()) {
      const std::vector<size_t> &F = L0->PerFunction[A.Function];
      // F is in address order, as instruction indices are.
      auto Pos = std::lower_bound(F.begin(), F.end(), I0) - F.begin();
      for (size_t K = Pos + 1; K < F.size() && !Where; ++K)
        if (K0ToK1.count(F[K]))
          Where = K0ToK1[F[K]];
      for (size_t K = Pos; K-- > 0 && !Where;)
        if (K0ToK1.count(F[K]))
          Where = K0ToK1[F[K]];
    }
    if (!Where) {
      // Nothing of its function survived: no run can vouch for it.
      Ed.K1Addr = ~0ull;
    } else {
      Ed.K1Addr = L1->Insns[*Where].Addr;
      Ed.K1Text = L1->Insns[*Where].Text;
    }
    S.Edits.push_back(std::move(Ed));
  }
  llvm::sort(S.Edits, [](const EditedInstruction &X,
                         const EditedInstruction &Y) {
    return std::tie(X.K1Addr, X.K) < std::tie(Y.K1Addr, Y.K);
  });
  return S;
}

} // namespace verify
} // namespace asmevo

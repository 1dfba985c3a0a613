//===- MutationTest.cpp - Mutants the checker must catch ------------------===//
//
// Sites come from simple rules over the disassembly text (mnemonics and
// register names as LLVM's printer writes them), written independently of
// the checker's tables:
//  1. nop:     every s_nop N with N > 0 -> s_nop 0;
//  2. waitcnt: every s_waitcnt that is the first wait after a load and is
//              immediately followed by an instruction reading a register
//              that load writes -> no wait at all;
//  3. barrier: every s_waitcnt lgkmcnt(0) right before s_barrier, with an
//              LDS write since the previous lgkmcnt(0) wait -> removed
//              (turned into a wait for nothing, which keeps the layout).
// A mutant is applied to the lifted MachineInstr at the site's address
// (the in-memory form of a MIR edit), its function is re-analyzed, and the
// mutant is killed when the function reports more violations than before.
// Only compiled code is mutated ("the s_nop the compiler placed").
//
//===----------------------------------------------------------------------===//
#include "CorpusHelpers.h"
#include "asmevo/Analysis/FunctionAnalysis.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/MC/MCInst.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <map>
#include <regex>
#include <set>

using namespace llvm;
using namespace asmevo;
using namespace asmevo::test;

namespace {

struct TextInst {
  uint64_t Addr = 0;
  uint32_t Size = 0;
  std::string Mnemonic;
  std::vector<std::string> Operands; ///< Register-ish tokens, in order.
  std::string Text;
};

/// A register as (file, first, last).
struct TReg {
  char File;
  int Lo, Hi;
  bool overlaps(const TReg &O) const {
    return File == O.File && Lo <= O.Hi && O.Lo <= Hi;
  }
};

std::vector<TReg> regsOf(const std::string &Tok) {
  static const std::regex Single("^([vsa])([0-9]+)$");
  static const std::regex Range("^([vsa])\\[([0-9]+):([0-9]+)\\]$");
  std::smatch M;
  if (std::regex_match(Tok, M, Single))
    return {{M[1].str()[0], std::stoi(M[2]), std::stoi(M[2])}};
  if (std::regex_match(Tok, M, Range))
    return {{M[1].str()[0], std::stoi(M[2]), std::stoi(M[3])}};
  if (Tok == "vcc")
    return {{'s', 106, 107}};
  return {};
}

std::vector<TextInst> disassemble(const LiftedModule &LM, const CodeRange &CR) {
  std::vector<TextInst> Out;
  const TargetContext &TC = LM.target();
  auto Bytes = LM.original().bytesAt(CR.Addr, CR.Size);
  if (!Bytes) {
    consumeError(Bytes.takeError());
    return Out;
  }
  uint64_t Off = 0;
  while (Off < Bytes->size()) {
    MCInst I;
    uint64_t Size = 0;
    if (TC.disassembler().getInstruction(I, Size, Bytes->slice(Off),
                                         CR.Addr + Off,
                                         nulls()) != MCDisassembler::Success ||
        !Size)
      break;
    TextInst T;
    T.Addr = CR.Addr + Off;
    T.Size = Size;
    raw_string_ostream OS(T.Text);
    TC.printer().printInst(&I, T.Addr, "", TC.subtargetInfo(), OS);
    StringRef S = StringRef(T.Text).trim();
    auto [Mn, Rest] = S.split(' ');
    T.Mnemonic = Mn.str();
    SmallVector<StringRef> Parts;
    Rest.split(Parts, ',');
    for (StringRef P : Parts) {
      P = P.trim();
      P = P.take_until([](char C) { return C == ' '; });
      T.Operands.push_back(P.str());
    }
    Out.push_back(std::move(T));
    Off += Size;
  }
  return Out;
}

bool startsWithAny(StringRef S, std::initializer_list<StringRef> Ps) {
  for (StringRef P : Ps)
    if (S.starts_with(P))
      return true;
  return false;
}

bool isBranchy(StringRef M) {
  return startsWithAny(
      M, {"s_branch", "s_cbranch", "s_setpc", "s_swappc", "s_endpgm"});
}

/// Loads that return data to their first operand.
bool isLoad(const TextInst &T) {
  StringRef M = T.Mnemonic;
  if (!startsWithAny(M, {"global_load", "buffer_load", "flat_load",
                         "scratch_load", "ds_read", "s_load", "s_buffer_load"}))
    return false;
  return !M.contains("_lds") && !StringRef(T.Text).ends_with(" lds");
}

/// Registers the instruction reads, by operand position.
std::vector<TReg> readsOf(const TextInst &T) {
  StringRef M = T.Mnemonic;
  bool FirstIsDef = true;
  if (startsWithAny(M, {"global_store", "buffer_store", "flat_store",
                        "scratch_store", "s_store", "s_buffer_store", "s_cmp",
                        "s_bitcmp", "s_setpc", "s_cbranch", "s_waitcnt",
                        "s_nop", "s_barrier"}))
    FirstIsDef = false;
  if (M.starts_with("ds_") &&
      !startsWithAny(M,
                     {"ds_read", "ds_permute", "ds_bpermute", "ds_swizzle"}) &&
      !M.contains("_rtn"))
    FirstIsDef = false;
  std::vector<TReg> Out;
  for (size_t I = FirstIsDef ? 1 : 0; I < T.Operands.size(); ++I)
    for (TReg R : regsOf(T.Operands[I]))
      Out.push_back(R);
  return Out;
}

bool isLDSWrite(StringRef M) {
  if (!M.starts_with("ds_"))
    return false;
  return !startsWithAny(M,
                        {"ds_read", "ds_permute", "ds_bpermute", "ds_swizzle",
                         "ds_nop", "ds_gws", "ds_append", "ds_consume"});
}

struct Site {
  uint64_t Addr;
  int64_t NewImm;
};

/// The three site rules over one function's text.
void findSites(const std::vector<TextInst> &Ts,
               std::map<std::string, std::vector<Site>> &Out) {
  std::set<uint64_t> Targets;
  for (const TextInst &T : Ts)
    if (startsWithAny(T.Mnemonic, {"s_branch", "s_cbranch"})) {
      // The printer shows the target as a 16-bit word offset.
      int64_t Off;
      if (!T.Operands.empty() && !StringRef(T.Operands[0]).getAsInteger(0, Off))
        Targets.insert(T.Addr + 4 + (int64_t)(int16_t)Off * 4);
    }
  const int64_t NoWait = 0xCF7F;
  std::vector<std::vector<TReg>> PendingLoads;
  bool LDSWriteSinceWait = false;
  for (size_t I = 0; I < Ts.size(); ++I) {
    const TextInst &T = Ts[I];
    StringRef M = T.Mnemonic;
    if (Targets.count(T.Addr)) {
      PendingLoads.clear();
      LDSWriteSinceWait = false;
    }
    if (M == "s_nop") {
      int64_t N;
      if (!T.Operands.empty() && !StringRef(T.Operands[0]).getAsInteger(0, N) &&
          N > 0)
        Out["nop"].push_back({T.Addr, 0});
    }
    if (M == "s_waitcnt") {
      const TextInst *Next = I + 1 < Ts.size() ? &Ts[I + 1] : nullptr;
      if (Next && !Targets.count(Next->Addr)) {
        bool Guards = false;
        for (const TReg &R : readsOf(*Next))
          for (const auto &L : PendingLoads)
            for (const TReg &D : L)
              Guards |= R.overlaps(D);
        if (Guards)
          Out["waitcnt"].push_back({T.Addr, NoWait});
        if (Next->Mnemonic == "s_barrier" &&
            StringRef(T.Text).contains("lgkmcnt(0)") && LDSWriteSinceWait)
          Out["barrier"].push_back({T.Addr, NoWait});
      }
      PendingLoads.clear();
      if (StringRef(T.Text).contains("lgkmcnt(0)"))
        LDSWriteSinceWait = false;
      continue;
    }
    if (isLoad(T) && !T.Operands.empty())
      PendingLoads.push_back(regsOf(T.Operands[0]));
    if (isLDSWrite(M))
      LDSWriteSinceWait = true;
    if (isBranchy(M)) {
      PendingLoads.clear();
      LDSWriteSinceWait = false;
    }
  }
}

struct Tally {
  unsigned Sites = 0, Killed = 0, AdvisoryOnly = 0;
  std::vector<std::string> Survivors;
};

TEST(AnalysisMutation, IndependentMutantsAreReported) {
  std::map<std::string, std::map<std::string, Tally>> Tallies; // group, rule
  for (const ObjectEntry &E : corpusObjects()) {
    if (E.Group == "hand-written")
      continue;
    // The timing microbenchmarks' s_nop and s_waitcnt are inline assembly
    // put there to be timed, not wait states a compiler derived: removing
    // one need not break any rule, so they are hand-written code here.
    if (llvm::sys::path::filename(E.Path).starts_with("timing_"))
      continue;
    auto LM = liftFile(E.Path);
    ASSERT_TRUE(LM) << E.Path;
    ISAFacts F(LM->target());
    for (LiftedFunction &LF : LM->functions()) {
      if (!LF.MF)
        continue;
      std::map<std::string, std::vector<Site>> Sites;
      findSites(disassemble(*LM, LF.Range), Sites);
      if (Sites.empty())
        continue;
      DenseMap<uint64_t, MachineInstr *> At;
      for (MachineBasicBlock &MBB : *LF.MF)
        for (MachineInstr &MI : MBB)
          if (auto A = LiftedModule::originalAddress(MI))
            At[*A] = &MI;
      AnalysisOptions AO;
      AO.Liveness = false;
      // A mutant is reported when it adds a violation or an advisory: an
      // edit must not remove wait states LLVM's model asks for from code
      // that had them.
      auto Count = [&] {
        FunctionAnalysis A = analyzeFunction(*LM, LF, F, AO);
        return std::make_pair(A.violations(), (unsigned)A.Advisories.size());
      };
      auto Base = Count();
      for (auto &[Rule, List] : Sites)
        for (const Site &S : List) {
          Tally &T = Tallies[E.Group][Rule];
          ++T.Sites;
          MachineInstr *MI = At.lookup(S.Addr);
          if (!MI || !MI->getOperand(0).isImm()) {
            T.Survivors.push_back(E.Path + "@0x" + utohexstr(S.Addr) +
                                  " (not lifted)");
            continue;
          }
          int64_t Old = MI->getOperand(0).getImm();
          MI->getOperand(0).setImm(S.NewImm);
          auto Now = Count();
          MI->getOperand(0).setImm(Old);
          if (Now.first > Base.first) {
            ++T.Killed;
          } else if (Now.second > Base.second) {
            ++T.Killed;
            ++T.AdvisoryOnly;
          } else
            T.Survivors.push_back(E.Path + "@0x" + utohexstr(S.Addr));
        }
    }
  }
  for (auto &[Group, Rules] : Tallies)
    for (auto &[Rule, T] : Rules) {
      outs() << "mutation " << Group << " " << Rule << ": sites " << T.Sites
             << ", reported " << T.Killed << " (as an advisory only "
             << T.AdvisoryOnly << ")\n";
      for (size_t I = 0; I < T.Survivors.size() && I < 5; ++I)
        outs() << "  survivor " << T.Survivors[I] << "\n";
      EXPECT_EQ(T.Killed, T.Sites) << Group << " " << Rule;
    }
}

} // namespace

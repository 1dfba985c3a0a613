//===- CoverageCommand.cpp - asmevo-verify coverage -----------------------===//
//
// Decodes code objects and reports, per mnemonic, whether every decoded
// occurrence has semantics in the emulator. With --mnemonics (the corpus
// MNEMONICS.tsv: "count<TAB>mnemonic" per line), prints the implemented
// fraction of that list and the missing mnemonics.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/CodeObject/InputFile.h"
#include "asmevo/Emulator/Emulator.h"
#include "asmevo/Emulator/ISACoverage.h"
#include "asmevo/Support/TargetContext.h"
#include "llvm/Support/JSON.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <array>
#include <map>
#include <set>

using namespace llvm;
using namespace asmevo;
using namespace asmevo::emu;

namespace asmevo {
namespace verify_tool {

cl::SubCommand CoverageCmd("coverage",
                           "Instruction coverage of the emulator");
static cl::list<std::string> Objects(cl::Positional,
                                     cl::desc("<code objects>"),
                                     cl::sub(CoverageCmd));
static cl::opt<std::string>
    Mnemonics("mnemonics", cl::desc("Target list (MNEMONICS.tsv)"),
              cl::value_desc("file"), cl::sub(CoverageCmd));
static cl::opt<bool> Verbose("why", cl::desc("Say why each is missing"),
                             cl::sub(CoverageCmd));
static cl::list<std::string>
    Tested("tested",
           cl::desc("Tested instructions, one per line ('#' comments). With "
                    "--isa: MC opcode names without subtarget suffix "
                    "(V_ADD_F32_e32) that pass a differential case, each "
                    "optionally followed by the targets it passed on "
                    "(then it counts only for those); else "
                    "mnemonics with semantic tests (AsmEvoEmulatorTests "
                    "--print-tested)"),
           cl::value_desc("file"), cl::sub(CoverageCmd));

static cl::opt<std::string>
    Isa("isa",
        cl::desc("Coverage of the whole ISA of this target (gfx942, gfx90a), "
                 "enumerated by decoding"),
        cl::value_desc("target"), cl::sub(CoverageCmd));
static cl::opt<bool> Json("json", cl::desc("With --isa: JSON output"),
                          cl::sub(CoverageCmd));

static Expected<std::set<std::string>> readTested() {
  std::set<std::string> Set;
  for (const std::string &Path : Tested) {
    auto MB = MemoryBuffer::getFile(Path);
    if (!MB)
      return createStringError(MB.getError(), "cannot read '%s'",
                               Path.c_str());
    SmallVector<StringRef, 0> Lines;
    (*MB)->getBuffer().split(Lines, '\n', -1, false);
    for (StringRef L : Lines) {
      // "NAME [TARGET...]": an opcode the emulator runs on some targets
      // only (v_screen_partition_4se_b32: gfx90a) is tested on those.
      SmallVector<StringRef, 4> Words;
      L.split('#').first.split(Words, ' ', -1, false);
      if (Words.empty())
        continue;
      if (Words.size() == 1 || Isa.empty() ||
          llvm::is_contained(ArrayRef(Words).drop_front(), StringRef(Isa)))
        Set.insert(Words.front().str());
    }
  }
  return Set;
}

/// coverage --isa: the table by family of emu::isaCoverage.
static int isaCoverageCommand() {
  if (Isa != "gfx942" && Isa != "gfx90a") {
    WithColor::error(errs(), "asmevo-verify")
        << "--isa: '" << Isa << "' is not an emulated target (gfx942, "
        << "gfx90a)\n";
    return 2;
  }
  auto TestedSet = readTested();
  if (!TestedSet) {
    WithColor::error(errs(), "asmevo-verify")
        << toString(TestedSet.takeError()) << "\n";
    return 2;
  }
  TargetInfo TI;
  TI.Processor = Isa;
  auto TC = TargetContext::create(TI);
  if (!TC) {
    WithColor::error(errs(), "asmevo-verify") << toString(TC.takeError())
                                              << "\n";
    return 2;
  }
  auto Cov = isaCoverage(**TC, *TestedSet);
  if (!Cov) {
    WithColor::error(errs(), "asmevo-verify") << toString(Cov.takeError())
                                              << "\n";
    return 2;
  }
  constexpr unsigned NS = 4;
  std::map<std::string, std::array<unsigned, NS>> ByFamily;
  std::array<unsigned, NS> Total{};
  for (const OpcodeCoverage &C : *Cov) {
    ++ByFamily[C.Op.Family][unsigned(C.Status)];
    ++Total[unsigned(C.Status)];
  }
  auto Sum = [](const std::array<unsigned, NS> &A) {
    return A[0] + A[1] + A[2] + A[3];
  };
  auto PctTested = [](const std::array<unsigned, NS> &A) {
    unsigned Eligible = A[0] + A[1] + A[2];
    return Eligible ? 100.0 * A[0] / Eligible : 0.0;
  };
  if (Json) {
    json::Object Root;
    Root["isa"] = Isa.getValue();
    auto Counts = [&](const std::array<unsigned, NS> &A) {
      json::Object O;
      O["opcodes"] = int64_t(Sum(A));
      for (unsigned K = 0; K < NS; ++K)
        O[statusName(CoverageStatus(K))] = int64_t(A[K]);
      O["tested_percent_of_non_refused"] = PctTested(A);
      return O;
    };
    json::Object Fam;
    for (const char *F : isaFamilies())
      if (ByFamily.count(F))
        Fam[F] = Counts(ByFamily[F]);
    Root["families"] = std::move(Fam);
    Root["total"] = Counts(Total);
    json::Array Ops;
    for (const OpcodeCoverage &C : *Cov) {
      json::Object O;
      O["name"] = C.Op.Name;
      O["family"] = C.Op.Family;
      O["status"] = statusName(C.Status);
      O["text"] = C.Op.Text;
      if (!C.Why.empty())
        O["why"] = C.Why;
      Ops.push_back(std::move(O));
    }
    Root["opcodes"] = std::move(Ops);
    outs() << formatv("{0:2}", json::Value(std::move(Root))) << "\n";
    return 0;
  }
  outs() << "ISA coverage of the emulator: " << Isa
         << " (opcodes enumerated by decoding)\n";
  outs() << format("%-10s %7s %7s %11s %13s %8s %9s\n", "family", "opcodes",
                   "tested", "impl-untest", "unimplemented", "refused",
                   "tested-%");
  auto Row = [&](StringRef F, const std::array<unsigned, NS> &A) {
    outs() << format("%-10s %7u %7u %11u %13u %8u %8.1f%%\n",
                     F.str().c_str(), Sum(A), A[0], A[1], A[2], A[3],
                     PctTested(A));
  };
  for (const char *F : isaFamilies())
    if (ByFamily.count(F))
      Row(F, ByFamily[F]);
  Row("total", Total);
  outs() << "(tested-% is of the opcodes not refused by design)\n";
  for (CoverageStatus S :
       {CoverageStatus::Refused, CoverageStatus::Unimplemented,
        CoverageStatus::ImplementedUntested}) {
    outs() << "\n" << statusName(S) << " (" << Total[unsigned(S)] << "):\n";
    for (const OpcodeCoverage &C : *Cov) {
      if (C.Status != S)
        continue;
      outs() << "  " << C.Op.Family << " " << C.Op.Name;
      if (S == CoverageStatus::Refused || Verbose)
        outs() << "  [" << (C.Why.empty() ? C.Op.Text : C.Why) << "]";
      outs() << "\n";
    }
  }
  return 0;
}

int coverageCommand() {
  if (!Isa.empty())
    return isaCoverageCommand();
  struct Stat {
    uint64_t Total = 0, Supported = 0;
    std::string Why;
  };
  std::map<std::string, Stat> Stats;
  unsigned Objs = 0;
  for (const std::string &Path : Objects) {
    auto MB = MemoryBuffer::getFile(Path, false);
    if (!MB) {
      WithColor::warning(errs(), "asmevo-verify")
          << "cannot read '" << Path << "'\n";
      continue;
    }
    auto COs = extractCodeObjects((*MB)->getBuffer(), Path);
    if (!COs) {
      WithColor::warning(errs(), "asmevo-verify")
          << toString(COs.takeError()) << "\n";
      continue;
    }
    for (InputCodeObject &IC : *COs) {
      auto CO = CodeObject::create(ArrayRef<uint8_t>(IC.Bytes), IC.Name);
      if (!CO) {
        consumeError(CO.takeError());
        continue;
      }
      if (!(*CO)->target().isGFX90A() && !(*CO)->target().isGFX94X())
        continue;
      auto Emu = Emulator::create(**CO);
      if (!Emu) {
        WithColor::warning(errs(), "asmevo-verify")
            << toString(Emu.takeError()) << "\n";
        continue;
      }
      ++Objs;
      for (const auto &D : (*Emu)->decodedInstructions()) {
        if (D.Mnemonic == "<invalid>")
          continue;
        Stat &S = Stats[D.Mnemonic];
        ++S.Total;
        if (D.Supported)
          ++S.Supported;
        else if (S.Why.empty())
          S.Why = D.OpcodeName + ": " + D.Why;
      }
    }
  }
  std::vector<std::string> Target;
  if (!Mnemonics.empty()) {
    auto MB = MemoryBuffer::getFile(Mnemonics);
    if (!MB) {
      WithColor::error(errs(), "asmevo-verify")
          << "cannot read '" << Mnemonics << "'\n";
      return 2;
    }
    SmallVector<StringRef, 0> Lines;
    (*MB)->getBuffer().split(Lines, '\n', -1, false);
    for (StringRef L : Lines) {
      auto [Count, Name] = L.split('\t');
      uint64_t C;
      if (Count.trim().getAsInteger(10, C))
        continue; // header
      Target.push_back(Name.trim().str());
    }
  } else {
    for (auto &KV : Stats)
      Target.push_back(KV.first);
  }
  auto TestedOr = readTested();
  if (!TestedOr) {
    WithColor::error(errs(), "asmevo-verify")
        << toString(TestedOr.takeError()) << "\n";
    return 2;
  }
  std::set<std::string> TestedSet = std::move(*TestedOr);
  unsigned Impl = 0, ImplOnly = 0;
  std::vector<std::string> Missing;
  std::vector<std::string> Untested;
  for (const std::string &M : Target) {
    auto It = Stats.find(M);
    bool Ok = It != Stats.end() && It->second.Supported == It->second.Total;
    if (Ok)
      ++ImplOnly;
    if (Ok && !Tested.empty() && !TestedSet.count(M)) {
      Untested.push_back(M);
      Ok = false;
    }
    if (Ok)
      ++Impl;
    else if (std::find(Untested.begin(), Untested.end(), M) == Untested.end())
      Missing.push_back(M);
  }
  outs() << "code objects decoded: " << Objs << "\n";
  auto Pct = [&](unsigned N) {
    return Target.empty() ? 0.0 : 100.0 * N / Target.size();
  };
  outs() << "mnemonics implemented: " << ImplOnly << " / " << Target.size()
         << format(" (%.1f%%)", Pct(ImplOnly)) << "\n";
  if (!Tested.empty()) {
    outs() << "mnemonics implemented and tested: " << Impl << " / "
           << Target.size() << format(" (%.1f%%)", Pct(Impl)) << "\n";
    outs() << "implemented, not tested (" << Untested.size() << "):";
    for (const std::string &M : Untested)
      outs() << "\n  " << M;
    outs() << "\n";
  }
  outs() << "missing (" << Missing.size() << "):";
  for (const std::string &M : Missing) {
    outs() << "\n  " << M;
    auto It = Stats.find(M);
    if (It == Stats.end())
      outs() << "  (not seen in the given objects)";
    else if (Verbose)
      outs() << "  [" << It->second.Supported << "/" << It->second.Total
             << "] " << It->second.Why;
  }
  outs() << "\n";
  return 0;
}

} // namespace verify_tool
} // namespace asmevo

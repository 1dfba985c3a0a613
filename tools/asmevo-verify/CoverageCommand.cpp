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
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
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
static cl::opt<std::string>
    Tested("tested",
           cl::desc("Mnemonics with semantic tests, one per line "
                    "(AsmEvoEmulatorTests --print-tested); with it, a "
                    "mnemonic counts only when implemented and tested"),
           cl::value_desc("file"), cl::sub(CoverageCmd));

int coverageCommand() {
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
  std::set<std::string> TestedSet;
  if (!Tested.empty()) {
    auto MB = MemoryBuffer::getFile(Tested);
    if (!MB) {
      WithColor::error(errs(), "asmevo-verify")
          << "cannot read '" << Tested << "'\n";
      return 2;
    }
    SmallVector<StringRef, 0> Lines;
    (*MB)->getBuffer().split(Lines, '\n', -1, false);
    for (StringRef L : Lines)
      if (!L.trim().empty())
        TestedSet.insert(L.trim().str());
  }
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

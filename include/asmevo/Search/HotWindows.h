//===- HotWindows.h - Where a kernel's time goes, as edit windows -*- C++ -*-===//
//
// A hot window is a run of instructions of one block where many samples
// (hardware) or modelled cycles (the cycle model's per-instruction
// attribution) fall: what a search or an agent should edit first. Each
// window is printed with the anchors an edit script needs (block, index,
// text, bytes), so a proposal can be written straight from the report.
// Every figure says where it came from: samples are measurements of some
// GPU run, cycles are a model.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_SEARCH_HOTWINDOWS_H
#define ASMEVO_SEARCH_HOTWINDOWS_H

#include "asmevo/Lift/LiftedModule.h"
#include "asmevo/Search/EditScript.h"
#include "asmevo/Search/PCProfile.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <map>
#include <string>
#include <vector>

namespace asmevo {

struct HotWindowOptions {
  /// Windows reported per code object.
  unsigned Count = 8;
  /// Longest window (instructions).
  unsigned MaxWindow = 16;
  /// A neighbour joins a window while its weight is at least this share of
  /// the window's hottest instruction.
  double JoinShare = 0.05;
  /// Only these functions (the driver's --kernels); empty: all.
  std::vector<std::string> Kernels;
};

struct HotWindow {
  std::string Function;
  unsigned Block = 0, Index = 0;
  std::vector<AnchoredInstr> Instrs;
  std::vector<uint64_t> Addrs;
  std::vector<double> Weights;
  double Weight = 0; ///< Sum of Weights.
  double Share = 0;  ///< Of the code object's placed weight.
};

struct HotWindowReport {
  std::string CodeObject;
  /// "pc-sampling" (measured on a GPU, counts are samples) or "model" (the
  /// cycle model, weights are modelled wave-cycles).
  std::string Source;
  std::string Unit;
  std::string Note;
  /// pc-sampling: how many samples, how many placed on an instruction, and
  /// why the others were not.
  uint64_t Samples = 0, Placed = 0;
  std::map<std::string, uint64_t> Unplaced;
  /// pc-sampling: "host_trap" or "stochastic"; stochastic CSV: samples of
  /// waves that did not issue, per stall reason (the whole file).
  std::string Method;
  std::map<std::string, uint64_t> StallReasons;
  double Total = 0; ///< Placed weight.
  std::vector<HotWindow> Windows;
};

/// Weight per original instruction address (what both sources give).
using AddressWeights = std::map<uint64_t, double>;

/// Samples of \p P placed on the instructions of \p LM's selected
/// functions. JSON samples by address (any code_object_id: the file is
/// taken to profile this code object; an offset that is no instruction's
/// start is unplaced); CSV samples by text, only where the text is unique
/// among the selected functions' instructions.
llvm::Expected<AddressWeights>
placeSamples(LiftedModule &LM, const PCProfile &P, const HotWindowOptions &O,
             HotWindowReport &R);

/// Windows from per-address weights.
llvm::Error buildHotWindows(LiftedModule &LM, const AddressWeights &W,
                            const HotWindowOptions &O, HotWindowReport &R);

/// Both, from a profile.
llvm::Expected<HotWindowReport>
hotWindowsFromProfile(LiftedModule &LM, const PCProfile &P,
                      const HotWindowOptions &O);

/// From the cycle model: the launches of \p SpecPath traced in the emulator
/// and simulated (MI300X parameters), each executed instruction weighted by
/// its modelled wave-cycles.
llvm::Expected<HotWindowReport>
hotWindowsFromModel(LiftedModule &LM, llvm::StringRef SpecPath,
                    const HotWindowOptions &O);

llvm::json::Value toJSON(const HotWindowReport &R);

} // namespace asmevo

#endif

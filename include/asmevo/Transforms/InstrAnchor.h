//===- InstrAnchor.h - An instruction's text and bytes, by position -*- C++ -*-===//
//
// Edit scripts name instructions by block and index and check them by text
// and encoding (docs/edit-script.md). This is the one place that says what
// those are for a lifted instruction, so that the hot-window report, the
// edit recorder and apply-edits agree: an instruction no edit touched is its
// original bytes and the printer's text of them (the printer alone would
// drop forced literals); any other is what LLVM encodes for it now.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_TRANSFORMS_INSTRANCHOR_H
#define ASMEVO_TRANSFORMS_INSTRANCHOR_H

#include "asmevo/Lift/LiftedModule.h"
#include "asmevo/Search/EditScript.h"
#include "llvm/MC/MCInst.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <vector>

namespace llvm {
class MCCodeEmitter;
class MCContext;
} // namespace llvm

namespace asmevo {

/// The instructions of \p MBB that emit bytes, in order: what an anchor's
/// index counts.
std::vector<llvm::MachineInstr *> codeInstrs(llvm::MachineBasicBlock &MBB);

class InstrAnchorer {
public:
  explicit InstrAnchorer(const LiftedModule &LM);
  ~InstrAnchorer();

  /// Text and bytes of \p MI as it stands.
  llvm::Expected<AnchoredInstr> anchor(const llvm::MachineInstr &MI);
  /// Registers and immediates only: an edit never creates anything else.
  /// With \p ZeroSymbolic, a block or symbol operand becomes 0 rather than
  /// an error (the anchor of an edited branch, whose offset layout decides).
  llvm::Expected<llvm::MCInst> lower(const llvm::MachineInstr &MI,
                                     bool ZeroSymbolic = false) const;
  llvm::Expected<std::vector<uint8_t>> encode(const llvm::MCInst &Inst);
  std::string print(const llvm::MCInst &Inst, uint64_t Addr = 0) const;
  /// instructionFingerprint of every instruction of \p MF, in order.
  llvm::Expected<uint64_t> fingerprint(llvm::MachineFunction &MF);

private:
  const LiftedModule &LM;
  std::unique_ptr<llvm::MCContext> Ctx;
  std::unique_ptr<llvm::MCCodeEmitter> Emitter;
};

} // namespace asmevo

#endif

//===- FunctionLifter.h - One code range to one MachineFunction -*- C++ -*-===//
#ifndef ASMEVO_LIB_LIFT_FUNCTIONLIFTER_H
#define ASMEVO_LIB_LIFT_FUNCTIONLIFTER_H

#include "asmevo/Lift/InstrKinds.h"
#include "asmevo/Lift/LiftedModule.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCInst.h"
#include <functional>
#include <optional>

namespace asmevo {

/// What the lifter and the emitter ask of an opcode's name, answered once
/// per opcode rather than once per instruction (each question about a
/// C-string name is a strlen).
struct OpcodeTraits {
  bool Known = false;
  bool VALU = false;       // "V_*"
  bool SignedSOPK = false; // "S_*K_I32*"
  bool SDWA = false;       // "*_sdwa*"
  bool GetPC = false;
  FlowKind Flow = FlowKind::None;
};
const OpcodeTraits &opcodeTraits(const llvm::MCInstrInfo &II, unsigned Opc);

struct DecodedInst {
  uint64_t Addr = 0;
  uint32_t Size = 0;
  llvm::MCInst Inst;
};

/// Decodes [Addr, Addr+Size) of the code object. Stops at the first word
/// that does not decode and reports its address through \p BadAddr.
std::vector<DecodedInst> decodeRange(const TargetContext &TC,
                                     llvm::ArrayRef<uint8_t> Bytes,
                                     uint64_t Addr,
                                     std::optional<uint64_t> &BadAddr);
/// The same into \p Out (cleared first), to reuse its storage.
void decodeRange(const TargetContext &TC, llvm::ArrayRef<uint8_t> Bytes,
                 uint64_t Addr, std::optional<uint64_t> &BadAddr,
                 std::vector<DecodedInst> &Out);

/// A PC-relative address computation: s_getpc_b64 sN:N+1, then
/// s_add_u32 sN, sN, lo and s_addc_u32 sN+1, sN+1, hi.
struct PCRelSite {
  unsigned GetPCIdx, LoIdx, HiIdx; ///< Indices into the decoded range.
  uint64_t Target;                 ///< The address it computes.
  uint64_t GetPCNext;              ///< The value s_getpc_b64 produced.
};

/// Every such computation in \p Insts. The search for an s_getpc_b64's
/// add/addc pair stops before an instruction \p StartsBlock names and
/// after one \p ChangesFlow names; when it fails, \p BadGetPC is that
/// s_getpc_b64's index (a use AsmEvo cannot follow) and the sites found
/// before it are returned.
std::vector<PCRelSite>
findPCRelSites(const TargetContext &TC, llvm::ArrayRef<DecodedInst> Insts,
               llvm::function_ref<bool(unsigned)> StartsBlock,
               llvm::function_ref<bool(unsigned)> ChangesFlow,
               std::optional<unsigned> &BadGetPC);

/// Builds MachineInstr operands for \p MI from a decoded MCInst, normalized
/// to the MCInstrDesc operand count. Branch targets and PC-relative
/// literals are left as immediates; the caller makes them symbolic.
using OperandOverride =
    std::function<std::optional<llvm::MachineOperand>(unsigned Idx)>;
void addOperandsFromMCInst(llvm::MachineFunction &MF, llvm::MachineInstr &MI,
                           const llvm::MCInst &Inst,
                           const OperandOverride &Override = nullptr);

class FunctionLifter {
public:
  FunctionLifter(LiftedModule &LM, LiftedFunction &LF) : LM(LM), LF(LF) {}
  /// Fills LF; marks it non-simple with a reason instead of failing.
  void run();
  /// Block live-ins and the MachineVerifier gate; may mark LF non-simple.
  void finalize();

private:
  bool markNonSimple(uint64_t Addr, const llvm::Twine &Why);
  void checkWithVerifier();
  void tieSDWAPreserve(llvm::MachineInstr &MI);
  LiftedModule &LM;
  LiftedFunction &LF;
};

} // namespace asmevo

#endif

//===- ExecMask.h - What the EXEC-region passes share -----------*- C++ -*-===//
//
// exec-loop-pipeline, exec-loop-flatten, exec-if-flatten and
// hoist-guarded-load all read the compiler's lane-mask idiom: an if is
// `sS = s_and_saveexec_b64 sC ... exec = s_or_b64 exec, sS`. They also
// name VGPRs by index and weigh occupancy by VGPR count. One copy of each.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_LIB_TRANSFORMS_EXECMASK_H
#define ASMEVO_LIB_TRANSFORMS_EXECMASK_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/CodeGen/MachineInstr.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>
#include <optional>

namespace asmevo {

constexpr unsigned NumVGPRs = 512;

/// \p Name is \p Base or \p Base with an encoding suffix ("_vi", "_e32").
inline bool isOp(llvm::StringRef Name, llvm::StringRef Base) {
  return Name == Base || (Name.starts_with(Base) && Name.size() > Base.size() &&
                          Name[Base.size()] == '_');
}

inline bool isExecRegister(const llvm::MCRegisterInfo &MRI, llvm::Register R) {
  if (!R)
    return false;
  llvm::StringRef N = MRI.getName(R);
  return N == "EXEC" || N == "EXEC_LO" || N == "EXEC_HI";
}

inline bool writesExec(const llvm::MachineInstr &MI,
                       const llvm::MCRegisterInfo &MRI) {
  for (const llvm::MachineOperand &MO : MI.operands())
    if (MO.isReg() && MO.isDef() && isExecRegister(MRI, MO.getReg()))
      return true;
  return false;
}

/// sS = s_and_saveexec_b64 sC (EXEC narrowed, the old one saved in sS).
inline bool isSaveExec(const llvm::MachineInstr &MI,
                       const llvm::TargetInstrInfo &TII) {
  return isOp(TII.getName(MI.getOpcode()), "S_AND_SAVEEXEC_B64") &&
         MI.getOperand(0).isReg();
}

/// exec = s_or_b64 exec, \p S (either order): EXEC put back from \p S.
inline bool isRestoreExec(const llvm::MachineInstr &MI,
                          const llvm::TargetInstrInfo &TII,
                          const llvm::MCRegisterInfo &MRI, llvm::Register S) {
  if (!isOp(TII.getName(MI.getOpcode()), "S_OR_B64") ||
      MI.getNumExplicitOperands() < 3 || !MI.getOperand(0).isReg() ||
      !isExecRegister(MRI, MI.getOperand(0).getReg()))
    return false;
  const llvm::MachineOperand &A = MI.getOperand(1), &B = MI.getOperand(2);
  return A.isReg() && B.isReg() &&
         ((isExecRegister(MRI, A.getReg()) && B.getReg() == S) ||
          (isExecRegister(MRI, B.getReg()) && A.getReg() == S));
}

/// The 32-bit VGPRs a register names: VGPR8_VGPR9 -> {8, 2}. Half is set
/// for 16-bit halves and anything else this does not read as whole VGPRs.
struct VRange {
  unsigned First = 0, Count = 0;
  bool Half = false;
};

inline std::optional<VRange> vgprsOf(const llvm::MCRegisterInfo &MRI,
                                     llvm::MCRegister R) {
  llvm::StringRef N = MRI.getName(R);
  if (!N.starts_with("VGPR"))
    return std::nullopt;
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  N.split(Parts, '_');
  VRange V;
  for (llvm::StringRef P : Parts) {
    unsigned Idx;
    if (!P.consume_front("VGPR") || P.getAsInteger(10, Idx) ||
        Idx >= NumVGPRs || (V.Count && Idx != V.First + V.Count)) {
      V.Half = true;
      continue;
    }
    if (!V.Count)
      V.First = Idx;
    ++V.Count;
  }
  if (!V.Count)
    V.Half = true;
  return V;
}

/// A VGPR write that keeps the rest of its register (a 16-bit half, an SDWA
/// or D16 destination, one lane): it reads the register too.
inline bool writesPartOfVGPR(llvm::StringRef Name) {
  if (Name.contains("_sdwa") || Name.contains("WRITELANE") ||
      Name.contains("D16"))
    return true;
  return Name.contains("16") && !Name.contains("PK_") &&
         !Name.contains("MFMA");
}

/// Moves values between lanes or names VGPRs indirectly: beyond what the
/// per-lane register reasoning of the loop passes covers.
inline bool crossesLanes(llvm::StringRef Name) {
  for (const char *S : {"READLANE", "WRITELANE", "PERMUTE", "PERMLANE",
                        "SWIZZLE", "DPP", "_dpp", "MOVREL", "GPR_IDX"})
    if (Name.contains(S))
      return true;
  return false;
}

/// Scalar instructions whose effect or result depends on when they run
/// (counters, hardware registers, the program counter, mode bits): they
/// keep their place among the ALU work a loop pass moves.
inline bool readsMachineState(llvm::StringRef Name) {
  for (const char *S : {"GETREG", "MEMTIME", "MEMREALTIME", "GETPC", "TRAP",
                        "DENORM", "ROUND", "GPR_IDX", "SETVSKIP", "SETHALT"})
    if (Name.contains(S))
      return true;
  return false;
}

/// Waves per SIMD that \p VGPRs (VGPR+AGPR, granule 8) allow on gfx90a+.
inline unsigned wavesPerSIMD(unsigned VGPRs) {
  unsigned R = std::max(8u, (unsigned)llvm::alignTo(VGPRs, 8));
  return std::min(8u, 512 / R);
}

} // namespace asmevo

#endif

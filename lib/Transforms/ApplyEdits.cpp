//===- ApplyEdits.cpp - Anchored edits applied to a lifted function -------===//
//
// Every check runs before the edit changes anything, and every instruction
// an edit creates or changes is encoded at once, so that a refused edit is
// an error here, with the edit's name, and never a verdict of the gate.
//
//===----------------------------------------------------------------------===//
#include "asmevo/Transforms/ApplyEdits.h"
#include "EditAsm.h"
#include "EditSupport.h"
#include "asmevo/Analysis/ISAFacts.h"
#include "asmevo/Lift/InstrKinds.h"
#include "asmevo/Transforms/InstrAnchor.h"
#include "asmevo/Transforms/Pass.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace asmevo;

namespace {

/// A resolved anchor: the block, the window's instructions, and where an
/// insertion before the window goes.
struct Window {
  MachineBasicBlock *MBB = nullptr;
  unsigned Block = 0, Index = 0;
  std::vector<MachineInstr *> Instrs;
  MachineBasicBlock::iterator Pos;
};

class EditApplier {
public:
  EditApplier(LiftedModule &LM, LiftedFunction &LF, const EditScript &S,
              size_t I, StringRef ScriptName)
      : LM(LM), LF(LF), TC(LM.target()), E(S.Edits[I]), Anchors(LM),
        Region(LF) {
    Prefix = (ScriptName + ": " + describeEdit(S, I) + ": function '" +
              LF.Range.Name + "'")
                 .str();
  }
  Error run();

private:
  Error dispatch();
  Error fail(const Twine &Msg) const {
    return createStringError(Prefix + ": " + Msg);
  }
  Error failAt(const Window &W, unsigned J, const Twine &Msg) const {
    return fail("block " + Twine(W.Block) + " index " + Twine(W.Index + J) +
                ": " + Msg);
  }
  Expected<Window> resolve(const Anchor &A, bool AllowEnd);
  /// \p InPlace: the edit changes operands and leaves the instructions
  /// where they are, so a pinned one (a symbol's address) may be changed.
  Error checkTouchable(const Window &W, bool InPlace = false);
  Error checkInsertPoint(const Window &W);
  Expected<std::vector<MachineInstr *>>
  buildInstructions(ArrayRef<std::string> Lines);
  Error checkEncodable(const MachineInstr &MI, StringRef What);

  Error replace();
  Error insert();
  Error erase();
  Error move();
  Error setWaitcnt();
  Error setNop();
  Error rename();
  Error pass();

  LiftedModule &LM;
  LiftedFunction &LF;
  const TargetContext &TC;
  const Edit &E;
  InstrAnchorer Anchors;
  EditableRegion Region;
  std::string Prefix;
};

} // namespace

Expected<Window> EditApplier::resolve(const Anchor &A, bool AllowEnd) {
  Window W;
  W.Block = A.Block;
  W.Index = A.Index;
  unsigned NB = 0;
  for (MachineBasicBlock &MBB : *LF.MF)
    if (NB++ == A.Block)
      W.MBB = &MBB;
  if (!W.MBB)
    return fail("block " + Twine(A.Block) + " does not exist (the function " +
                "has " + Twine(NB) + " blocks)");
  std::vector<MachineInstr *> Code = codeInstrs(*W.MBB);
  size_t N = A.Instrs.size();
  if (A.Index + N > Code.size() || (N == 0 && A.Index != Code.size()))
    return fail("block " + Twine(A.Block) + " holds " + Twine(Code.size()) +
                " instructions; a window of " + Twine(N) + " at index " +
                Twine(A.Index) + " does not fit" +
                (N == 0 ? " (an empty window is the block's end)" : ""));
  if (N == 0 && !AllowEnd)
    return fail("the window is empty");
  for (size_t J = 0; J < N; ++J) {
    MachineInstr *MI = Code[A.Index + J];
    auto Have = Anchors.anchor(*MI);
    if (!Have)
      return failAt(W, J, toString(Have.takeError()));
    const AnchoredInstr &Want = A.Instrs[J];
    if (Have->Bytes != Want.Bytes)
      return failAt(W, J, "bytes do not match (stale edit): the script says " +
                              bytesToHex(Want.Bytes) + ", the kernel has " +
                              bytesToHex(Have->Bytes) + " ('" + Have->Text +
                              "')");
    if (normalizeInstrText(Have->Text) != normalizeInstrText(Want.Text))
      return failAt(W, J, "text does not match (stale edit): the script says '" +
                              Want.Text + "', the kernel has '" + Have->Text +
                              "'");
    W.Instrs.push_back(MI);
  }
  W.Pos = N ? MachineBasicBlock::iterator(W.Instrs.front())
            : (A.Index < Code.size() ? MachineBasicBlock::iterator(Code[A.Index])
                                     : W.MBB->end());
  return W;
}

Error EditApplier::checkTouchable(const Window &W, bool InPlace) {
  if (Region.inPrologue(*W.MBB))
    return fail("block " + Twine(W.Block) +
                " is in the kernel-argument preload prologue, which is never "
                "edited (the kernel's preload entry at +256 is a fixed point)");
  for (unsigned J = 0; J < W.Instrs.size(); ++J) {
    const MachineInstr &MI = *W.Instrs[J];
    if (!InPlace && Region.pinned(MI))
      return failAt(W, J, "the first instruction of the function or of its "
                          "preload entry is never edited (a symbol is "
                          "defined at its address)");
    if (Error Err = checkRemovable(TC, MI.getOpcode()))
      return failAt(W, J, toString(std::move(Err)));
    if (!hasOnlyRegImmOperands(MI))
      return failAt(W, J, "has a block or PC-relative symbol operand; edits "
                          "never touch control flow or PC-relative code");
  }
  return Error::success();
}

Error EditApplier::checkInsertPoint(const Window &W) {
  if (Region.inPrologue(*W.MBB))
    return fail("block " + Twine(W.Block) +
                " is in the kernel-argument preload prologue, which is never "
                "edited (the kernel's preload entry at +256 is a fixed point)");
  if (W.MBB == LF.PreloadEntry && W.Index == 0)
    return fail("block " + Twine(W.Block) +
                " index 0 is the preload entry at +256; nothing goes before "
                "it");
  if (W.Pos == W.MBB->end()) {
    std::vector<MachineInstr *> Code = codeInstrs(*W.MBB);
    if (!Code.empty() &&
        (Code.back()->isTerminator() || Code.back()->isBarrier() ||
         Code.back()->isBranch()))
      return fail("block " + Twine(W.Block) + " ends in '" +
                  Anchors.print(*Anchors.lower(*Code.back(), true)) +
                  "'; nothing goes after it");
  }
  return Error::success();
}

/// The lifter's MCInst -> MachineInstr conversion, so that an edit's
/// instruction looks exactly like a lifted one (canonical registers,
/// implicit operands, normalized immediates).
Expected<std::vector<MachineInstr *>>
EditApplier::buildInstructions(ArrayRef<std::string> Lines) {
  MachineFunction &MF = *LF.MF;
  std::vector<MachineInstr *> Out;
  auto Discard = [&] {
    for (MachineInstr *MI : Out)
      MF.deleteMachineInstr(MI);
  };
  for (size_t J = 0; J < Lines.size(); ++J) {
    auto Inst = parseEditInstruction(TC, Lines[J]);
    if (!Inst) {
      Discard();
      return fail("asm[" + Twine(J) + "]: " + toString(Inst.takeError()));
    }
    MachineInstr *MI = createMachineInstr(MF, *Inst);
    Out.push_back(MI);
    // MachineIR must hold the instruction as the assembler meant it.
    auto Want = Anchors.encode(*Inst);
    auto Low = Anchors.lower(*MI);
    Expected<std::vector<uint8_t>> Have =
        Low ? Anchors.encode(*Low) : Expected<std::vector<uint8_t>>(
                                         Low.takeError());
    if (!Want || !Have || *Want != *Have) {
      std::string Why = !Want   ? toString(Want.takeError())
                        : !Have ? toString(Have.takeError())
                                : "MachineIR cannot hold it without changing "
                                  "its encoding";
      Discard();
      return fail("asm[" + Twine(J) + "] '" + Lines[J] +
                  "': unencodable: " + Why);
    }
  }
  return Out;
}

Error EditApplier::checkEncodable(const MachineInstr &MI, StringRef What) {
  // Printing and assembling again is the assembler's judgement of operands
  // an edit changed (a misaligned tuple, a register beyond the file).
  auto Low = Anchors.lower(MI);
  if (!Low)
    return fail(What + ": " + toString(Low.takeError()));
  std::string Text = Anchors.print(*Low);
  auto Again = parseEditInstruction(TC, Text);
  if (!Again)
    return fail(What + " gives '" + Text +
                "', which is refused: " + toString(Again.takeError()));
  auto A = Anchors.encode(*Low), B = Anchors.encode(*Again);
  if (!A || !B || *A != *B) {
    if (!A)
      consumeError(A.takeError());
    if (!B)
      consumeError(B.takeError());
    return fail(What + " gives '" + Text + "', which does not encode as "
                "written (unencodable)");
  }
  return Error::success();
}

Error EditApplier::replace() {
  auto W = resolve(*E.At, false);
  if (!W)
    return W.takeError();
  if (Error Err = checkTouchable(*W))
    return Err;
  auto New = buildInstructions(E.Asm);
  if (!New)
    return New.takeError();
  for (MachineInstr *MI : *New)
    W->MBB->insert(W->Pos, MI);
  for (MachineInstr *MI : W->Instrs)
    MI->eraseFromParent();
  return Error::success();
}

Error EditApplier::insert() {
  auto W = resolve(*E.At, true);
  if (!W)
    return W.takeError();
  if (Error Err = checkInsertPoint(*W))
    return Err;
  auto New = buildInstructions(E.Asm);
  if (!New)
    return New.takeError();
  for (MachineInstr *MI : *New)
    W->MBB->insert(W->Pos, MI);
  return Error::success();
}

Error EditApplier::erase() {
  auto W = resolve(*E.At, false);
  if (!W)
    return W.takeError();
  if (Error Err = checkTouchable(*W))
    return Err;
  for (MachineInstr *MI : W->Instrs)
    MI->eraseFromParent();
  return Error::success();
}

Error EditApplier::move() {
  auto W = resolve(*E.At, false);
  if (!W)
    return W.takeError();
  if (Error Err = checkTouchable(*W))
    return Err;
  // `to` is anchored in the function as it stands before the move.
  auto T = resolve(*E.To, true);
  if (!T)
    return T.takeError();
  if (Error Err = checkInsertPoint(*T))
    return Err;
  if (T->Pos != T->MBB->end() && is_contained(W->Instrs, &*T->Pos) &&
      &*T->Pos != W->Instrs.front())
    return fail("'to' (block " + Twine(T->Block) + " index " +
                Twine(T->Index) + ") is inside the moved window");
  for (MachineInstr *MI : W->Instrs)
    T->MBB->splice(T->Pos, W->MBB, MI);
  return Error::success();
}

static bool isPlainWaitcnt(StringRef Name) {
  // S_WAITCNT and its encodings (S_WAITCNT_vi, S_WAITCNT_gfx*), not the
  // other counters' forms (S_WAITCNT_VSCNT, S_WAITCNT_DEPCTR, ...).
  if (!Name.consume_front("S_WAITCNT"))
    return false;
  return Name.empty() || (Name.size() > 1 && Name[0] == '_' && isLower(Name[1]));
}

Error EditApplier::setWaitcnt() {
  auto W = resolve(*E.At, false);
  if (!W)
    return W.takeError();
  MachineInstr &MI = *W->Instrs.front();
  if (!isPlainWaitcnt(TC.opcodeName(MI.getOpcode())) ||
      MI.getNumOperands() == 0 || !MI.getOperand(0).isImm())
    return failAt(*W, 0, "is not an s_waitcnt");
  if (Error Err = checkTouchable(*W, /*InPlace=*/true))
    return Err;
  WaitcntValue V = WaitcntValue::decode(MI.getOperand(0).getImm());
  if (E.Vmcnt)
    V.VM = *E.Vmcnt;
  if (E.Expcnt)
    V.Exp = *E.Expcnt;
  if (E.Lgkmcnt)
    V.Lgkm = *E.Lgkmcnt;
  MI.getOperand(0).setImm(V.encode());
  return checkEncodable(MI, "the new wait");
}

Error EditApplier::setNop() {
  auto W = resolve(*E.At, false);
  if (!W)
    return W.takeError();
  MachineInstr &MI = *W->Instrs.front();
  if (!TC.opcodeName(MI.getOpcode()).starts_with("S_NOP") ||
      MI.getNumOperands() == 0 || !MI.getOperand(0).isImm())
    return failAt(*W, 0, "is not an s_nop");
  if (Error Err = checkTouchable(*W, /*InPlace=*/true))
    return Err;
  MI.getOperand(0).setImm(E.NopImm);
  return checkEncodable(MI, "the new s_nop");
}

Error EditApplier::rename() {
  auto W = resolve(*E.At, false);
  if (!W)
    return W.takeError();
  if (Error Err = checkTouchable(*W, /*InPlace=*/true))
    return Err;
  MCRegister From = TC.reg(E.From), To = TC.reg(E.ToReg);
  if (!From)
    return fail("'from' register '" + E.From + "' does not exist on " +
                TC.info().Processor);
  if (!To)
    return fail("'to' register '" + E.ToReg + "' does not exist on " +
                TC.info().Processor + " (out of range)");
  const TargetRegisterInfo &TRI = *LF.MF->getSubtarget().getRegisterInfo();
  // Only general-purpose registers are renamed: "v5", "s[4:5]", "a3".
  // Special registers (vcc, exec, m0, scc) carry meaning a rename breaks.
  auto Kind = [](StringRef R) -> std::string {
    R = R.trim();
    if (R.size() < 2 || !StringRef("sva").contains(toLower(R.front())))
      return "";
    StringRef Rest = R.drop_front();
    unsigned N;
    if (!Rest.getAsInteger(10, N))
      return R.take_front(1).lower();
    if (Rest.consume_front("[") && Rest.consume_back("]")) {
      auto [Lo, Hi] = Rest.split(':');
      unsigned L, H;
      if (!Lo.getAsInteger(10, L) && !Hi.getAsInteger(10, H))
        return R.take_front(1).lower();
    }
    return "";
  };
  const TargetRegisterClass *FC = TRI.getMinimalPhysRegClass(From);
  const TargetRegisterClass *TCls = TRI.getMinimalPhysRegClass(To);
  if (Kind(E.From).empty() || Kind(E.From) != Kind(E.ToReg) || !FC || !TCls ||
      TRI.getRegSizeInBits(*FC) != TRI.getRegSizeInBits(*TCls))
    return fail("'" + E.From + "' and '" + E.ToReg +
                "' are not general-purpose registers (s, v, a) of one kind "
                "and size");
  if (Error Err = checkRegister(TC, To))
    return fail("'to': " + toString(std::move(Err)));
  bool Any = false;
  for (unsigned J = 0; J < W->Instrs.size(); ++J) {
    MachineInstr &MI = *W->Instrs[J];
    for (MachineOperand &MO : MI.operands()) {
      if (!MO.isReg() || !MO.getReg())
        continue;
      if (MO.getReg() == From.id()) {
        MO.setReg(To);
        Any = true;
      } else if (TRI.regsOverlap(MO.getReg(), From)) {
        return failAt(*W, J, "operand " + asmRegName(TC, MO.getReg()) +
                                 " overlaps '" + E.From +
                                 "' without being it; rename the whole tuple");
      }
    }
  }
  if (!Any)
    return fail("no instruction of the window names '" + E.From + "'");
  for (unsigned J = 0; J < W->Instrs.size(); ++J)
    if (Error Err = checkEncodable(*W->Instrs[J],
                                   "renaming at index " + Twine(W->Index + J).str()))
      return Err;
  return Error::success();
}

namespace {
/// An instruction and what it was, to tell whether a pass left it alone.
struct Snap {
  MachineInstr *MI;
  unsigned Hash;
};
} // namespace

static std::vector<std::vector<Snap>> snapshot(MachineFunction &MF) {
  std::vector<std::vector<Snap>> Out;
  for (MachineBasicBlock &MBB : MF) {
    Out.emplace_back();
    for (MachineInstr *MI : codeInstrs(MBB))
      Out.back().push_back(
          {MI, (unsigned)MachineInstrExpressionTrait::getHashValue(MI)});
  }
  return Out;
}

static bool sameSnap(const Snap &A, const Snap &B) {
  return A.MI == B.MI && A.Hash == B.Hash;
}

Error EditApplier::pass() {
  const PassEntry *P = findPass(E.PassName);
  if (!P)
    return fail("unknown pass '" + E.PassName + "' (asmevo-opt --list-passes)");
  if (E.PassName == "apply-edits")
    return fail("apply-edits cannot be an edit");
  std::unique_ptr<asmevo::Pass> TheP = P->Create();
  std::optional<RewriteFilter> Filter;
  PassParams Params;
  for (const auto &KV : E.Params) {
    if (KV.first != "rewrites") {
      const PassParamInfo *I = findPassParam(*P, KV.first);
      if (!I)
        return fail("pass '" + E.PassName + "' has no parameter '" +
                    KV.first.str() + "'");
      std::optional<int64_t> N = KV.second.getAsInteger();
      if (!N || *N < I->Min || *N > I->Max)
        return fail(formatv("pass '{0}': parameter '{1}' must be an integer "
                            "from {2} to {3}",
                            E.PassName, KV.first.str(), I->Min, I->Max)
                        .str());
      Params[KV.first.str()] = *N;
      continue;
    }
    const json::Array *A = KV.second.getAsArray();
    std::set<unsigned> Enabled;
    for (size_t J = 0; A && J < A->size(); ++J) {
      std::optional<int64_t> N = (*A)[J].getAsInteger();
      if (!N || *N < 0 || *N > 1000000)
        A = nullptr;
      else
        Enabled.insert(*N);
    }
    if (!A)
      return fail("'rewrites' must be a list of rewrite numbers (0 to "
                  "1000000)");
    Filter.emplace(std::move(Enabled));
  }
  if (Filter)
    TheP->setRewriteFilter(&*Filter);
  TheP->setParams(std::move(Params));

  std::optional<Window> W;
  std::vector<std::vector<Snap>> Before;
  if (E.At) {
    auto R = resolve(*E.At, false);
    if (!R)
      return R.takeError();
    W = std::move(*R);
    // The pass keeps to its own rules inside the window (it never moves a
    // pinned instruction); what it may not do is change anything outside.
    if (Error Err = checkTouchable(*W, /*InPlace=*/true))
      return Err;
    Before = snapshot(*LF.MF);
  } else if (E.Fingerprint) {
    auto FP = Anchors.fingerprint(*LF.MF);
    if (!FP)
      return fail(toString(FP.takeError()));
    if (*FP != *E.Fingerprint)
      return fail(formatv("the function's fingerprint is {0:x-16}, the "
                          "script says {1:x-16} (stale edit: the function is "
                          "not what the pass ran on)",
                          *FP, *E.Fingerprint)
                      .str());
  }
  auto Changed = TheP->run(LM, LF);
  if (!Changed)
    return fail("pass '" + E.PassName + "': " + toString(Changed.takeError()));
  if (!W)
    return Error::success();
  // Outside the window, the pass must have left every instruction where and
  // as it was: the window's block keeps its prefix and suffix, every other
  // block all of its instructions.
  std::vector<std::vector<Snap>> After = snapshot(*LF.MF);
  if (After.size() != Before.size())
    return fail("pass '" + E.PassName + "' changed the function's blocks, "
                "outside the window");
  for (unsigned B = 0; B < Before.size(); ++B) {
    const auto &X = Before[B], &Y = After[B];
    unsigned Pre = B == W->Block ? W->Index : X.size();
    unsigned Post = B == W->Block ? X.size() - W->Index - W->Instrs.size() : 0;
    bool Same = Y.size() >= Pre + Post && (B == W->Block || Y.size() == X.size());
    for (unsigned J = 0; Same && J < Pre; ++J)
      Same = sameSnap(X[J], Y[J]);
    for (unsigned J = 0; Same && J < Post; ++J)
      Same = sameSnap(X[X.size() - 1 - J], Y[Y.size() - 1 - J]);
    if (!Same)
      return fail("pass '" + E.PassName + "' changed block " + Twine(B) +
                  " outside the window (block " + Twine(W->Block) + " index " +
                  Twine(W->Index) + ", " + Twine(W->Instrs.size()) +
                  " instructions); select its rewrites with params.rewrites");
  }
  return Error::success();
}

/// Each s_getpc_b64 with the code after it up to the second instruction
/// with a relocated operand (its s_add_u32/s_addc_u32 pair): the lifter
/// resolved the pair's offsets for exactly that distance, so no edit may
/// move, add, remove or resize anything inside such a run.
static std::vector<std::vector<const MachineInstr *>>
pcRelativeRuns(MachineFunction &MF, const TargetContext &TC) {
  std::vector<std::vector<const MachineInstr *>> Runs;
  for (MachineBasicBlock &MBB : MF)
    for (auto It = MBB.begin(); It != MBB.end(); ++It) {
      if (It->isMetaInstruction() || !isGetPC(TC.opcodeName(It->getOpcode())))
        continue;
      std::vector<const MachineInstr *> Run;
      unsigned Relocated = 0;
      for (auto J = It; J != MBB.end() && Relocated < 2; ++J) {
        if (J->isMetaInstruction())
          continue;
        Run.push_back(&*J);
        if (J != It && !hasOnlyRegImmOperands(*J))
          ++Relocated;
      }
      Runs.push_back(std::move(Run));
    }
  return Runs;
}

Error EditApplier::run() {
  MachineFunction &MF = *LF.MF;
  auto Before = pcRelativeRuns(MF, TC);
  if (Error Err = dispatch())
    return Err;
  if (pcRelativeRuns(MF, TC) != Before)
    return fail("it moves, adds or removes code between an 's_getpc_b64' "
                "and the s_add_u32/s_addc_u32 that use its address; their "
                "PC-relative offsets were resolved for the distance as it "
                "was");
  return Error::success();
}

Error EditApplier::dispatch() {
  switch (E.Kind) {
  case EditKind::Replace:
    return replace();
  case EditKind::Insert:
    return insert();
  case EditKind::Delete:
    return erase();
  case EditKind::Move:
    return move();
  case EditKind::SetWaitcnt:
    return setWaitcnt();
  case EditKind::SetNop:
    return setNop();
  case EditKind::Rename:
    return rename();
  case EditKind::Pass:
    return pass();
  }
  return fail("unknown edit kind");
}

Error asmevo::checkEditScriptModule(const LiftedModule &LM,
                                    const EditScript &S, StringRef ScriptName) {
  const std::string &Proc = LM.target().info().Processor;
  if (!S.Target.empty() && S.Target != Proc)
    return createStringError(ScriptName + ": the script is for " + S.Target +
                             ", the code object for " + Proc);
  for (size_t I = 0; I < S.Edits.size(); ++I) {
    const Edit &E = S.Edits[I];
    auto It = find_if(LM.functions(), [&](const LiftedFunction &LF) {
      return LF.Range.Name == E.Function;
    });
    std::string What = (ScriptName + ": " + describeEdit(S, I) +
                        ": function '" + E.Function + "'")
                           .str();
    if (It == LM.functions().end())
      return createStringError(What + " is not in " + LM.original().name() +
                               " (or was not lifted: --kernels)");
    if (!It->Simple || !It->MF)
      return createStringError(What + " is not simple (" + It->Reason +
                               "); it keeps its bytes and cannot be edited");
  }
  return Error::success();
}

Error asmevo::applyEditScript(LiftedModule &LM, LiftedFunction &LF,
                              const EditScript &S, StringRef ScriptName) {
  for (size_t I = 0; I < S.Edits.size(); ++I)
    if (S.Edits[I].Function == LF.Range.Name)
      if (Error E = EditApplier(LM, LF, S, I, ScriptName).run())
        return E;
  return Error::success();
}

Error asmevo::applyEditScript(LiftedModule &LM, const EditScript &S,
                              StringRef ScriptName) {
  LM.finalize();
  if (Error E = checkEditScriptModule(LM, S, ScriptName))
    return E;
  for (LiftedFunction &LF : LM.functions())
    if (LF.Simple && LF.MF)
      if (Error E = applyEditScript(LM, LF, S, ScriptName))
        return E;
  return Error::success();
}

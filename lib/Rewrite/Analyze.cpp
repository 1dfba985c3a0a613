//===- Analyze.cpp - What asmevo-opt --analyze prints ---------------------===//
#include "asmevo/Rewrite/Analyze.h"
#include "asmevo/Analysis/FunctionAnalysis.h"
#include "asmevo/Analysis/Resources.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;

static std::string hex(uint64_t A) {
  return A == ~0ull ? std::string("null") : "0x" + utohexstr(A, true);
}

/// What a waitcnt violation waits for: a register, or for barriers and
/// releases the memory they publish.
static std::string waitedFor(const WaitViolation &V) {
  if (!V.Reg.empty())
    return RegSlotMap::name(V.Reg);
  return V.Kind == WaitNeedKind::Release ? "vmem" : "lds";
}

static StringRef kindName(WaitNeedKind K) {
  switch (K) {
  case WaitNeedKind::Read:
    return "read";
  case WaitNeedKind::WriteAfterWrite:
    return "write-after-write";
  case WaitNeedKind::Barrier:
    return "barrier";
  case WaitNeedKind::Release:
    return "release";
  }
  return "?";
}

namespace {
struct ModuleResult {
  std::vector<FunctionAnalysis> Fns;
  std::vector<std::optional<KernelResources>> Res;
};
} // namespace

static ModuleResult analyzeModule(LiftedModule &LM, const ISAFacts &F) {
  ModuleResult M;
  std::vector<RegisterUse> Uses;
  std::vector<bool> Calls;
  for (LiftedFunction &LF : LM.functions()) {
    M.Fns.push_back(analyzeFunction(LM, LF, F));
    Uses.push_back(M.Fns.back().Regs);
    bool C = false;
    for (const InstrRecord &I : M.Fns.back().Seq.Instrs)
      C |= I.F->Flow == FlowKind::Call;
    Calls.push_back(C);
  }
  for (unsigned I = 0; I < LM.functions().size(); ++I) {
    const LiftedFunction &LF = LM.functions()[I];
    if (LF.Range.IsKernel && LF.Range.KernelIndex >= 0 &&
        (size_t)LF.Range.KernelIndex < LM.original().kernels().size())
      M.Res.push_back(kernelResources(LM, F, I, Uses, Calls));
    else
      M.Res.push_back(std::nullopt);
  }
  return M;
}

static json::Object occupancyJSON(const Occupancy &O) {
  json::Object J{{"waves_per_simd", O.WavesPerSIMD},
                 {"by_vgpr", O.ByVGPR},
                 {"by_sgpr", O.BySGPR},
                 {"waves_per_cu", O.WavesPerCU}};
  if (O.ByLDS)
    J["by_lds"] = *O.ByLDS;
  return J;
}

static json::Value functionJSON(const FunctionAnalysis &A,
                                const std::optional<KernelResources> &R) {
  const LiftedFunction &LF = *A.LF;
  const InstrSeq &S = A.Seq;
  auto Name = [&](unsigned I) { return S.Instrs[I].F->Name.str(); };
  json::Object J{{"name", LF.Range.Name},
                 {"address", hex(LF.Range.Addr)},
                 {"kernel", LF.Range.IsKernel},
                 {"simple", LF.Simple},
                 {"instructions", (int64_t)S.Instrs.size()},
                 {"blocks", A.CFG.NumBlocks},
                 {"edges", A.CFG.NumEdges},
                 {"unreachable_blocks", A.CFG.Unreachable},
                 {"nops", A.NumNops},
                 {"cfg_source", A.FromBytes ? "bytes" : "machine-function"}};
  if (!LF.Simple)
    J["reason"] = LF.Reason;
  json::Array Loops;
  for (const LoopSummary &L : A.CFG.Loops)
    Loops.push_back(json::Object{{"header", hex(L.HeaderAddr)},
                                 {"depth", L.Depth},
                                 {"blocks", L.NumBlocks},
                                 {"instructions", L.NumInstrs},
                                 {"mfma", L.NumMFMA},
                                 {"vmem", L.NumVMEM},
                                 {"ds", L.NumDS}});
  J["loops"] = std::move(Loops);
  J["liveness"] = json::Object{{"max_live_vgprs", A.Live.MaxLiveVGPRs},
                               {"max_live_agprs", A.Live.MaxLiveAGPRs},
                               {"max_live_sgprs", A.Live.MaxLiveSGPRs}};
  J["registers"] = json::Object{{"vgprs", A.Regs.vgprs()},
                                {"agprs", A.Regs.agprs()},
                                {"sgprs", A.Regs.sgprs()},
                                {"vcc", A.Regs.VCC},
                                {"flat_scratch", A.Regs.FlatScratch},
                                {"xnack_mask", A.Regs.XnackMask}};
  if (R) {
    J["resources"] = json::Object{
        {"declared", json::Object{{"vgpr_granule", R->DeclVGPRGranule},
                                  {"sgpr_granule", R->DeclSGPRGranule},
                                  {"accum_offset", R->DeclAccumOffset},
                                  {"lds_bytes", R->LDSBytes},
                                  {"scratch_bytes", R->ScratchBytes}}},
        {"recomputed", json::Object{{"vgprs", R->Used.vgprs()},
                                    {"agprs", R->Used.agprs()},
                                    {"sgprs", R->Used.sgprs()},
                                    {"extra_sgprs", R->ExtraSGPRs},
                                    {"vgpr_granule", R->RecVGPRGranule},
                                    {"sgpr_granule", R->RecSGPRGranule},
                                    {"accum_offset", R->RecAccumOffset}}},
        {"vgpr_within_declared", R->VGPRWithinDeclared},
        {"sgpr_within_declared", R->SGPRWithinDeclared},
        {"vgpr_exact", R->VGPRExact},
        {"sgpr_exact", R->SGPRExact},
        {"accum_offset_ok", R->AccumOffsetOK},
        {"occupancy",
         json::Object{{"declared", occupancyJSON(R->Declared)},
                      {"recomputed", occupancyJSON(R->Recomputed)}}}};
    json::Object &Res = *J["resources"].getAsObject();
    if (R->MaxFlatWorkgroupSize)
      Res["max_flat_workgroup_size"] = *R->MaxFlatWorkgroupSize;
    json::Object Meta;
    if (R->MetaSGPRs)
      Meta["sgpr_count"] = *R->MetaSGPRs;
    if (R->MetaVGPRs)
      Meta["vgpr_count"] = *R->MetaVGPRs;
    if (R->MetaAGPRs)
      Meta["agpr_count"] = *R->MetaAGPRs;
    Res["metadata"] = std::move(Meta);
  }
  json::Array Viol, Slack;
  for (const WaitViolation &V : A.Waits.Violations)
    Viol.push_back(
        json::Object{{"address", hex(S.Instrs[V.Instr].Addr)},
                     {"instruction", Name(V.Instr)},
                     {"kind", kindName(V.Kind)},
                     {"needed", V.Needed.str()},
                     {"register", waitedFor(V)}});
  for (const WaitSlack &W : A.Waits.Waits)
    if (W.hasSlack())
      Slack.push_back(json::Object{{"address", hex(S.Instrs[W.Instr].Addr)},
                                   {"actual", W.Actual.str()},
                                   {"needed", W.Needed.str()}});
  J["waitcnt"] = json::Object{{"count", A.NumWaitcnts},
                              {"with_slack", A.SlackWaitcnts},
                              {"violations", std::move(Viol)},
                              {"slack", std::move(Slack)}};
  json::Array Hz;
  auto AddHits = [&](const std::vector<HazardHit> &Hits) {
    for (const HazardHit &H : Hits)
      Hz.push_back(
          json::Object{{"address", hex(S.Instrs[H.Consumer].Addr)},
                       {"instruction", Name(H.Consumer)},
                       {"rule", H.Rule->Id},
                       {"missing_wait_states", H.Missing},
                       {"producer_address", hex(S.Instrs[H.Producer].Addr)},
                       {"producer", Name(H.Producer)},
                       {"register", H.Reg.empty() ? std::string("")
                                                  : RegSlotMap::name(H.Reg)},
                       {"source", H.Rule->Source}});
  };
  AddHits(A.Hazards);
  AddHits(A.SoftClauses);
  J["hazards"] = std::move(Hz);
  if (A.WavePrivateLDS)
    J["wave_private_lds"] =
        json::Object{{"stride", A.WavePrivateLDS->Stride},
                     {"lo", A.WavePrivateLDS->Lo},
                     {"end", A.WavePrivateLDS->End},
                     {"accesses", int64_t(A.WavePrivateLDS->Accesses)}};
  Hz = json::Array();
  AddHits(A.Advisories);
  J["advisories"] = std::move(Hz);
  J["violations"] = (int64_t)A.violations();
  return J;
}

static void printText(raw_ostream &OS, const FunctionAnalysis &A,
                      const std::optional<KernelResources> &R) {
  const LiftedFunction &LF = *A.LF;
  const InstrSeq &S = A.Seq;
  auto Name = [&](unsigned I) { return S.Instrs[I].F->Name; };
  OS << "  - name: '" << LF.Range.Name << "'\n"
     << "    address: " << hex(LF.Range.Addr) << "\n"
     << "    kernel: " << (LF.Range.IsKernel ? "true" : "false") << "\n"
     << "    simple: " << (LF.Simple ? "true" : "false") << "\n"
     << "    instructions: " << S.Instrs.size() << "\n"
     << "    blocks: " << A.CFG.NumBlocks << "\n"
     << "    unreachable_blocks: " << A.CFG.Unreachable << "\n";
  if (A.FromBytes)
    OS << "    cfg_source: bytes\n";
  OS << "    loops:";
  if (A.CFG.Loops.empty())
    OS << " []";
  OS << "\n";
  for (const LoopSummary &L : A.CFG.Loops)
    OS << "      - { header: " << hex(L.HeaderAddr) << ", depth: " << L.Depth
       << ", blocks: " << L.NumBlocks << ", instructions: " << L.NumInstrs
       << ", mfma: " << L.NumMFMA << ", vmem: " << L.NumVMEM
       << ", ds: " << L.NumDS << " }\n";
  OS << "    registers: { vgprs: " << A.Regs.vgprs()
     << ", agprs: " << A.Regs.agprs() << ", sgprs: " << A.Regs.sgprs()
     << ", vcc: " << (A.Regs.VCC ? "true" : "false")
     << ", max_live_vgprs: " << A.Live.MaxLiveVGPRs
     << ", max_live_agprs: " << A.Live.MaxLiveAGPRs
     << ", max_live_sgprs: " << A.Live.MaxLiveSGPRs << " }\n";
  if (R) {
    OS << "    descriptor: { vgpr_granule: " << R->DeclVGPRGranule
       << ", sgpr_granule: " << R->DeclSGPRGranule
       << ", accum_offset: " << R->DeclAccumOffset << ", lds: " << R->LDSBytes
       << ", scratch: " << R->ScratchBytes << " }\n"
       << "    recomputed: { vgpr_granule: " << R->RecVGPRGranule
       << ", sgpr_granule: " << R->RecSGPRGranule
       << ", extra_sgprs: " << R->ExtraSGPRs << ", within_declared: "
       << (R->VGPRWithinDeclared && R->SGPRWithinDeclared ? "true" : "false")
       << ", exact: " << (R->VGPRExact && R->SGPRExact ? "true" : "false")
       << ", accum_offset_ok: " << (R->AccumOffsetOK ? "true" : "false")
       << " }\n"
       << "    occupancy: { waves_per_simd: " << R->Declared.WavesPerSIMD
       << ", waves_per_cu: " << R->Declared.WavesPerCU
       << ", recomputed_waves_per_simd: " << R->Recomputed.WavesPerSIMD
       << " }\n";
  }
  if (A.WavePrivateLDS)
    OS << "    wave_private_lds: { stride: " << A.WavePrivateLDS->Stride
       << ", offsets: " << A.WavePrivateLDS->Lo << ".."
       << A.WavePrivateLDS->End << ", accesses: "
       << A.WavePrivateLDS->Accesses << " }\n";
  else if (!A.WavePrivateWhyNot.empty() && A.WavePrivateWhyNot != "no LDS access")
    OS << "    wave_private_lds: 'no: " << A.WavePrivateWhyNot << "'\n";
  OS << "    waitcnt: { count: " << A.NumWaitcnts
     << ", with_slack: " << A.SlackWaitcnts
     << ", violations: " << A.Waits.Violations.size() << " }\n";
  for (const WaitViolation &V : A.Waits.Violations)
    OS << "      - { violation: " << kindName(V.Kind)
       << ", address: " << hex(S.Instrs[V.Instr].Addr)
       << ", instruction: " << Name(V.Instr) << ", register: "
       << waitedFor(V)
       << ", needs: '" << V.Needed.str() << "' }\n";
  for (const WaitSlack &W : A.Waits.Waits)
    if (W.hasSlack())
      OS << "      - { slack: " << hex(S.Instrs[W.Instr].Addr) << ", actual: '"
         << W.Actual.str() << "', needed: '" << W.Needed.str() << "' }\n";
  OS << "    hazards: " << A.Hazards.size() + A.SoftClauses.size() << "\n";
  auto Print = [&](const std::vector<HazardHit> &Hits) {
    for (const HazardHit &H : Hits)
      OS << "      - { rule: " << H.Rule->Id
         << ", address: " << hex(S.Instrs[H.Consumer].Addr)
         << ", instruction: " << Name(H.Consumer)
         << ", missing_wait_states: " << H.Missing
         << ", producer: " << hex(S.Instrs[H.Producer].Addr) << " "
         << Name(H.Producer) << ", register: "
         << (H.Reg.empty() ? std::string("-") : RegSlotMap::name(H.Reg))
         << " }\n";
  };
  Print(A.Hazards);
  Print(A.SoftClauses);
  if (A.Advisories.empty())
    return;
  OS << "    advisories: " << A.Advisories.size() << "\n";
  Print(A.Advisories);
}

Error asmevo::printAnalysis(raw_ostream &OS, LiftedModule &LM, bool JSON) {
  ISAFacts F(LM.target());
  ModuleResult M = analyzeModule(LM, F);
  unsigned Total = 0, Advisories = 0;
  for (const FunctionAnalysis &A : M.Fns) {
    Total += A.violations();
    Advisories += A.Advisories.size();
  }
  if (JSON) {
    json::Array Fns;
    for (unsigned I = 0; I < M.Fns.size(); ++I)
      Fns.push_back(functionJSON(M.Fns[I], M.Res[I]));
    json::Value V = json::Object{{"schema", "asmevo-analysis-1"},
                                 {"file", LM.original().name()},
                                 {"target", LM.target().info().targetID()},
                                 {"violations", Total},
                                 {"advisories", Advisories},
                                 {"functions", std::move(Fns)}};
    OS << formatv("{0:2}", V) << "\n";
    return Error::success();
  }
  OS << "---\nfile: '" << LM.original().name() << "'\n"
     << "target: " << LM.target().info().targetID() << "\n"
     << "violations: " << Total << "\n"
     << "advisories: " << Advisories << "\n"
     << "functions:\n";
  for (unsigned I = 0; I < M.Fns.size(); ++I)
    printText(OS, M.Fns[I], M.Res[I]);
  return Error::success();
}

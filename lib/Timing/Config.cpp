//===- Config.cpp - Parameters of the MI300X cycle model ------------------===//
//
// Sources are abbreviated; ../shared/notes/mi300x-timing.md has the full
// references. "calibrated" figures were used to set a parameter and are
// therefore not evidence for the model (docs/timing-model.md keeps the
// calibration and validation lists apart).
//
//===----------------------------------------------------------------------===//
#include "asmevo/Timing/Config.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "asmevo/Support/YAMLSyntax.h"
#include "llvm/Support/YAMLParser.h"
#include "llvm/Support/raw_ostream.h"
#include <random>

using namespace llvm;
using namespace asmevo;
using namespace asmevo::timing;

using TC = TimingConfig;
using PK = ParamKind;

static const ParamInfo Params[] = {
    {"clock_mhz", &TC::ClockMHz, PK::Clock, "MHz",
     "documented: 2100 MHz peak engine clock (ROCm mi300.md)"},
    {"xcds", &TC::XCDs, PK::Fixed, "",
     "documented: 8 XCDs (ROCm gpu-specs.rst)"},
    {"cus_per_xcd", &TC::CUsPerXCD, PK::Fixed, "",
     "documented: 38 active CUs per XCD, 304 in all (gpu-specs.rst)"},
    {"launch_overhead_us", &TC::LaunchOverheadUs, PK::Fixed, "us",
     "guess: not modelled (0); kernel time excludes the host launch"},
    {"dispatch_cycles_per_group", &TC::DispatchCyclesPerGroup, PK::Latency,
     "cycles", "guess: workgroup dispatch cost not published; 0"},
    {"simds_per_cu", &TC::SIMDsPerCU, PK::Fixed, "",
     "documented: 4 SIMD16 per CU (pipeline-descriptions.rst)"},
    {"wave_slots_per_simd", &TC::WaveSlotsPerSIMD, PK::Fixed, "",
     "documented: 8 wave slots per SIMD on gfx942 (pipeline-descriptions.rst)"},
    {"vgprs_per_lane", &TC::VGPRsPerLane, PK::Fixed, "",
     "documented: 512 unified VGPR+AGPR per lane; waves/SIMD = min(8, "
     "floor(512 / roundup8(VGPR+AGPR))) (checked with llc-22)"},
    {"vgpr_granule", &TC::VGPRGranule, PK::Fixed, "",
     "documented: allocation granule 8 (kernel descriptor)"},
    {"sgprs_per_simd", &TC::SGPRsPerSIMD, PK::Fixed, "",
     "documented: 800 SGPRs per SIMD on gfx9 (LLVM AMDGPU getTotalNumSGPRs)"},
    {"lds_bytes_per_cu", &TC::LDSBytesPerCU, PK::Fixed, "bytes",
     "documented: 64 KiB LDS per CU (gpu-specs.rst)"},
    {"groups_per_cu", &TC::GroupsPerCU, PK::Fixed, "",
     "guess: workgroup slots per CU (16) not found in an AMD document"},
    {"valu_cycles", &TC::ValuCycles, PK::Fixed, "cycles",
     "documented: wave64 on SIMD16 occupies 4 cycles (pipeline-"
     "descriptions.rst)"},
    {"quarter_rate_cycles", &TC::QuarterRateCycles, PK::Latency, "cycles",
     "documented: quarter rate = 4x the full-rate 4 cycles (CDNA3 ISA "
     "v_mul_lo_u32 etc. are quarter rate)"},
    {"trans_cycles", &TC::TransCycles, PK::Latency, "cycles",
     "documented: transcendental ops quarter rate (CDNA3 ISA)"},
    {"f64_cycles", &TC::F64Cycles, PK::Fixed, "cycles",
     "documented: FP64 vector 81.7 TF = FP32 non-packed rate (mi300.md), so "
     "full rate"},
    {"valu_latency", &TC::ValuLatency, PK::Latency, "cycles",
     "guess: a dependent VALU issues at the next 4-cycle turn"},
    {"mfma_cycles_per_pass", &TC::MfmaCyclesPerPass, PK::Fixed, "cycles",
     "documented: 4 cycles per pass; pass counts from lib/Analysis (LLVM's "
     "scheduling model, = AMD matrix instruction calculator)"},
    {"mfma_coissue_cycles", &TC::MfmaCoIssueCycles, PK::Fixed, "cycles",
     "documented: VALU may co-issue 4 cycles after an XDL MFMA; FP32/FP64 "
     "MFMA block VALU (matrix instruction calculator)"},
    {"salu_latency", &TC::SaluLatency, PK::Latency, "cycles",
     "guess: one 4-cycle turn"},
    {"branch_taken_cycles", &TC::BranchTakenCycles, PK::Latency, "cycles",
     "guess: refetch after a taken branch"},
    {"nop_cycles_per_wait_state", &TC::NopCyclesPerWaitState, PK::Fixed,
     "cycles", "documented: s_nop N = N+1 wait states (CDNA3 ISA); 1 cycle "
               "per wait state is a guess"},
    {"sleep_cycles_per_unit", &TC::SleepCyclesPerUnit, PK::Fixed, "cycles",
     "documented: s_sleep N sleeps about 64 x N clocks (CDNA3 ISA)"},
    {"barrier_cycles", &TC::BarrierCycles, PK::Latency, "cycles",
     "guess: release after the last arrival (no measurement found)"},
    {"arbiter_oldest_first", &TC::ArbiterOldestFirst, PK::Policy, "",
     "guess: oldest ready wave first (1) or rotating (0)"},
    {"line_bytes", &TC::LineBytes, PK::Fixed, "bytes",
     "documented: 128-byte L2 lines (rocprofiler-compute gfx942 "
     "speed-of-light: 128 B/clk per channel); L1 uses the same"},
    {"l1_bytes", &TC::L1Bytes, PK::Fixed, "bytes",
     "documented: 32 KiB vector L1 per CU, write-no-allocate (gpu-specs.rst;"
     " MrRoy09 store->load)"},
    {"l1_ways", &TC::L1Ways, PK::Fixed, "", "guess: LRU, 16 ways"},
    {"l1_bytes_per_clk", &TC::L1BytesPerClk, PK::Bandwidth, "B/clk",
     "documented: vL1D 128 B/clk/CU (rocprofiler-compute speed-of-light)"},
    {"l1_latency", &TC::L1Latency, PK::Latency, "cycles",
     "calibrated: SC25 pointer chase L1 113-119 cycles per hop, less the "
     "28 cycles of the chase loop's own work in this model"},
    {"l2_bytes_per_xcd", &TC::L2BytesPerXCD, PK::Fixed, "bytes",
     "documented: 4 MiB L2 per XCD (gpu-specs.rst)"},
    {"l2_ways", &TC::L2Ways, PK::Fixed, "", "guess: LRU, 16 ways"},
    {"l2_bytes_per_clk_per_xcd", &TC::L2BytesPerClkPerXCD, PK::Bandwidth,
     "B/clk", "documented: 16 channels x 128 B/clk (rocprofiler-compute)"},
    {"l2_latency", &TC::L2Latency, PK::Latency, "cycles",
     "calibrated: SC25 pointer chase L2 205-211 cycles per hop, less 28"},
    {"l2_sharing", &TC::L2Sharing, PK::Fixed, "",
     "documented: one L2 per XCD shared by its CUs (gpu-specs.rst); 1 models "
     "lines other CUs of the XCD fetched as L2 hits, 0 prices the modelled "
     "CU alone"},
    {"l2_sharer_groups", &TC::L2SharerGroups, PK::Fixed, "",
     "cost limit: workgroups of other CUs of the XCD, in the sampled "
     "rounds, traced for their addresses (emulation time)"},
    {"mall_bytes", &TC::MallBytes, PK::Fixed, "bytes",
     "documented: 256 MiB Infinity Cache (gpu-specs.rst)"},
    {"mall_tbs", &TC::MallTBs, PK::Bandwidth, "TB/s",
     "documented: 17 TB/s peak (ServeTheHome launch article)"},
    {"mall_efficiency", &TC::MallEfficiency, PK::Fixed, "",
     "guess: achievable fraction of the Infinity Cache peak"},
    {"mall_latency", &TC::MallLatency, PK::Latency, "cycles",
     "calibrated: SC25 pointer chase Infinity Cache ~445 cycles per hop "
     "at 12-50 MB, less 31"},
    {"hbm_tbs", &TC::HbmTBs, PK::Bandwidth, "TB/s",
     "calibrated: SC25 gpu-stream read 4.14 TB/s (78% of the 5.3 peak)"},
    {"hbm_peak_tbs", &TC::HbmPeakTBs, PK::Fixed, "TB/s",
     "documented: 5.3 TB/s HBM3 peak (mi300.md); roofline only"},
    {"hbm_latency", &TC::HbmLatency, PK::Latency, "cycles",
     "calibrated: SC25 pointer chase HBM 830-874 cycles per hop, less 30"},
    {"store_ack_latency", &TC::StoreAckLatency, PK::Latency, "cycles",
     "guess: a store's vmcnt returns after an L2 round trip (MrRoy09 "
     "store->load 208 cycles suggests this order)"},
    {"scalar_latency", &TC::ScalarLatency, PK::Latency, "cycles",
     "guess: scalar cache hit (no CDNA3 measurement found)"},
    {"lds_banks", &TC::LdsBanks, PK::Fixed, "",
     "documented: 32 banks x 4 B (pipeline-descriptions.rst)"},
    {"lds_bank_bytes", &TC::LdsBankBytes, PK::Fixed, "bytes",
     "documented: 4-byte banks"},
    {"lds_bytes_per_clk_per_port", &TC::LdsBytesPerClkPerPort,
     PK::Bandwidth, "B/clk",
     "documented: 128 B/clk per CU, SIMD pairs share a 64 B/clk port "
     "(pipeline-descriptions.rst)"},
    {"lds_latency", &TC::LdsLatency, PK::Latency, "cycles",
     "calibrated: MI308X ds_read_b32 55 cycles (pyhip mem_latency.md) "
     "per hop of a dependent ds_read_b32 chain, less this model's 12 cycles "
     "of loop work"},
};

ArrayRef<ParamInfo> timing::parameters() { return Params; }

TimingConfig TimingConfig::mi300x() { return TimingConfig(); }

Expected<TimingConfig> TimingConfig::load(StringRef NameOrFile) {
  TimingConfig C = mi300x();
  if (NameOrFile.empty() || NameOrFile == "mi300x")
    return C;
  auto MB = MemoryBuffer::getFile(NameOrFile);
  if (!MB)
    return createStringError(MB.getError(),
                             "cannot read timing config '%s' (expected "
                             "'mi300x' or a YAML file)",
                             NameOrFile.str().c_str());
  if (Error E = checkYAMLSyntax((*MB)->getBuffer(), NameOrFile))
    return std::move(E);
  SourceMgr SM;
  yaml::Stream S((*MB)->getBuffer(), SM);
  auto DI = S.begin();
  if (DI == S.end() || !DI->getRoot())
    return C;
  auto *Map = dyn_cast<yaml::MappingNode>(DI->getRoot());
  if (!Map)
    return createStringError("%s: a timing config is a mapping of "
                             "parameter: value",
                             NameOrFile.str().c_str());
  C.Name = NameOrFile.str();
  C.Validated = false;
  for (yaml::KeyValueNode &KV : *Map) {
    auto *K = dyn_cast_or_null<yaml::ScalarNode>(KV.getKey());
    auto *V = dyn_cast_or_null<yaml::ScalarNode>(KV.getValue());
    SmallString<32> KB, VB;
    if (!K || !V)
      return createStringError("%s: every entry must be 'key: number'",
                               NameOrFile.str().c_str());
    StringRef Key = K->getValue(KB), Val = V->getValue(VB);
    if (Key == "name") {
      C.Name = Val.str();
      continue;
    }
    if (Key == "validated") {
      C.Validated = Val == "true";
      continue;
    }
    const ParamInfo *P = nullptr;
    for (const ParamInfo &I : Params)
      if (Key == I.Key)
        P = &I;
    if (!P)
      return createStringError("%s: unknown timing parameter '%s'",
                               NameOrFile.str().c_str(), Key.str().c_str());
    double D;
    if (Val.getAsDouble(D) || !(D >= 0))
      return createStringError("%s: '%s' must be a non-negative number, not "
                               "'%s'",
                               NameOrFile.str().c_str(), Key.str().c_str(),
                               Val.str().c_str());
    C.*(P->Field) = D;
  }
  if (C.ClockMHz <= 0 || C.XCDs < 1 || C.CUsPerXCD < 1 || C.SIMDsPerCU < 1 ||
      C.WaveSlotsPerSIMD < 1 || C.LineBytes < 4 || C.HbmTBs <= 0 ||
      C.MallTBs <= 0 || C.L1BytesPerClk <= 0 || C.L2BytesPerClkPerXCD <= 0 ||
      C.LdsBytesPerClkPerPort <= 0 || C.LdsBanks < 1)
    return createStringError("%s: clock, counts and bandwidths must be "
                             "positive",
                             NameOrFile.str().c_str());
  return C;
}

static const char *kindName(ParamKind K) {
  switch (K) {
  case ParamKind::Latency: return "latency";
  case ParamKind::Bandwidth: return "bandwidth";
  case ParamKind::Clock: return "clock";
  case ParamKind::Policy: return "policy";
  case ParamKind::Fixed: return "fixed";
  }
  return "";
}

void TimingConfig::printYAML(raw_ostream &OS) const {
  OS << "# AsmEvo timing model parameters (a model, not a measurement).\n"
     << "# kind: what --sensitivity perturbs (latency +-30%, bandwidth "
        "+-20%,\n# clock 1700-2100 MHz, policy both ways; fixed: never).\n"
     << "name: " << Name << "\n"
     << "validated: " << (Validated ? "true" : "false") << "\n";
  for (const ParamInfo &P : Params) {
    OS << "# " << kindName(P.Kind);
    if (*P.Unit)
      OS << ", " << P.Unit;
    OS << "; " << P.Source << "\n";
    OS << P.Key << ": " << format("%g", this->*(P.Field)) << "\n";
  }
}

TimingConfig TimingConfig::perturbed(uint64_t Seed) const {
  TimingConfig C = *this;
  std::mt19937_64 R(Seed * 0x9E3779B97F4A7C15ull + 0x5bd1e995);
  auto U = [&](double Lo, double Hi) {
    return Lo + (Hi - Lo) * (double(R() >> 11) / double(1ull << 53));
  };
  for (const ParamInfo &P : Params) {
    double &V = C.*(P.Field);
    switch (P.Kind) {
    case ParamKind::Latency: V *= U(0.7, 1.3); break;
    case ParamKind::Bandwidth: V *= U(0.8, 1.2); break;
    case ParamKind::Clock: V = U(1700, 2100); break;
    case ParamKind::Policy: V = (R() & 1) ? 1 : 0; break;
    case ParamKind::Fixed: break;
    }
  }
  C.Name = Name + " (perturbed, seed " + std::to_string(Seed) + ")";
  return C;
}

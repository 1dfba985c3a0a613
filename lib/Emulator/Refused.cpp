//===- Refused.cpp - Instructions the emulator refuses by design ----------===//
//
// The closed list of instructions that no compute launch the verifier
// makes can give a meaning to: they need a resource the launch does not
// have (images, GWS/GDS, graphics state) or a host-side agent (the trap
// handler, the debugger). A run that reaches one stops with
// "refused by design: <reason>" (s_trap stops with its own `trap`
// violation). lib/Emulator/README.md lists the same entries.
//
//===----------------------------------------------------------------------===//
#include "asmevo/Emulator/ISACoverage.h"

using namespace llvm;

namespace {
struct Refusal {
  const char *Stem;
  bool Prefix;
  const char *Why;
};
} // namespace

static const Refusal Refusals[] = {
    {"IMAGE_", true,
     "image instructions (MIMG) need image and sampler descriptors; the "
     "compute launches the verifier makes have none"},
    {"DS_GWS_", true,
     "global wave sync needs GWS resources the runtime allocates per queue"},
    {"DS_ORDERED_COUNT", false,
     "ordered count needs the GDS ordered-append unit"},
    {"S_TRAP", false, "s_trap enters the host's trap handler"},
    {"S_RFE_B64", false, "returns from a trap handler"},
    {"S_RFE_RESTORE_B64", false, "returns from a trap handler"},
    {"S_SETHALT", false, "halts the wave until the host resumes it"},
    {"S_SENDMSG", false,
     "sends a message to the SPI/host (interrupt, GS, save-wave, halt or "
     "stall wave creation, doorbell query); its effect and any answer come "
     "from outside the wave"},
    {"S_SENDMSGHALT", false,
     "sends a message to the SPI/host and halts the wave until the host "
     "resumes it"},
    {"S_ENDPGM_ORDERED_PS_DONE", false,
     "ends a pixel shader's ordered (POPS) section: graphics state"},
    {"S_CBRANCH_CDBG", true, "branches on the debugger's status bits"},
    {"V_INTERP_", true,
     "pixel-shader attribute interpolation (graphics state)"},
    {"EXP", false, "export to graphics render targets"},
};

StringRef asmevo::emu::refusedByDesign(StringRef Stem) {
  for (const Refusal &R : Refusals)
    if (R.Prefix ? Stem.starts_with(R.Stem) : Stem == R.Stem)
      return R.Why;
  return "";
}

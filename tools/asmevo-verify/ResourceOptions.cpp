//===- ResourceOptions.cpp - Limits on what a launch spec may ask ---------===//
#include "Commands.h"
#include "asmevo/Emulator/LaunchSession.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

using namespace llvm;

namespace asmevo {
namespace verify_tool {

static cl::opt<std::string> MaxDeviceMemory(
    "max-device-memory",
    cl::desc("Device memory a launch spec's buffers may take, guard bands "
             "included (bytes, or with a KiB/MiB/GiB suffix; default 16GiB)"),
    cl::value_desc("size"), cl::init("16GiB"), cl::sub(RunCmd),
    cl::sub(CheckCmd));

Expected<uint64_t> maxDeviceMemory() {
  StringRef S = StringRef(MaxDeviceMemory).trim();
  uint64_t Scale = 1;
  for (auto [Suffix, Shift] : {std::pair<StringRef, unsigned>{"KiB", 10},
                               {"MiB", 20},
                               {"GiB", 30},
                               {"TiB", 40}})
    if (S.consume_back(Suffix)) {
      Scale = 1ull << Shift;
      break;
    }
  uint64_t N, Bytes;
  if (S.trim().getAsInteger(0, N) || N == 0 ||
      __builtin_mul_overflow(N, Scale, &Bytes))
    return createStringError("--max-device-memory: '%s' is not a size "
                             "(bytes, or a number with KiB, MiB, GiB or TiB)",
                             MaxDeviceMemory.c_str());
  return Bytes;
}

} // namespace verify_tool
} // namespace asmevo

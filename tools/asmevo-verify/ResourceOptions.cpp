//===- ResourceOptions.cpp - Limits on what a launch spec may ask ---------===//
#include "Commands.h"
#include "asmevo/Emulator/LaunchSession.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

using namespace llvm;

namespace asmevo {
namespace verify_tool {

Expected<uint64_t> parseMemorySize(StringRef Text) {
  StringRef S = Text.trim();
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
                             Text.str().c_str());
  return Bytes;
}

} // namespace verify_tool
} // namespace asmevo

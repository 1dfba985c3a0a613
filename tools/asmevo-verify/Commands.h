//===- Commands.h - asmevo-verify subcommands ------------------*- C++ -*-===//
//
// Each subcommand lives in its own file with its options registered on its
// llvm::cl::SubCommand; main() dispatches to the one the user named.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_TOOLS_ASMEVO_VERIFY_COMMANDS_H
#define ASMEVO_TOOLS_ASMEVO_VERIFY_COMMANDS_H

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include <cstdint>

namespace asmevo {
namespace verify_tool {

extern llvm::cl::SubCommand RunCmd;
/// asmevo-verify run: exit status 0 clean, 1 violations, 2 error, 4 when
/// --backend=hsa has no usable GPU.
int runCommand();

extern llvm::cl::SubCommand CoverageCmd;
/// asmevo-verify coverage: instruction coverage of a corpus.
int coverageCommand();

extern llvm::cl::SubCommand CheckCmd;
/// asmevo-verify check: exit status by verdict (0 equivalent, 1 different,
/// 2 violation, 3 unknown), 4 for inputs that cannot be compared.
int checkCommand();

extern llvm::cl::SubCommand HsaInfoCmd;
/// asmevo-verify hsa-info: 0 when a GPU agent is found, 4 when the HSA
/// runtime cannot be loaded or initialised or finds no GPU.
int hsaInfoCommand();

extern llvm::cl::SubCommand SpecFromMetadataCmd;
/// asmevo-verify spec-from-metadata: 0 with a spec written (guesses
/// listed in it), 2 when the metadata cannot describe the launch.
int specFromMetadataCommand();

/// The value of --max-device-memory (run and check each register one: an
/// option must be defined after its subcommand), in bytes.
llvm::Expected<uint64_t> parseMemorySize(llvm::StringRef Text);
#define ASMEVO_MAX_DEVICE_MEMORY_DESC                                          \
  "Device memory a launch spec's buffers may take, guard bands included "      \
  "(bytes, or with a KiB/MiB/GiB/TiB suffix)"

extern llvm::cl::SubCommand TimeCmd;
/// asmevo-verify time: 0 with a modelled time (or comparison), 2 on
/// errors, 3 when a launch is not modelable.
int timeCommand();

} // namespace verify_tool
} // namespace asmevo

#endif

//===- FuzzCommon.cpp -----------------------------------------------------===//
#include "FuzzCommon.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>

using namespace llvm;

std::string asmevo::fuzz::writeScratchFile(StringRef Bytes,
                                           StringRef Suffix) {
  // One file per process, rewritten for every input (the fuzzer runs one
  // input at a time); $TMPDIR keeps it off the project tree.
  const char *Dir = std::getenv("TMPDIR");
  std::string Path = (Twine(Dir ? Dir : "/tmp") + "/asmevo-fuzz-" +
                      Twine(sys::Process::getProcessId()) + Suffix)
                         .str();
  std::error_code EC;
  raw_fd_ostream OS(Path, EC, sys::fs::OF_None);
  if (EC)
    report_fatal_error(Twine("fuzz: cannot write ") + Path);
  OS << Bytes;
  return Path;
}

//===- WorkDir.h - Paths a client may name ----------------------*- C++ -*-===//
//
// An agent or MCP client names files by path, and it is not trusted: it may
// be a model that was told to read ~/.ssh. Every path it passes is resolved
// (symbolic links and `..` included) and must stay inside the work directory
// given when the server started.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_AGENT_WORKDIR_H
#define ASMEVO_AGENT_WORKDIR_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>

namespace asmevo {

class WorkDir {
public:
  /// \p Root must be an existing directory.
  static llvm::Expected<WorkDir> open(llvm::StringRef Root);

  const std::string &root() const { return Root; }

  /// An existing regular file inside the work directory. Relative paths are
  /// taken from the root.
  llvm::Expected<std::string> input(llvm::StringRef Path) const;
  /// A file to be written: its directory must exist inside the work
  /// directory, and an existing file of that name must be a regular file.
  llvm::Expected<std::string> output(llvm::StringRef Path) const;

private:
  explicit WorkDir(std::string Root) : Root(std::move(Root)) {}
  bool contains(llvm::StringRef Real) const;
  std::string absolute(llvm::StringRef Path) const;
  std::string Root;
};

} // namespace asmevo

#endif

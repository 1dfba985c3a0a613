//===- InputFile.h - Recognizing what the user handed us --------*- C++ -*-===//
//
// A code object, a clang offload bundle (one or several, compressed or not)
// or a HIP host executable / shared library with a .hip_fatbin section:
// each yields the AMDGPU code objects it contains, named for messages as
// "file" or "file:#3(hipv4-amdgcn-amd-amdhsa--gfx942)".
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_CODEOBJECT_INPUTFILE_H
#define ASMEVO_CODEOBJECT_INPUTFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <string>
#include <vector>

namespace asmevo {

enum class InputKind { CodeObject, OffloadBundle, HostBinary, MIR, Assembly,
                       Unknown };

struct InputCodeObject {
  std::string Name;             ///< For messages.
  std::vector<uint8_t> Bytes;   ///< The code object image.
  /// Index of its entry in the container's entry list (readOffloadBundles
  /// or readHostFatbin order); 0 for a lone code object.
  unsigned EntryIndex = 0;
  /// The bundle entry's target id ("gfx1030", "gfx90a:xnack-"); empty for
  /// a lone code object.
  std::string TargetID;
};

InputKind classifyInput(llvm::StringRef Path, llvm::StringRef Bytes);

/// An ELF file with e_machine EM_AMDGPU (the bundle entries we lift).
bool isAMDGPUCodeObject(llvm::StringRef Bytes);

/// Every AMDGPU code object inside \p Bytes.
llvm::Expected<std::vector<InputCodeObject>>
extractCodeObjects(llvm::StringRef Bytes, llvm::StringRef Path);

} // namespace asmevo

#endif

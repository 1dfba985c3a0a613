//===- CodeObject.h - An AMDGPU code object, as read ------------*- C++ -*-===//
//
// A read-only, fully bounds-checked view of one AMDGPU ELF code object:
// sections, symbols, kernels (descriptor + entry), code ranges and the
// metadata note. Everything the rebuild needs to reproduce the input is
// reachable from here; the lifter and emitter never re-read the ELF.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_CODEOBJECT_CODEOBJECT_H
#define ASMEVO_CODEOBJECT_CODEOBJECT_H

#include "asmevo/CodeObject/KernelDescriptor.h"
#include "asmevo/CodeObject/TargetInfo.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace asmevo {

struct ELFSection {
  unsigned Index = 0;
  std::string Name;
  uint32_t Type = 0;
  uint64_t Flags = 0;
  uint64_t Addr = 0;
  uint64_t Offset = 0;
  uint64_t Size = 0;
  uint64_t Align = 0;
  uint64_t EntSize = 0;
  uint32_t Link = 0;
  uint32_t Info = 0;
  llvm::ArrayRef<uint8_t> Bytes; ///< Empty for SHT_NOBITS.

  bool isAlloc() const;
  bool isExec() const;
  bool containsAddr(uint64_t A) const {
    return isAlloc() && A >= Addr && A < Addr + Size;
  }
};

struct ELFSymbol {
  std::string Name;
  uint64_t Value = 0;
  uint64_t Size = 0;
  uint8_t Type = 0;    ///< STT_*
  uint8_t Binding = 0; ///< STB_*
  uint8_t Other = 0;   ///< st_other (visibility)
  uint16_t SectionIndex = 0;
};

struct ELFNote {
  std::string Name;
  uint32_t Type = 0;
  llvm::ArrayRef<uint8_t> Desc;
  unsigned SectionIndex = 0;
};

/// A dynamic relocation (.rela.dyn): GOT slots the loader fills.
struct ELFDynReloc {
  uint64_t Offset = 0;
  uint32_t Type = 0;
  std::string Symbol; ///< Empty for R_AMDGPU_RELATIVE64.
  int64_t Addend = 0;
};

/// A range of code that gets lifted as one function.
struct CodeRange {
  std::string Name;
  uint64_t Addr = 0;
  uint64_t Size = 0;
  bool IsKernel = false;
  int KernelIndex = -1;   ///< Into CodeObject::kernels() when IsKernel.
  bool SizeInferred = false; ///< Symbol had no size; ends at next symbol.
};

struct KernelInfo {
  std::string Name;         ///< Function symbol name ("vadd").
  std::string DescriptorSymbol; ///< "vadd.kd"
  uint64_t DescriptorAddr = 0;
  uint64_t EntryAddr = 0;
  KernelDescriptor KD;
  /// Index into CodeObject::metadata() amdhsa.kernels, or -1.
  int MetadataIndex = -1;

  bool hasPreload() const { return KD.preloadLength() != 0; }
  /// Firmware that supports preload starts 256 bytes after the entry.
  uint64_t preloadEntryAddr() const { return EntryAddr + 256; }
};

class CodeObject {
public:
  /// Parses \p Buffer. \p Name is used in every error message.
  static llvm::Expected<std::unique_ptr<CodeObject>>
  create(std::unique_ptr<llvm::MemoryBuffer> Buffer, llvm::StringRef Name);
  static llvm::Expected<std::unique_ptr<CodeObject>>
  create(llvm::ArrayRef<uint8_t> Bytes, llvm::StringRef Name);

  llvm::StringRef name() const { return Name; }
  llvm::ArrayRef<uint8_t> image() const { return Image; }
  const TargetInfo &target() const { return Target; }
  uint16_t elfType() const { return ELFType; }

  llvm::ArrayRef<ELFSection> sections() const { return Sections; }
  llvm::ArrayRef<ELFSymbol> symbols() const { return Symbols; }
  llvm::ArrayRef<ELFSymbol> dynamicSymbols() const { return DynSymbols; }
  llvm::ArrayRef<ELFNote> notes() const { return Notes; }
  llvm::ArrayRef<ELFDynReloc> dynamicRelocations() const { return DynRelocs; }
  llvm::ArrayRef<KernelInfo> kernels() const { return Kernels; }
  llvm::ArrayRef<CodeRange> codeRanges() const { return Ranges; }

  const ELFSection *findSection(llvm::StringRef SecName) const;
  const ELFSection *sectionForAddr(uint64_t Addr) const;
  const ELFSymbol *findSymbol(llvm::StringRef SymName) const;
  const KernelInfo *findKernel(llvm::StringRef KName) const;

  /// Bytes at a virtual address range inside one PROGBITS section.
  llvm::Expected<llvm::ArrayRef<uint8_t>> bytesAt(uint64_t Addr,
                                                  uint64_t Size) const;

  /// The NT_AMDGPU_METADATA note (msgpack), if present.
  const ELFNote *metadataNote() const;
  llvm::msgpack::Document *metadata() const { return Metadata.get(); }
  std::string metadataYAML() const;
  /// Producer strings from .comment ("clang version ...", "Linker: LLD 22").
  std::vector<std::string> producers() const;

private:
  CodeObject() = default;
  llvm::Error parse();
  llvm::Error parseSections();
  llvm::Error parseSymbols();
  llvm::Error parseNotes();
  llvm::Error parseDynamicRelocations();
  llvm::Error parseKernels();
  void computeCodeRanges();

  std::string Name;
  std::unique_ptr<llvm::MemoryBuffer> Owned;
  std::vector<uint8_t> OwnedCopy;
  llvm::ArrayRef<uint8_t> Image;
  TargetInfo Target;
  uint16_t ELFType = 0;
  std::vector<ELFSection> Sections;
  std::vector<ELFSymbol> Symbols;
  std::vector<ELFSymbol> DynSymbols;
  std::vector<ELFNote> Notes;
  std::vector<ELFDynReloc> DynRelocs;
  std::vector<KernelInfo> Kernels;
  std::vector<CodeRange> Ranges;
  std::unique_ptr<llvm::msgpack::Document> Metadata;
};

} // namespace asmevo

#endif

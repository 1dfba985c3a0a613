//===- BundleWriter.cpp ---------------------------------------------------===//
#include "asmevo/CodeObject/BundleWriter.h"
#include "asmevo/CodeObject/HostBinary.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Compression.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MathExtras.h"
#include <map>

using namespace llvm;
using namespace asmevo;

static constexpr StringLiteral Magic = "__CLANG_OFFLOAD_BUNDLE__";

std::vector<uint8_t> asmevo::writeOffloadBundle(ArrayRef<BundleOutputEntry> E,
                                                uint64_t Align) {
  // Header: magic, count, then per entry offset, size, id length, id.
  uint64_t Header = Magic.size() + 8;
  for (const BundleOutputEntry &X : E)
    Header += 24 + X.Id.size();
  std::vector<uint64_t> Offsets;
  uint64_t Off = Header;
  for (const BundleOutputEntry &X : E) {
    // Empty entries (the host's) point where the next payload starts, as
    // clang-offload-bundler writes them.
    Off = alignTo(Off, Align);
    Offsets.push_back(Off);
    Off += X.Data.size();
  }
  std::vector<uint8_t> Out(Off, 0);
  uint8_t *P = Out.data();
  memcpy(P, Magic.data(), Magic.size());
  P += Magic.size();
  support::endian::write64le(P, E.size());
  P += 8;
  for (unsigned I = 0; I < E.size(); ++I) {
    support::endian::write64le(P, Offsets[I]);
    support::endian::write64le(P + 8, E[I].Data.size());
    support::endian::write64le(P + 16, E[I].Id.size());
    P += 24;
    memcpy(P, E[I].Id.data(), E[I].Id.size());
    P += E[I].Id.size();
  }
  for (unsigned I = 0; I < E.size(); ++I)
    if (!E[I].Data.empty())
      memcpy(Out.data() + Offsets[I], E[I].Data.data(), E[I].Data.size());
  return Out;
}

Expected<std::vector<uint8_t>>
asmevo::compressOffloadBundle(ArrayRef<uint8_t> Uncompressed) {
  bool Zstd = compression::zstd::isAvailable();
  if (!Zstd && !compression::zlib::isAvailable())
    return createStringError("LLVM was built without zstd and zlib: cannot "
                             "write a compressed bundle");
  SmallVector<uint8_t, 0> Stream;
  if (Zstd)
    compression::zstd::compress(Uncompressed, Stream,
                                compression::zstd::BestSizeCompression);
  else
    compression::zlib::compress(Uncompressed, Stream,
                                compression::zlib::BestSizeCompression);
  MD5 Hasher;
  Hasher.update(Uncompressed);
  MD5::MD5Result Digest;
  Hasher.final(Digest);
  std::vector<uint8_t> Out(8 + 24 + Stream.size());
  memcpy(Out.data(), "CCOB", 4);
  support::endian::write16le(Out.data() + 4, 3);
  support::endian::write16le(Out.data() + 6, Zstd ? 1 : 0);
  support::endian::write64le(Out.data() + 8, Out.size());
  support::endian::write64le(Out.data() + 16, Uncompressed.size());
  support::endian::write64le(Out.data() + 24, Digest.low());
  memcpy(Out.data() + 32, Stream.data(), Stream.size());
  return Out;
}

/// The one-line notice for an uncompressed bundle written compressed.
static std::string compressedToFitWarning(StringRef Where, uint64_t Start,
                                          uint64_t Uncompressed,
                                          uint64_t Compressed,
                                          uint64_t Available) {
  // CCOB version 3 (clang/docs/ClangOffloadBundler.rst, "Compression and
  // Decompression") is what clang --offload-compress writes by default since
  // LLVM 22 (llvm-project PR 152600); HIP runtimes from before that read only
  // uncompressed bundles, or compressed ones up to version 2.
  return formatv("{0}+{1:x}: the rebuilt bundle ({2} bytes) does not fit in "
                 "the {3} available, so it was written compressed (CCOB "
                 "version 3, {4} bytes): the binary now needs a HIP runtime "
                 "that reads compressed offload bundles version 3 (as clang "
                 "--offload-compress writes them) and is otherwise unchanged",
                 Where, Start, Uncompressed, Available, Compressed)
      .str();
}

Expected<std::vector<uint8_t>>
asmevo::rewriteBundles(ArrayRef<uint8_t> Region, ArrayRef<BundleEntry> Entries,
                       ArrayRef<std::vector<uint8_t>> NewData, StringRef Where,
                       bool AllowGrowth, uint64_t Slack,
                       InPlaceRewriteNotes *Notes) {
  if (AllowGrowth)
    Slack = 0;
  // Entries grouped by the bundle they came from, in file order.
  std::map<uint64_t, std::vector<unsigned>> ByBundle;
  for (unsigned I = 0; I < Entries.size(); ++I)
    ByBundle[Entries[I].BundleOffset].push_back(I);
  std::vector<uint8_t> Out(Region.begin(), Region.end());
  Out.resize(Region.size() + Slack, 0);
  uint64_t Used = Region.size();
  std::vector<uint8_t> Grown; // AllowGrowth: bundles laid out one by one.
  for (auto It = ByBundle.begin(); It != ByBundle.end(); ++It) {
    uint64_t Start = It->first;
    uint64_t Limit =
        std::next(It) == ByBundle.end() ? Region.size() : std::next(It)->first;
    if (AllowGrowth) {
      // Keep the original gap alignment: pad to the original start when
      // everything before fits, else to the next 4 KiB.
      uint64_t At = Grown.size() <= Start ? Start : alignTo(Grown.size(), 4096);
      Grown.resize(At, 0);
    }
    bool Touched = false;
    std::vector<BundleOutputEntry> Outs;
    for (unsigned I : It->second) {
      Touched |= I < NewData.size() && !NewData[I].empty();
      Outs.push_back({Entries[I].Id, I < NewData.size() && !NewData[I].empty()
                                         ? ArrayRef<uint8_t>(NewData[I])
                                         : Entries[I].Data});
    }
    if (!Touched) {
      if (AllowGrowth)
        Grown.insert(Grown.end(), Region.begin() + Start,
                     Region.begin() + Limit);
      continue;
    }
    // Keep the original payload alignment where it is visible.
    uint64_t Align = 4096;
    for (unsigned I : It->second)
      if (!Entries[I].Data.empty() && !Entries[I].WasCompressed)
        Align =
            std::min<uint64_t>(Align, Entries[I].Offset & -Entries[I].Offset);
    std::vector<uint8_t> B =
        writeOffloadBundle(Outs, std::max<uint64_t>(Align, 1));
    bool WasCompressed = Entries[It->second.front()].WasCompressed;
    if (WasCompressed) {
      auto C = compressOffloadBundle(B);
      if (!C)
        return C.takeError();
      B = std::move(*C);
    }
    if (AllowGrowth) {
      Grown.insert(Grown.end(), B.begin(), B.end());
      continue;
    }
    if (std::next(It) == ByBundle.end())
      Limit += Slack;
    uint64_t Available = Limit - Start;
    if (B.size() > Available && !WasCompressed) {
      // Compressing is the one way to fit without moving anything else of
      // the host file; it changes only which runtimes can load it.
      auto C = compressOffloadBundle(B);
      if (!C)
        return C.takeError();
      if (C->size() > Available)
        return createStringError(
            formatv("{0}+{1:x}: the rebuilt bundle needs {2} bytes ({3} "
                    "compressed) but only {4} are available",
                    Where, Start, B.size(), C->size(), Available)
                .str());
      if (Notes)
        Notes->Warnings.push_back(compressedToFitWarning(Where, Start, B.size(),
                                                         C->size(), Available));
      B = std::move(*C);
    }
    if (B.size() > Available)
      return createStringError(
          formatv("{0}+{1:x}: the rebuilt bundle needs {2} bytes (compressed) "
                  "but only {3} are available",
                  Where, Start, B.size(), Available)
              .str());
    std::fill(Out.begin() + Start, Out.begin() + Limit, 0);
    std::copy(B.begin(), B.end(), Out.begin() + Start);
    Used = std::max<uint64_t>(Used, Start + B.size());
  }
  if (Notes)
    Notes->UsedSize = AllowGrowth ? Grown.size() : Used;
  return AllowGrowth ? Grown : Out;
}

Expected<std::vector<uint8_t>>
asmevo::rewriteHostFatbin(StringRef Bytes, StringRef FileName,
                          ArrayRef<BundleEntry> Entries,
                          ArrayRef<std::vector<uint8_t>> NewData,
                          std::vector<std::string> &Warnings) {
  auto Sec = findHipFatbinSection(Bytes, FileName);
  if (!Sec)
    return Sec.takeError();
  uint64_t Size = Sec->Contents.size();
  // Where nothing records the section's size, it cannot grow.
  uint64_t Slack = Sec->SizeFieldOffset ? Sec->Slack : 0;
  InPlaceRewriteNotes Notes;
  auto Region = rewriteBundles(
      ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Sec->Contents.data()),
                        Size),
      Entries, NewData, (FileName + ": .hip_fatbin").str(),
      /*AllowGrowth=*/false, Slack, &Notes);
  if (!Region)
    return Region.takeError();
  std::vector<uint8_t> Out(Bytes.begin(), Bytes.end());
  std::copy(Region->begin(), Region->end(), Out.begin() + Sec->FileOffset);
  if (Notes.UsedSize > Size)
    support::endian::write64le(Out.data() + Sec->SizeFieldOffset,
                               Notes.UsedSize);
  llvm::append_range(Warnings, Notes.Warnings);
  return Out;
}

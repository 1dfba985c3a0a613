//===- BundleWriter.cpp ---------------------------------------------------===//
#include "asmevo/CodeObject/BundleWriter.h"
#include "asmevo/CodeObject/HostBinary.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Compression.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>
#include <map>
#include <optional>

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
asmevo::compressOffloadBundle(ArrayRef<uint8_t> Uncompressed, uint16_t Version,
                              std::optional<uint16_t> Method) {
  bool Zstd = Method ? *Method == 1 : compression::zstd::isAvailable();
  if (Method && *Method > 1)
    return createStringError("unknown compression method " + Twine(*Method));
  if (Zstd ? !compression::zstd::isAvailable()
           : !compression::zlib::isAvailable())
    return createStringError(Twine("LLVM was built without ") +
                             (Zstd ? "zstd" : "zlib") +
                             ": cannot write this compressed bundle");
  if (Version < 1 || Version > 3)
    return createStringError("cannot write compressed bundle version " +
                             Twine(Version));
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
  // The header layouts of clang/docs/ClangOffloadBundler.rst: version 1
  // has no total size and 32-bit sizes, version 2 32-bit sizes, version 3
  // 64-bit ones.
  uint64_t Header = Version == 1 ? 20 : Version == 2 ? 24 : 32;
  std::vector<uint8_t> Out(Header + Stream.size());
  if (Version < 3 && (Out.size() > UINT32_MAX || Uncompressed.size() > UINT32_MAX))
    return createStringError("bundle too large for compressed bundle version " +
                             Twine(Version));
  memcpy(Out.data(), "CCOB", 4);
  support::endian::write16le(Out.data() + 4, Version);
  support::endian::write16le(Out.data() + 6, Zstd ? 1 : 0);
  uint8_t *P = Out.data() + 8;
  if (Version == 1) {
    support::endian::write32le(P, Uncompressed.size());
    P += 4;
  } else if (Version == 2) {
    support::endian::write32le(P, Out.size());
    support::endian::write32le(P + 4, Uncompressed.size());
    P += 8;
  } else {
    support::endian::write64le(P, Out.size());
    support::endian::write64le(P + 8, Uncompressed.size());
    P += 16;
  }
  support::endian::write64le(P, Digest.low());
  memcpy(Out.data() + Header, Stream.data(), Stream.size());
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

namespace {
/// Where one entry's payload offset and size fields are in its bundle.
struct EntryFields {
  uint64_t FieldPos; ///< Of the offset; the size follows.
  uint64_t Offset, Size;
};
} // namespace

/// The entry headers of the uncompressed bundle at the start of \p B, in
/// header order (the order readOffloadBundles returns them in).
static std::optional<std::vector<EntryFields>>
entryFields(ArrayRef<uint8_t> B) {
  using namespace support::endian;
  if (B.size() < Magic.size() + 8)
    return std::nullopt;
  uint64_t N = read64le(B.data() + Magic.size());
  uint64_t Pos = Magic.size() + 8;
  std::vector<EntryFields> Out;
  for (uint64_t I = 0; I < N; ++I) {
    if (B.size() - Pos < 24)
      return std::nullopt;
    EntryFields F{Pos, read64le(B.data() + Pos), read64le(B.data() + Pos + 8)};
    uint64_t IdLen = read64le(B.data() + Pos + 16);
    Pos += 24;
    if (IdLen > B.size() - Pos)
      return std::nullopt;
    Pos += IdLen;
    Out.push_back(F);
  }
  return Out;
}

/// Where the header or the last payload of the uncompressed bundle at the
/// start of \p B ends.
static uint64_t bundleEnd(ArrayRef<uint8_t> B) {
  auto Fields = entryFields(B);
  if (!Fields)
    return B.size();
  uint64_t End = Fields->empty() ? 0 : Fields->back().FieldPos + 24;
  for (const EntryFields &F : *Fields)
    End = std::max(End, F.Offset + F.Size);
  return std::min<uint64_t>(End, B.size());
}

/// \p Bundle (one uncompressed bundle, then whatever room follows it, all
/// of which the caller may use) with the payloads \p Entries of \p Group
/// replaced by \p NewData where that is non-empty, each written at its
/// original offset: only the payload and its size field change, so every
/// other entry keeps its offset and bytes. Nullopt when a payload does not
/// fit before the next payload (or, with \p Bounded, the end of
/// \p Bundle), or would cover non-zero bytes.
static std::optional<std::vector<uint8_t>>
replaceInSlots(ArrayRef<uint8_t> Bundle, ArrayRef<BundleEntry> Entries,
               ArrayRef<unsigned> Group, ArrayRef<std::vector<uint8_t>> NewData,
               bool Bounded) {
  auto Fields = entryFields(Bundle);
  if (!Fields || Fields->size() != Group.size())
    return std::nullopt;
  std::vector<uint8_t> Out(Bundle.begin(), Bundle.end());
  for (unsigned K = 0; K < Group.size(); ++K) {
    unsigned I = Group[K];
    if (I >= NewData.size() || NewData[I].empty())
      continue;
    const EntryFields &F = (*Fields)[K];
    if (F.Size != Entries[I].Data.size())
      return std::nullopt;
    uint64_t SlotEnd = Bounded ? Bundle.size() : UINT64_MAX;
    for (unsigned J = 0; J < Fields->size(); ++J)
      if (J != K && (*Fields)[J].Size && (*Fields)[J].Offset >= F.Offset)
        SlotEnd = std::min(SlotEnd, (*Fields)[J].Offset);
    uint64_t NewSize = NewData[I].size();
    if (NewSize > SlotEnd - F.Offset)
      return std::nullopt;
    uint64_t OldEnd = F.Offset + F.Size, NewEnd = F.Offset + NewSize;
    if (NewEnd > Out.size())
      Out.resize(NewEnd, 0);
    if (NewEnd > OldEnd &&
        std::any_of(Out.begin() + OldEnd, Out.begin() + NewEnd,
                    [](uint8_t B) { return B != 0; }))
      return std::nullopt;
    std::fill(Out.begin() + F.Offset, Out.begin() + std::max(OldEnd, NewEnd),
              0);
    std::copy(NewData[I].begin(), NewData[I].end(), Out.begin() + F.Offset);
    support::endian::write64le(Out.data() + F.FieldPos + 8, NewSize);
  }
  return Out;
}

/// The uncompressed bytes of \p Group's bundle with the new payloads: in
/// their slots when they fit, else laid out afresh at the original payload
/// alignment (later entries move; their bytes do not change).
static std::vector<uint8_t>
rebuildBundle(ArrayRef<uint8_t> Original, ArrayRef<BundleEntry> Entries,
              ArrayRef<unsigned> Group, ArrayRef<std::vector<uint8_t>> NewData,
              bool Bounded) {
  if (auto InSlots = replaceInSlots(Original, Entries, Group, NewData, Bounded))
    return std::move(*InSlots);
  std::vector<BundleOutputEntry> Outs;
  for (unsigned I : Group)
    Outs.push_back({Entries[I].Id, I < NewData.size() && !NewData[I].empty()
                                       ? ArrayRef<uint8_t>(NewData[I])
                                       : Entries[I].Data});
  uint64_t Align = 4096;
  for (unsigned I : Group)
    if (!Entries[I].Data.empty())
      Align = std::min<uint64_t>(Align, Entries[I].Offset & -Entries[I].Offset);
  return writeOffloadBundle(Outs, std::max<uint64_t>(Align, 1));
}

Expected<std::vector<uint8_t>>
asmevo::rewriteBundles(ArrayRef<uint8_t> Region, ArrayRef<BundleEntry> Entries,
                       ArrayRef<std::vector<uint8_t>> NewData, StringRef Where,
                       bool AllowGrowth, uint64_t Slack,
                       InPlaceRewriteNotes *Notes, bool AllowCompress) {
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
    for (unsigned I : It->second)
      Touched |= I < NewData.size() && !NewData[I].empty();
    if (!Touched) {
      if (AllowGrowth)
        Grown.insert(Grown.end(), Region.begin() + Start,
                     Region.begin() + Limit);
      continue;
    }
    const BundleEntry &Head = Entries[It->second.front()];
    bool WasCompressed = Head.WasCompressed;
    if (std::next(It) == ByBundle.end())
      Limit += Slack;
    uint64_t Available = Limit - Start;
    std::vector<uint8_t> B;
    if (WasCompressed) {
      // The decompressed bundle is free to grow: only what it compresses
      // to has to fit. Same format version and method as the original.
      B = rebuildBundle(*Head.Storage, Entries, It->second, NewData,
                        /*Bounded=*/false);
      auto C = compressOffloadBundle(B, Head.CompressedVersion,
                                     Head.CompressionMethod);
      if (!C)
        return C.takeError();
      B = std::move(*C);
    } else {
      ArrayRef<uint8_t> Room =
          AllowGrowth ? Region.slice(Start, Limit - Start)
                      : ArrayRef<uint8_t>(Out).slice(Start, Available);
      B = rebuildBundle(Room, Entries, It->second, NewData,
                        /*Bounded=*/!AllowGrowth);
      // The room after the last payload that the original region did not
      // use is not part of the bundle (the section grows only as needed).
      if (!AllowGrowth)
        B.resize(std::max(bundleEnd(B),
                          std::min<uint64_t>(B.size(), Region.size() - Start)));
    }
    if (AllowGrowth) {
      Grown.insert(Grown.end(), B.begin(), B.end());
      continue;
    }
    if (B.size() > Available && !WasCompressed) {
      if (!AllowCompress)
        return createStringError(
            formatv("{0}+{1:x}: the rebuilt bundle needs {2} bytes but only "
                    "{3} are available (its payload slots, the padding up to "
                    "the next bundle and the zero padding after the "
                    "section): nothing was written; --allow-compress would "
                    "write it compressed (CCOB version 3), which only HIP "
                    "runtimes that read compressed bundles can load",
                    Where, Start, B.size(), Available)
                .str());
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
                          std::vector<std::string> &Warnings,
                          bool AllowCompress) {
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
      /*AllowGrowth=*/false, Slack, &Notes, AllowCompress);
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

//===- OffloadBundle.cpp - Clang offload bundle reader --------------------===//
//
// Part of AsmEvo, a post-link optimizer for AMD GPU code objects.
//
//===----------------------------------------------------------------------===//

#include "asmevo/CodeObject/OffloadBundle.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Compression.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>

using namespace llvm;

namespace asmevo {

namespace {

constexpr StringLiteral BundleMagic = "__CLANG_OFFLOAD_BUNDLE__";
constexpr StringLiteral CompressedMagic = "CCOB";

/// Size of the fixed part of an uncompressed bundle: magic + entry count.
constexpr uint64_t BundleFixedHeaderSize = 24 + 8;
/// Size of the fixed part of an entry header: offset, size, id length.
constexpr uint64_t EntryFixedHeaderSize = 3 * 8;
/// Magic, version and method, common to all compressed header versions.
constexpr uint64_t CompressedCommonHeaderSize = 4 + 2 + 2;

/// Compressed-bundle method field values (llvm::compression::Format).
constexpr uint16_t MethodZlib = 0;
constexpr uint16_t MethodZstd = 1;

/// Upper bound on a decompressed bundle, whatever its header claims.
constexpr uint64_t MaxUncompressedSize = uint64_t(4) << 30;

/// Longest id we quote in an error message.
constexpr size_t MaxQuotedIdLength = 96;

std::string hex(uint64_t V) { return "0x" + utohexstr(V, /*LowerCase=*/true); }

std::string quoteId(StringRef Id) {
  std::string S;
  raw_string_ostream OS(S);
  OS << '\'';
  printEscapedString(Id.take_front(MaxQuotedIdLength), OS);
  if (Id.size() > MaxQuotedIdLength)
    OS << "...";
  OS << '\'';
  return S;
}

/// Says where in the input a bundle is, to build error messages of the form
/// "file: .hip_fatbin+0x1230: what" or "file: offset 0x1230: what".
struct Location {
  StringRef FileName;
  /// Name of the region of the file holding the bundles; empty for a file
  /// that is nothing but bundles.
  StringRef Region;
  /// Offset of the current bundle within the region.
  uint64_t BundleStart = 0;
  /// Whether offsets passed to error() are within a decompressed bundle.
  bool InDecompressed = false;

  /// \p Offset is relative to the start of the current (decompressed) bundle.
  Error error(uint64_t Offset, const Twine &Msg) const {
    std::string Text;
    raw_string_ostream OS(Text);
    OS << FileName << ": ";
    uint64_t Pos = InDecompressed ? BundleStart : BundleStart + Offset;
    if (Region.empty())
      OS << "offset " << hex(Pos);
    else
      OS << Region << '+' << hex(Pos);
    if (InDecompressed)
      OS << ": decompressed bundle+" << hex(Offset);
    OS << ": " << Msg;
    return createStringError(
        std::make_error_code(std::errc::illegal_byte_sequence), Text);
  }
};

std::optional<uint64_t> readLE64(StringRef B, uint64_t Off) {
  if (Off > B.size() || B.size() - Off < 8)
    return std::nullopt;
  return support::endian::read64le(B.data() + Off);
}

std::optional<uint32_t> readLE32(StringRef B, uint64_t Off) {
  if (Off > B.size() || B.size() - Off < 4)
    return std::nullopt;
  return support::endian::read32le(B.data() + Off);
}

std::optional<uint16_t> readLE16(StringRef B, uint64_t Off) {
  if (Off > B.size() || B.size() - Off < 2)
    return std::nullopt;
  return support::endian::read16le(B.data() + Off);
}

ArrayRef<uint8_t> bytesOf(StringRef S) {
  return ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(S.data()),
                           S.size());
}

/// Finds the next bundle magic (either kind) at or after \p From.
size_t findNextMagic(StringRef B, size_t From) {
  size_t A = B.find(BundleMagic, From);
  size_t C = B.find(CompressedMagic, From);
  return std::min(A, C);
}

struct ParsedBundle {
  std::vector<BundleEntry> Entries;
  /// Bytes of input the bundle occupies.
  uint64_t Size = 0;
};

/// Parses the uncompressed bundle at the start of \p Buf. \p Buf may extend
/// past the bundle's end; payloads must lie within it. Entry data points into
/// \p Buf.
Expected<ParsedBundle> parseUncompressedBundle(StringRef Buf,
                                               const Location &Loc) {
  if (!Buf.starts_with(BundleMagic))
    return Loc.error(0, "missing '__CLANG_OFFLOAD_BUNDLE__' magic");
  std::optional<uint64_t> NumEntries = readLE64(Buf, BundleMagic.size());
  if (!NumEntries)
    return Loc.error(BundleMagic.size(),
                     "bundle header truncated: no room for the entry count "
                     "(have " +
                         hex(Buf.size()) + " bytes)");
  uint64_t Room = Buf.size() - BundleFixedHeaderSize;
  if (*NumEntries > Room / EntryFixedHeaderSize)
    return Loc.error(
        BundleMagic.size(),
        "bundle entry count " + hex(*NumEntries) + " is impossible: at most " +
            Twine(Room / EntryFixedHeaderSize) +
            " entries fit in the remaining " + hex(Room) + " bytes");

  ParsedBundle Result;
  uint64_t Pos = BundleFixedHeaderSize;
  uint64_t End = 0;
  for (uint64_t I = 0; I < *NumEntries; ++I) {
    uint64_t EntryPos = Pos;
    std::optional<uint64_t> Offset = readLE64(Buf, Pos);
    std::optional<uint64_t> Size = readLE64(Buf, Pos + 8);
    std::optional<uint64_t> IdLen = readLE64(Buf, Pos + 16);
    if (!Offset || !Size || !IdLen)
      return Loc.error(EntryPos,
                       "bundle entry " + Twine(I) + " header truncated (need " +
                           Twine(EntryFixedHeaderSize) + " bytes, have " +
                           Twine(Buf.size() - EntryPos) + ")");
    Pos += EntryFixedHeaderSize;
    if (*IdLen > Buf.size() - Pos)
      return Loc.error(EntryPos + 16,
                       "bundle entry " + Twine(I) + " id length " +
                           hex(*IdLen) + " extends past end of data (" +
                           hex(Buf.size() - Pos) + " bytes left)");
    StringRef Id = Buf.substr(Pos, *IdLen);
    Pos += *IdLen;
    if (Id.empty())
      return Loc.error(EntryPos + 16,
                       "bundle entry " + Twine(I) + " has an empty id");
    std::optional<BundleIdParts> Parts = parseBundleId(Id);
    if (!Parts)
      return Loc.error(EntryPos + EntryFixedHeaderSize,
                       "bundle entry " + Twine(I) + " has malformed id " +
                           quoteId(Id) +
                           " (expected <kind>-<arch>-<vendor>-<os>...)");
    if (*Size > Buf.size() || *Offset > Buf.size() - *Size)
      return Loc.error(EntryPos, "bundle entry " + Twine(I) +
                                     " extends past end of bundle (offset " +
                                     hex(*Offset) + ", size " + hex(*Size) +
                                     ", " + hex(Buf.size()) +
                                     " bytes available)");
    End = std::max(End, *Offset + *Size);

    BundleEntry E;
    E.Id = Id.str();
    E.Kind = std::move(Parts->Kind);
    E.Triple = std::move(Parts->Triple);
    E.TargetID = std::move(Parts->TargetID);
    E.Offset = *Offset;
    E.Data = bytesOf(Buf.substr(*Offset, *Size));
    Result.Entries.push_back(std::move(E));
  }

  // Payloads follow the header; one inside it means a corrupt header.
  uint64_t HeaderEnd = Pos;
  for (size_t I = 0, N = Result.Entries.size(); I < N; ++I) {
    const BundleEntry &E = Result.Entries[I];
    if (!E.Data.empty() && E.Offset < HeaderEnd)
      return Loc.error(E.Offset, "bundle entry " + Twine(I) + " payload " +
                                     "(offset " + hex(E.Offset) + ", size " +
                                     hex(E.Data.size()) +
                                     ") overlaps the bundle header, which "
                                     "ends at " +
                                     hex(HeaderEnd));
  }
  Result.Size = std::max(End, HeaderEnd);
  return Result;
}

/// Decompresses \p In into \p Out, expecting exactly \p ExpectedSize bytes.
Error decompressStream(uint16_t Method, ArrayRef<uint8_t> In,
                       uint64_t ExpectedSize, SmallVectorImpl<uint8_t> &Out) {
  Out.clear();
  Error Err = Error::success();
  if (Method == MethodZlib)
    Err = compression::zlib::decompress(In, Out, ExpectedSize);
  else
    Err = compression::zstd::decompress(In, Out, ExpectedSize);
  if (Err)
    return Err;
  if (Out.size() != ExpectedSize)
    return createStringError(
        std::make_error_code(std::errc::illegal_byte_sequence),
        "decompressed to " + hex(Out.size()) + " bytes, header says " +
            hex(ExpectedSize));
  return Error::success();
}

/// Returns the length of the zstd frame at the start of \p S by walking its
/// block headers (RFC 8878, section 3.1.1), or std::nullopt if \p S does not
/// start with a complete frame.
std::optional<uint64_t> zstdFrameSize(ArrayRef<uint8_t> S) {
  constexpr uint32_t FrameMagic = 0xFD2FB528;
  if (S.size() < 5 || support::endian::read32le(S.data()) != FrameMagic)
    return std::nullopt;
  uint8_t Descriptor = S[4];
  unsigned ContentSizeFlag = Descriptor >> 6;
  bool SingleSegment = (Descriptor >> 5) & 1;
  bool Reserved = (Descriptor >> 3) & 1;
  bool HasChecksum = (Descriptor >> 2) & 1;
  unsigned DictIdFlag = Descriptor & 3;
  if (Reserved)
    return std::nullopt;
  static constexpr uint64_t DictIdSizes[] = {0, 1, 2, 4};
  static constexpr uint64_t ContentSizeSizes[] = {0, 2, 4, 8};
  uint64_t ContentSizeBytes = ContentSizeSizes[ContentSizeFlag];
  if (ContentSizeFlag == 0 && SingleSegment)
    ContentSizeBytes = 1;
  uint64_t Pos =
      5 + (SingleSegment ? 0 : 1) + DictIdSizes[DictIdFlag] + ContentSizeBytes;
  while (true) {
    if (Pos > S.size() || S.size() - Pos < 3)
      return std::nullopt;
    uint32_t BlockHeader = S[Pos] | (S[Pos + 1] << 8) | (S[Pos + 2] << 16);
    Pos += 3;
    bool Last = BlockHeader & 1;
    unsigned Type = (BlockHeader >> 1) & 3;
    uint64_t Size = BlockHeader >> 3;
    if (Type == 3) // Reserved block type.
      return std::nullopt;
    // An RLE block stores one byte, repeated Size times.
    uint64_t Stored = Type == 1 ? 1 : Size;
    if (Stored > S.size() - Pos)
      return std::nullopt;
    Pos += Stored;
    if (Last)
      break;
  }
  if (HasChecksum)
    Pos += 4;
  if (Pos > S.size())
    return std::nullopt;
  return Pos;
}

/// Parses the compressed ("CCOB") bundle at the start of \p Buf, which may
/// extend past the bundle's end.
Expected<ParsedBundle> parseCompressedBundle(StringRef Buf,
                                             const Location &Loc) {
  std::optional<uint16_t> Version = readLE16(Buf, 4);
  std::optional<uint16_t> Method = readLE16(Buf, 6);
  if (!Buf.starts_with(CompressedMagic) || !Version || !Method)
    return Loc.error(0, "compressed bundle header truncated (need " +
                            Twine(CompressedCommonHeaderSize) +
                            " bytes, have " + Twine(Buf.size()) + ")");

  uint64_t HeaderSize = 0;
  std::optional<uint64_t> FileSize;
  std::optional<uint64_t> UncompressedSize;
  std::optional<uint64_t> Hash;
  uint64_t FieldsPos = CompressedCommonHeaderSize;
  switch (*Version) {
  case 1:
    HeaderSize = CompressedCommonHeaderSize + 4 + 8;
    UncompressedSize = readLE32(Buf, FieldsPos);
    Hash = readLE64(Buf, FieldsPos + 4);
    break;
  case 2:
    HeaderSize = CompressedCommonHeaderSize + 4 + 4 + 8;
    FileSize = readLE32(Buf, FieldsPos);
    UncompressedSize = readLE32(Buf, FieldsPos + 4);
    Hash = readLE64(Buf, FieldsPos + 8);
    break;
  case 3:
    HeaderSize = CompressedCommonHeaderSize + 8 + 8 + 8;
    FileSize = readLE64(Buf, FieldsPos);
    UncompressedSize = readLE64(Buf, FieldsPos + 8);
    Hash = readLE64(Buf, FieldsPos + 16);
    break;
  default:
    return Loc.error(4, "unsupported compressed bundle version " +
                            Twine(*Version) + " (expected 1, 2 or 3)");
  }
  if (Buf.size() < HeaderSize)
    return Loc.error(0, "compressed bundle header (version " + Twine(*Version) +
                            ") truncated (need " + Twine(HeaderSize) +
                            " bytes, have " + Twine(Buf.size()) + ")");

  const char *MethodName = nullptr;
  bool Available = false;
  if (*Method == MethodZlib) {
    MethodName = "zlib";
    Available = compression::zlib::isAvailable();
  } else if (*Method == MethodZstd) {
    MethodName = "zstd";
    Available = compression::zstd::isAvailable();
  } else {
    return Loc.error(6, "unknown compression method " + Twine(*Method) +
                            " (expected 0 for zlib or 1 for zstd)");
  }
  if (!Available)
    return Loc.error(6, Twine("bundle is compressed with ") + MethodName +
                            ", but LLVM was built without " + MethodName +
                            " support");

  // Version 1 does not record its size. A zstd frame describes its own
  // length; a zlib stream runs up to the next bundle or the end of the data
  // (zlib ignores what follows the stream, such as alignment padding).
  uint64_t TotalSize;
  if (FileSize) {
    if (*FileSize < HeaderSize || *FileSize > Buf.size())
      return Loc.error(FieldsPos, "compressed bundle size " + hex(*FileSize) +
                                      " is invalid (header is " +
                                      hex(HeaderSize) + " bytes, " +
                                      hex(Buf.size()) + " bytes available)");
    TotalSize = *FileSize;
  } else if (*Method == MethodZstd) {
    std::optional<uint64_t> FrameSize =
        zstdFrameSize(bytesOf(Buf.drop_front(HeaderSize)));
    if (!FrameSize)
      return Loc.error(HeaderSize, "malformed or truncated zstd frame in "
                                   "version 1 compressed bundle");
    TotalSize = HeaderSize + *FrameSize;
  } else {
    TotalSize = std::min<uint64_t>(findNextMagic(Buf, HeaderSize), Buf.size());
  }
  ArrayRef<uint8_t> Stream =
      bytesOf(Buf.substr(HeaderSize, TotalSize - HeaderSize));

  // Reject sizes no stream of this length can produce before allocating
  // anything. Deflate expands at most ~1032:1; a zstd RLE block of at most
  // 128 KiB costs at least 4 bytes.
  uint64_t MaxRatio = *Method == MethodZlib ? 1040 : 32768;
  uint64_t Bound =
      std::min(MaxUncompressedSize, Stream.size() * MaxRatio + 4096);
  uint64_t SizeFieldPos =
      *Version == 1 ? FieldsPos : FieldsPos + 4 * (*Version - 1);
  if (*UncompressedSize > Bound)
    return Loc.error(SizeFieldPos,
                     "uncompressed size " + hex(*UncompressedSize) +
                         " is implausible for " + hex(Stream.size()) +
                         " bytes of " + MethodName + " data");

  SmallVector<uint8_t, 0> Decompressed;
  if (Error Err =
          decompressStream(*Method, Stream, *UncompressedSize, Decompressed))
    return Loc.error(HeaderSize,
                     Twine("cannot decompress ") + MethodName +
                         " bundle data: " + toString(std::move(Err)));

  MD5 Hasher;
  Hasher.update(ArrayRef<uint8_t>(Decompressed));
  MD5::MD5Result Digest;
  Hasher.final(Digest);
  if (Digest.low() != *Hash)
    return Loc.error(HeaderSize - 8,
                     "compressed bundle hash mismatch (header " + hex(*Hash) +
                         ", data " + hex(Digest.low()) + ")");

  auto Storage = std::make_shared<std::vector<uint8_t>>(Decompressed.begin(),
                                                        Decompressed.end());
  Decompressed = SmallVector<uint8_t, 0>();
  StringRef Inner(reinterpret_cast<const char *>(Storage->data()),
                  Storage->size());
  Location InnerLoc = Loc;
  InnerLoc.InDecompressed = true;
  if (!Inner.starts_with(BundleMagic))
    return InnerLoc.error(0, "decompressed data is not an offload bundle "
                             "(missing '__CLANG_OFFLOAD_BUNDLE__' magic)");
  Expected<ParsedBundle> Parsed = parseUncompressedBundle(Inner, InnerLoc);
  if (!Parsed)
    return Parsed.takeError();
  for (BundleEntry &E : Parsed->Entries) {
    E.WasCompressed = true;
    E.CompressedVersion = *Version;
    E.CompressionMethod = *Method;
    E.Storage = Storage;
  }
  Parsed->Size = TotalSize;
  return Parsed;
}

bool isEnvironmentName(StringRef Component) {
  if (Component == "unknown")
    return true;
  Triple T("unknown", "unknown", "unknown", Component);
  return T.getEnvironment() != Triple::UnknownEnvironment;
}

} // namespace

std::optional<BundleIdParts> parseBundleId(StringRef Id) {
  // <kind>-<arch>-<vendor>-<os>[-[<environment>]][-<target id>]
  auto [Kind, Rest] = Id.split('-');
  if (Kind.empty() || Rest.empty())
    return std::nullopt;
  StringRef Components[3];
  for (StringRef &C : Components) {
    if (Rest.empty())
      return std::nullopt;
    std::tie(C, Rest) = Rest.split('-');
    if (C.empty())
      return std::nullopt;
  }
  // Split leaves Rest empty both for "...-os" and "...-os-"; either way there
  // is no environment and no target id.
  StringRef Environment, TargetID;
  if (!Rest.empty()) {
    if (Rest.front() == '-') {
      // "amdgcn-amd-amdhsa--gfx942": empty environment.
      TargetID = Rest.drop_front();
    } else {
      auto [First, After] = Rest.split('-');
      if (isEnvironmentName(First)) {
        Environment = First;
        TargetID = After;
      } else {
        // Old style "amdgcn-amd-amdhsa-gfx906": the target id follows the OS.
        TargetID = Rest;
      }
    }
  }

  BundleIdParts Parts;
  Parts.Kind = Kind.str();
  Parts.Triple =
      (Components[0] + "-" + Components[1] + "-" + Components[2]).str();
  if (!Environment.empty() && Environment != "unknown")
    Parts.Triple += ("-" + Environment).str();
  Parts.TargetID = TargetID.str();
  return Parts;
}

bool looksLikeOffloadBundle(StringRef Bytes) {
  return Bytes.starts_with(BundleMagic) || Bytes.starts_with(CompressedMagic);
}

Expected<std::vector<BundleEntry>> readOffloadBundles(StringRef Bytes,
                                                      StringRef FileName) {
  return readOffloadBundles(Bytes, FileName, StringRef());
}

Expected<std::vector<BundleEntry>>
readOffloadBundles(StringRef Bytes, StringRef FileName, StringRef RegionName) {
  std::vector<BundleEntry> Entries;
  Location Loc;
  Loc.FileName = FileName;
  Loc.Region = RegionName;

  bool FoundBundle = false;
  uint64_t Pos = 0;
  while (true) {
    // Bundles are separated by zero padding up to the section alignment.
    size_t Next = Bytes.find_first_not_of('\0', Pos);
    if (Next == StringRef::npos)
      break;
    Pos = Next;
    Loc.BundleStart = Pos;
    StringRef Rest = Bytes.drop_front(Pos);

    if (!looksLikeOffloadBundle(Rest)) {
      std::string Found;
      raw_string_ostream OS(Found);
      StringRef Head = Rest.take_front(8);
      for (size_t I = 0; I < Head.size(); ++I)
        OS << (I ? " " : "") << format_hex_no_prefix(uint8_t(Head[I]), 2);
      return Loc.error(0, Twine(FoundBundle ? "unexpected data after bundle"
                                            : "not an offload bundle") +
                              ": expected '__CLANG_OFFLOAD_BUNDLE__' or "
                              "'CCOB' magic, found bytes " +
                              Found);
    }
    Expected<ParsedBundle> Parsed = Rest.starts_with(BundleMagic)
                                        ? parseUncompressedBundle(Rest, Loc)
                                        : parseCompressedBundle(Rest, Loc);
    if (!Parsed)
      return Parsed.takeError();

    FoundBundle = true;
    for (BundleEntry &E : Parsed->Entries) {
      E.BundleOffset = Pos;
      Entries.push_back(std::move(E));
    }
    // Every bundle has a header of at least 20 bytes, so this advances.
    Pos += Parsed->Size;
  }

  if (!FoundBundle) {
    Loc.BundleStart = 0;
    return Loc.error(0, Bytes.empty()
                            ? Twine("no offload bundle: the data is empty")
                            : Twine("no offload bundle: all ") +
                                  Twine(Bytes.size()) + " bytes are zero");
  }
  return Entries;
}

} // namespace asmevo

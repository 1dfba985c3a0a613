//===- OffloadBundleTest.cpp - Tests for the offload bundle reader --------===//
//
// Part of AsmEvo, a post-link optimizer for AMD GPU code objects.
//
//===----------------------------------------------------------------------===//

#include "asmevo/CodeObject/OffloadBundle.h"
#include "asmevo/CodeObject/HostBinary.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Compression.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <map>
#include <random>
#include <set>

using namespace llvm;
using namespace asmevo;

namespace {

//===----------------------------------------------------------------------===//
// Helpers that write bundles byte by byte.
//===----------------------------------------------------------------------===//

constexpr StringLiteral Magic = "__CLANG_OFFLOAD_BUNDLE__";

void appendLE(std::string &Out, uint64_t V, unsigned Bytes) {
  for (unsigned I = 0; I < Bytes; ++I)
    Out.push_back(char((V >> (8 * I)) & 0xff));
}

struct TestEntry {
  std::string Id;
  std::string Payload;
};

/// Writes an uncompressed bundle; payloads start at multiples of \p Align.
std::string makeBundle(ArrayRef<TestEntry> Entries, uint64_t Align = 1) {
  uint64_t HeaderSize = Magic.size() + 8;
  for (const TestEntry &E : Entries)
    HeaderSize += 24 + E.Id.size();
  std::vector<uint64_t> Offsets;
  uint64_t Pos = HeaderSize;
  for (const TestEntry &E : Entries) {
    Pos = alignTo(Pos, Align);
    Offsets.push_back(Pos);
    Pos += E.Payload.size();
  }
  std::string Out(Magic);
  appendLE(Out, Entries.size(), 8);
  for (size_t I = 0; I < Entries.size(); ++I) {
    appendLE(Out, Offsets[I], 8);
    appendLE(Out, Entries[I].Payload.size(), 8);
    appendLE(Out, Entries[I].Id.size(), 8);
    Out += Entries[I].Id;
  }
  for (size_t I = 0; I < Entries.size(); ++I) {
    Out.resize(Offsets[I], '\0');
    Out += Entries[I].Payload;
  }
  return Out;
}

/// Wraps \p Bundle in a "CCOB" header of the given version.
std::string makeCompressed(StringRef Bundle, unsigned Version,
                           compression::Format Format) {
  SmallVector<uint8_t, 0> Stream;
  compression::compress(compression::Params(Format),
                        arrayRefFromStringRef(Bundle), Stream);
  MD5 Hasher;
  Hasher.update(Bundle);
  MD5::MD5Result Digest;
  Hasher.final(Digest);

  std::string Out = "CCOB";
  appendLE(Out, Version, 2);
  appendLE(Out, Format == compression::Format::Zlib ? 0 : 1, 2);
  if (Version == 1) {
    appendLE(Out, Bundle.size(), 4);
  } else if (Version == 2) {
    appendLE(Out, 24 + Stream.size(), 4);
    appendLE(Out, Bundle.size(), 4);
  } else {
    appendLE(Out, 32 + Stream.size(), 8);
    appendLE(Out, Bundle.size(), 8);
  }
  appendLE(Out, Digest.low(), 8);
  Out += toStringRef(Stream);
  return Out;
}

std::string padTo(std::string S, uint64_t Align) {
  S.resize(alignTo(S.size(), Align), '\0');
  return S;
}

std::string payloadOf(const BundleEntry &E) {
  return toStringRef(E.Data).str();
}

template <typename T> std::string errorText(Expected<T> &V) {
  return V ? std::string("<no error>") : toString(V.takeError());
}

const std::vector<TestEntry> TwoEntries = {
    {"host-x86_64-unknown-linux-gnu-", ""},
    {"hipv4-amdgcn-amd-amdhsa--gfx942:xnack-", "DEVICE-CODE-942"},
};

const std::vector<TestEntry> ThreeEntries = {
    {"host-x86_64-unknown-linux-gnu-", ""},
    {"hipv4-amdgcn-amd-amdhsa--gfx942:xnack-", "DEVICE-CODE-942"},
    {"hipv4-amdgcn-amd-amdhsa--gfx90a", "CODE-90A"},
};

//===----------------------------------------------------------------------===//
// Bundle ids.
//===----------------------------------------------------------------------===//

void expectId(StringRef Id, StringRef Kind, StringRef Triple,
              StringRef TargetID) {
  SCOPED_TRACE(Id.str());
  std::optional<BundleIdParts> P = parseBundleId(Id);
  ASSERT_TRUE(P.has_value());
  EXPECT_EQ(P->Kind, Kind);
  EXPECT_EQ(P->Triple, Triple);
  EXPECT_EQ(P->TargetID, TargetID);
}

TEST(BundleIdTest, CurrentForms) {
  expectId("hipv4-amdgcn-amd-amdhsa--gfx942:xnack-", "hipv4",
           "amdgcn-amd-amdhsa", "gfx942:xnack-");
  expectId("hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack+", "hipv4",
           "amdgcn-amd-amdhsa", "gfx90a:sramecc+:xnack+");
  expectId("hip-amdgcn-amd-amdhsa--gfx1100", "hip", "amdgcn-amd-amdhsa",
           "gfx1100");
  expectId("host-x86_64-unknown-linux-gnu-", "host", "x86_64-unknown-linux-gnu",
           "");
  expectId("openmp-x86_64-pc-linux-gnu", "openmp", "x86_64-pc-linux-gnu", "");
  expectId("hipv4-amdgcn-amd-amdhsa-unknown-gfx906", "hipv4",
           "amdgcn-amd-amdhsa", "gfx906");
  expectId("hipv4-amdgcn-amd-amdhsa--", "hipv4", "amdgcn-amd-amdhsa", "");
}

TEST(BundleIdTest, OldForms) {
  expectId("host-x86_64-unknown-linux", "host", "x86_64-unknown-linux", "");
  expectId("host-x86_64-unknown-linux-", "host", "x86_64-unknown-linux", "");
  expectId("hip-amdgcn-amd-amdhsa-gfx906", "hip", "amdgcn-amd-amdhsa",
           "gfx906");
  expectId("hip-amdgcn-amd-amdhsa-gfx908:xnack-", "hip", "amdgcn-amd-amdhsa",
           "gfx908:xnack-");
}

TEST(BundleIdTest, Malformed) {
  for (StringRef Id :
       {"", "host", "host-", "-x86_64-unknown-linux", "host-x86_64",
        "host-x86_64-unknown", "host-x86_64--linux", "hip-amdgcn-amd-"}) {
    SCOPED_TRACE(Id.str());
    EXPECT_FALSE(parseBundleId(Id).has_value());
  }
}

//===----------------------------------------------------------------------===//
// Uncompressed bundles.
//===----------------------------------------------------------------------===//

TEST(OffloadBundleTest, SingleEntry) {
  std::string B = makeBundle({{"hipv4-amdgcn-amd-amdhsa--gfx942", "ELF!"}});
  EXPECT_TRUE(looksLikeOffloadBundle(B));
  Expected<std::vector<BundleEntry>> R = readOffloadBundles(B, "one.bundle");
  ASSERT_TRUE(bool(R)) << errorText(R);
  ASSERT_EQ(R->size(), 1u);
  const BundleEntry &E = (*R)[0];
  EXPECT_EQ(E.Id, "hipv4-amdgcn-amd-amdhsa--gfx942");
  EXPECT_EQ(E.Kind, "hipv4");
  EXPECT_EQ(E.Triple, "amdgcn-amd-amdhsa");
  EXPECT_EQ(E.TargetID, "gfx942");
  EXPECT_EQ(E.Offset, B.size() - 4);
  EXPECT_EQ(E.BundleOffset, 0u);
  EXPECT_FALSE(E.WasCompressed);
  EXPECT_EQ(E.Storage, nullptr);
  EXPECT_EQ(payloadOf(E), "ELF!");
  // Uncompressed payloads point into the caller's buffer.
  EXPECT_EQ(reinterpret_cast<const char *>(E.Data.data()), B.data() + E.Offset);
}

TEST(OffloadBundleTest, TwoEntries) {
  std::string B = makeBundle(TwoEntries, 16);
  Expected<std::vector<BundleEntry>> R = readOffloadBundles(B, "two.bundle");
  ASSERT_TRUE(bool(R)) << errorText(R);
  ASSERT_EQ(R->size(), 2u);
  EXPECT_EQ((*R)[0].Kind, "host");
  EXPECT_EQ((*R)[0].Triple, "x86_64-unknown-linux-gnu");
  EXPECT_EQ((*R)[0].TargetID, "");
  EXPECT_TRUE((*R)[0].Data.empty());
  EXPECT_EQ((*R)[1].Kind, "hipv4");
  EXPECT_EQ((*R)[1].TargetID, "gfx942:xnack-");
  EXPECT_EQ(payloadOf((*R)[1]), "DEVICE-CODE-942");
  EXPECT_EQ((*R)[1].Offset % 16, 0u);
}

TEST(OffloadBundleTest, OldStyleIds) {
  std::string B = makeBundle({{"host-x86_64-unknown-linux", ""},
                              {"hip-amdgcn-amd-amdhsa-gfx906", "OLD906"},
                              {"hip-amdgcn-amd-amdhsa-gfx908:xnack-", "908"}});
  Expected<std::vector<BundleEntry>> R = readOffloadBundles(B, "old.bundle");
  ASSERT_TRUE(bool(R)) << errorText(R);
  ASSERT_EQ(R->size(), 3u);
  EXPECT_EQ((*R)[0].Kind, "host");
  EXPECT_EQ((*R)[0].Triple, "x86_64-unknown-linux");
  EXPECT_EQ((*R)[1].Kind, "hip");
  EXPECT_EQ((*R)[1].Triple, "amdgcn-amd-amdhsa");
  EXPECT_EQ((*R)[1].TargetID, "gfx906");
  EXPECT_EQ(payloadOf((*R)[1]), "OLD906");
  EXPECT_EQ((*R)[2].TargetID, "gfx908:xnack-");
}

TEST(OffloadBundleTest, EmptyBundleHasNoEntries) {
  std::string B = makeBundle({});
  Expected<std::vector<BundleEntry>> R = readOffloadBundles(B, "empty.bundle");
  ASSERT_TRUE(bool(R)) << errorText(R);
  EXPECT_TRUE(R->empty());
}

//===----------------------------------------------------------------------===//
// Compressed bundles.
//===----------------------------------------------------------------------===//

class CompressedBundleTest : public ::testing::TestWithParam<
                                 std::tuple<unsigned, compression::Format>> {};

TEST_P(CompressedBundleTest, RoundTrip) {
  auto [Version, Format] = GetParam();
  if (Format == compression::Format::Zlib && !compression::zlib::isAvailable())
    GTEST_SKIP() << "LLVM built without zlib";
  if (Format == compression::Format::Zstd && !compression::zstd::isAvailable())
    GTEST_SKIP() << "LLVM built without zstd";
  std::string Inner = makeBundle(ThreeEntries, 8);
  std::string C = makeCompressed(Inner, Version, Format);
  EXPECT_TRUE(looksLikeOffloadBundle(C));
  Expected<std::vector<BundleEntry>> R = readOffloadBundles(C, "c.bundle");
  ASSERT_TRUE(bool(R)) << errorText(R);
  ASSERT_EQ(R->size(), 3u);
  for (const BundleEntry &E : *R) {
    EXPECT_TRUE(E.WasCompressed);
    ASSERT_NE(E.Storage, nullptr);
    EXPECT_EQ(E.Storage, (*R)[0].Storage);
    EXPECT_EQ(E.BundleOffset, 0u);
  }
  EXPECT_EQ(toStringRef(*(*R)[0].Storage), Inner);
  EXPECT_EQ(payloadOf((*R)[1]), "DEVICE-CODE-942");
  EXPECT_EQ(payloadOf((*R)[2]), "CODE-90A");
  EXPECT_EQ((*R)[2].TargetID, "gfx90a");
  EXPECT_EQ(Inner.substr((*R)[2].Offset, 8), "CODE-90A");

  // The entries stay valid after the vector holding them is gone.
  BundleEntry Kept = (*R)[1];
  R->clear();
  EXPECT_EQ(payloadOf(Kept), "DEVICE-CODE-942");
}

INSTANTIATE_TEST_SUITE_P(
    AllVersions, CompressedBundleTest,
    ::testing::Combine(::testing::Values(1u, 2u, 3u),
                       ::testing::Values(compression::Format::Zlib,
                                         compression::Format::Zstd)));

TEST(OffloadBundleTest, CompressedErrors) {
  if (!compression::zstd::isAvailable())
    GTEST_SKIP() << "LLVM built without zstd";
  std::string Good =
      makeCompressed(makeBundle(TwoEntries), 3, compression::Format::Zstd);

  std::string BadVersion = Good;
  BadVersion[4] = 9;
  Expected<std::vector<BundleEntry>> R = readOffloadBundles(BadVersion, "v.b");
  EXPECT_NE(errorText(R).find("unsupported compressed bundle version 9"),
            std::string::npos)
      << errorText(R);

  std::string BadMethod = Good;
  BadMethod[6] = 7;
  R = readOffloadBundles(BadMethod, "m.b");
  EXPECT_NE(errorText(R).find("unknown compression method 7"),
            std::string::npos)
      << errorText(R);

  std::string BadHash = Good;
  BadHash[24] ^= 1;
  R = readOffloadBundles(BadHash, "h.b");
  EXPECT_NE(errorText(R).find("hash mismatch"), std::string::npos)
      << errorText(R);

  std::string HugeSize = Good;
  support::endian::write64le(&HugeSize[16], uint64_t(1) << 62);
  R = readOffloadBundles(HugeSize, "s.b");
  EXPECT_NE(errorText(R).find("implausible"), std::string::npos)
      << errorText(R);

  std::string BadFileSize = Good;
  support::endian::write64le(&BadFileSize[8], ~uint64_t(0));
  R = readOffloadBundles(BadFileSize, "f.b");
  EXPECT_NE(errorText(R).find("compressed bundle size 0xffffffffffffffff"),
            std::string::npos)
      << errorText(R);

  std::string Corrupt = Good;
  for (size_t I = 32; I < Corrupt.size(); ++I)
    Corrupt[I] = char(0xa5);
  R = readOffloadBundles(Corrupt, "d.b");
  std::string Msg = errorText(R);
  EXPECT_EQ(
      Msg.rfind("d.b: offset 0x20: cannot decompress zstd bundle data: ", 0),
      0u)
      << Msg;

  // A compressed stream holding something other than a bundle.
  std::string NotBundle = makeCompressed("just some bytes, no magic here", 2,
                                         compression::Format::Zstd);
  R = readOffloadBundles(NotBundle, "n.b");
  EXPECT_NE(errorText(R).find("decompressed data is not an offload bundle"),
            std::string::npos)
      << errorText(R);
}

TEST(OffloadBundleTest, ErrorInsideDecompressedBundle) {
  if (!compression::zstd::isAvailable())
    GTEST_SKIP() << "LLVM built without zstd";
  std::string Inner = makeBundle(TwoEntries);
  // Make entry 1 claim more payload than there is.
  uint64_t Entry1 = Magic.size() + 8 + 24 + TwoEntries[0].Id.size();
  support::endian::write64le(&Inner[Entry1 + 8], 0x1000);
  std::string C = padTo(makeBundle(TwoEntries), 64) +
                  makeCompressed(Inner, 2, compression::Format::Zstd);
  Expected<std::vector<BundleEntry>> R = readOffloadBundles(C, "in.b");
  std::string Msg = errorText(R);
  EXPECT_NE(Msg.find("in.b: offset 0x"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find(": decompressed bundle+0x" + utohexstr(Entry1, true) +
                     ": bundle entry 1 extends past end of bundle"),
            std::string::npos)
      << Msg;
}

//===----------------------------------------------------------------------===//
// Several bundles in a row.
//===----------------------------------------------------------------------===//

TEST(OffloadBundleTest, BackToBackWithPadding) {
  std::string First = makeBundle(TwoEntries, 4096);
  std::string Second =
      makeBundle({{"hipv4-amdgcn-amd-amdhsa--gfx1100", "RDNA3"}});
  std::string Data = padTo(First, 4096) + padTo(Second, 8);
  if (compression::zstd::isAvailable())
    Data += padTo(
        makeCompressed(makeBundle(ThreeEntries), 3, compression::Format::Zstd),
        4096);
  uint64_t ThirdStart = alignTo(First.size(), 4096) + alignTo(Second.size(), 8);

  Expected<std::vector<BundleEntry>> R = readOffloadBundles(Data, "many.b");
  ASSERT_TRUE(bool(R)) << errorText(R);
  size_t Expected = compression::zstd::isAvailable() ? 6 : 3;
  ASSERT_EQ(R->size(), Expected);
  EXPECT_EQ((*R)[0].BundleOffset, 0u);
  EXPECT_EQ((*R)[1].BundleOffset, 0u);
  EXPECT_EQ(payloadOf((*R)[1]), "DEVICE-CODE-942");
  EXPECT_EQ((*R)[2].BundleOffset, alignTo(First.size(), 4096));
  EXPECT_EQ((*R)[2].TargetID, "gfx1100");
  EXPECT_EQ(payloadOf((*R)[2]), "RDNA3");
  if (Expected == 6) {
    EXPECT_EQ((*R)[3].BundleOffset, ThirdStart);
    EXPECT_TRUE((*R)[5].WasCompressed);
    EXPECT_EQ(payloadOf((*R)[5]), "CODE-90A");
  }
}

TEST(OffloadBundleTest, BackToBackVersion1Zstd) {
  if (!compression::zstd::isAvailable())
    GTEST_SKIP() << "LLVM built without zstd";
  // Version 1 has no size field: the stream ends at the next magic, with
  // alignment padding in between that must be trimmed before decompressing.
  std::string Data = padTo(makeCompressed(makeBundle(TwoEntries), 1,
                                          compression::Format::Zstd),
                           4096) +
                     padTo(makeCompressed(makeBundle(ThreeEntries), 1,
                                          compression::Format::Zstd),
                           4096);
  Expected<std::vector<BundleEntry>> R = readOffloadBundles(Data, "v1.b");
  ASSERT_TRUE(bool(R)) << errorText(R);
  ASSERT_EQ(R->size(), 5u);
  EXPECT_EQ((*R)[2].BundleOffset, 4096u);
  EXPECT_EQ(payloadOf((*R)[4]), "CODE-90A");
}

TEST(OffloadBundleTest, BackToBackVersion1Zlib) {
  if (!compression::zlib::isAvailable())
    GTEST_SKIP() << "LLVM built without zlib";
  // A version-1 zlib stream has no recorded length: it runs to the next
  // magic, and zlib ignores the padding after the stream.
  std::string Data = padTo(makeCompressed(makeBundle(TwoEntries), 1,
                                          compression::Format::Zlib),
                           512) +
                     makeBundle(ThreeEntries);
  Expected<std::vector<BundleEntry>> R = readOffloadBundles(Data, "z1.b");
  ASSERT_TRUE(bool(R)) << errorText(R);
  ASSERT_EQ(R->size(), 5u);
  EXPECT_TRUE((*R)[1].WasCompressed);
  EXPECT_EQ(payloadOf((*R)[1]), "DEVICE-CODE-942");
  EXPECT_FALSE((*R)[4].WasCompressed);
  EXPECT_EQ((*R)[4].BundleOffset, 512u);
}

TEST(OffloadBundleTest, GarbageBetweenBundles) {
  std::string Data = padTo(makeBundle(TwoEntries), 256) + "JUNKJUNK";
  Expected<std::vector<BundleEntry>> R = readOffloadBundles(Data, "junk.b");
  EXPECT_EQ(errorText(R),
            "junk.b: offset 0x100: unexpected data after bundle: expected "
            "'__CLANG_OFFLOAD_BUNDLE__' or 'CCOB' magic, found bytes 4a 55 "
            "4e 4b 4a 55 4e 4b");
}

TEST(OffloadBundleTest, NotABundle) {
  Expected<std::vector<BundleEntry>> R = readOffloadBundles("\x7f"
                                                            "ELF\x02\x01",
                                                            "x.o");
  EXPECT_NE(errorText(R).find("x.o: offset 0x0: not an offload bundle"),
            std::string::npos)
      << errorText(R);
  R = readOffloadBundles("", "empty");
  EXPECT_NE(errorText(R).find("the data is empty"), std::string::npos);
  R = readOffloadBundles(StringRef("\0\0\0\0", 4), "zeros");
  EXPECT_NE(errorText(R).find("all 4 bytes are zero"), std::string::npos);
  EXPECT_FALSE(looksLikeOffloadBundle("__CLANG_OFFLOAD"));
  EXPECT_FALSE(looksLikeOffloadBundle(""));
}

//===----------------------------------------------------------------------===//
// Hostile input.
//===----------------------------------------------------------------------===//

TEST(OffloadBundleTest, EveryTruncationFails) {
  std::vector<std::string> Inputs = {makeBundle(ThreeEntries, 8)};
  if (compression::zstd::isAvailable())
    for (unsigned V : {1u, 2u, 3u})
      Inputs.push_back(makeCompressed(Inputs[0], V, compression::Format::Zstd));
  if (compression::zlib::isAvailable())
    for (unsigned V : {1u, 2u, 3u})
      Inputs.push_back(makeCompressed(Inputs[0], V, compression::Format::Zlib));

  for (const std::string &Full : Inputs) {
    ASSERT_TRUE(bool(readOffloadBundles(Full, "full.b")));
    for (size_t Len = 0; Len < Full.size(); ++Len) {
      // Copy so that AddressSanitizer catches any read past the end.
      std::vector<char> Copy(Full.begin(), Full.begin() + Len);
      StringRef Truncated(Copy.data(), Copy.size());
      Expected<std::vector<BundleEntry>> R =
          readOffloadBundles(Truncated, "cut.b");
      // Cutting off only trailing zero bytes of a payload (or of a v1 zstd
      // stream) can leave valid data; anything else must be an error.
      if (R) {
        EXPECT_EQ(Full.find_last_not_of('\0') + 1 <= Len, true)
            << "accepted a truncation to " << Len << " of " << Full.size();
        continue;
      }
      std::string Msg = toString(R.takeError());
      EXPECT_EQ(Msg.rfind("cut.b: offset 0x", 0), 0u) << Msg;
    }
  }
}

TEST(OffloadBundleTest, BogusEntryCount) {
  std::string B = makeBundle(TwoEntries);
  support::endian::write64le(&B[24], uint64_t(1) << 63);
  Expected<std::vector<BundleEntry>> R = readOffloadBundles(B, "count.b");
  EXPECT_NE(errorText(R).find("count.b: offset 0x18: bundle entry count "
                              "0x8000000000000000 is impossible"),
            std::string::npos)
      << errorText(R);
  support::endian::write64le(&B[24], ~uint64_t(0));
  R = readOffloadBundles(B, "count.b");
  EXPECT_FALSE(bool(R));
  consumeError(R.takeError());
}

TEST(OffloadBundleTest, EntryPastEnd) {
  std::string B = makeBundle(ThreeEntries);
  // Entry 2's header: after the fixed header and entries 0 and 1.
  uint64_t Entry2 = Magic.size() + 8 + 2 * 24 + ThreeEntries[0].Id.size() +
                    ThreeEntries[1].Id.size();
  std::string Overflow = B;
  support::endian::write64le(&Overflow[Entry2], ~uint64_t(0));
  support::endian::write64le(&Overflow[Entry2 + 8], 2);
  Expected<std::vector<BundleEntry>> R = readOffloadBundles(Overflow, "o.b");
  EXPECT_EQ(errorText(R),
            "o.b: offset 0x" + utohexstr(Entry2, true) +
                ": bundle entry 2 extends past end of bundle (offset "
                "0xffffffffffffffff, size 0x2, 0x" +
                utohexstr(B.size(), true) + " bytes available)");

  std::string HugeId = B;
  support::endian::write64le(&HugeId[Entry2 + 16], uint64_t(1) << 62);
  R = readOffloadBundles(HugeId, "i.b");
  EXPECT_NE(errorText(R).find("bundle entry 2 id length 0x4000000000000000 "
                              "extends past end of data"),
            std::string::npos)
      << errorText(R);

  std::string Overlap = B;
  support::endian::write64le(&Overlap[Entry2], 4);
  R = readOffloadBundles(Overlap, "ov.b");
  EXPECT_NE(errorText(R).find("overlaps the bundle header"), std::string::npos)
      << errorText(R);

  std::string BadId = makeBundle({{"gfx942", "X"}});
  R = readOffloadBundles(BadId, "id.b");
  EXPECT_NE(errorText(R).find("bundle entry 0 has malformed id 'gfx942'"),
            std::string::npos)
      << errorText(R);
}

TEST(OffloadBundleTest, RandomMutationsNeverCrash) {
  std::vector<std::string> Seeds = {padTo(makeBundle(ThreeEntries, 8), 64) +
                                    makeBundle(TwoEntries)};
  if (compression::zstd::isAvailable())
    Seeds.push_back(
        makeCompressed(makeBundle(ThreeEntries), 2, compression::Format::Zstd));
  if (compression::zlib::isAvailable())
    Seeds.push_back(
        makeCompressed(makeBundle(ThreeEntries), 1, compression::Format::Zlib));
  std::mt19937_64 Rng(12345);
  for (const std::string &Seed : Seeds) {
    for (int Iter = 0; Iter < 2000; ++Iter) {
      std::vector<char> Copy(Seed.begin(), Seed.end());
      int Flips = 1 + Rng() % 4;
      for (int F = 0; F < Flips; ++F) {
        size_t At = Rng() % Copy.size();
        switch (Rng() % 3) {
        case 0:
          Copy[At] = char(Rng());
          break;
        case 1:
          Copy[At] = char(0xff);
          break;
        default:
          Copy[At] ^= char(1u << (Rng() % 8));
          break;
        }
      }
      Expected<std::vector<BundleEntry>> R =
          readOffloadBundles(StringRef(Copy.data(), Copy.size()), "fuzz.b");
      if (R) {
        for (const BundleEntry &E : *R) {
          // Touch every payload byte so ASan checks the bounds.
          volatile uint8_t Sum = 0;
          for (uint8_t B : E.Data)
            Sum += B;
          (void)Sum;
        }
      } else {
        consumeError(R.takeError());
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Tests that run LLVM tools.
//===----------------------------------------------------------------------===//

/// The program CMake found for Name (cmake/AsmEvoTools.cmake), or $EnvVar
/// when set; never whatever PATH holds.
std::optional<std::string> findTool(StringRef Name, const char *EnvVar) {
  if (EnvVar)
    if (std::optional<std::string> V = sys::Process::GetEnv(EnvVar))
      if (!V->empty() && sys::fs::can_execute(*V))
        return *V;
  StringRef P = Name == "clang-offload-bundler" ? ASMEVO_TOOL_CLANG_OFFLOAD_BUNDLER
                : Name == "clang-22"            ? ASMEVO_TOOL_CLANG_22
                                                : "";
  if (!P.empty() && sys::fs::can_execute(P))
    return P.str();
  return std::nullopt;
}

/// A scratch directory removed at the end of the test.
class ToolTest : public ::testing::Test {
protected:
  SmallString<128> Dir;

  void SetUp() override {
    ASSERT_FALSE(sys::fs::createUniqueDirectory("asmevo-bundle", Dir));
  }
  void TearDown() override { sys::fs::remove_directories(Dir); }

  std::string path(StringRef Name) {
    SmallString<128> P(Dir);
    sys::path::append(P, Name);
    return std::string(P);
  }

  void writeFile(StringRef Name, StringRef Contents) {
    std::error_code EC;
    raw_fd_ostream OS(path(Name), EC);
    ASSERT_FALSE(EC) << EC.message();
    OS << Contents;
  }

  std::string readFile(StringRef Name) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(
        path(Name), /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!B)
      return std::string();
    return (*B)->getBuffer().str();
  }

  /// Runs \p Args; returns false and records the failure if it fails.
  bool run(ArrayRef<std::string> Args) {
    SmallVector<StringRef, 16> Refs(Args.begin(), Args.end());
    std::string ErrMsg;
    std::optional<StringRef> Redirects[] = {std::nullopt, std::nullopt,
                                            std::nullopt};
    int RC =
        sys::ExecuteAndWait(Refs[0], Refs, /*Env=*/std::nullopt, Redirects,
                            /*SecondsToWait=*/120, /*MemoryLimit=*/0, &ErrMsg);
    if (RC != 0) {
      ADD_FAILURE() << join(Args, " ") << " failed (" << RC << "): " << ErrMsg;
      return false;
    }
    return true;
  }
};

TEST_F(ToolTest, ClangOffloadBundlerCompressed) {
  std::optional<std::string> Bundler =
      findTool("clang-offload-bundler", "CLANG_OFFLOAD_BUNDLER");
  if (!Bundler)
    GTEST_SKIP() << "clang-offload-bundler not found";
  writeFile("dev942.bin", "DEVICE-PAYLOAD-942");
  writeFile("dev90a.bin", "DEVICE-90A");
  writeFile("host.bin", "");
  std::string Targets = "-targets=host-x86_64-unknown-linux-gnu,"
                        "hipv4-amdgcn-amd-amdhsa--gfx942:xnack-,"
                        "hipv4-amdgcn-amd-amdhsa--gfx90a";
  std::vector<std::string> Common = {*Bundler,
                                     "-type=o",
                                     Targets,
                                     "-input=" + path("host.bin"),
                                     "-input=" + path("dev942.bin"),
                                     "-input=" + path("dev90a.bin")};

  struct Variant {
    const char *Name;
    std::vector<std::string> Extra;
    const char *FormatVersion;
    bool Compressed;
  };
  std::vector<Variant> Variants = {
      {"plain.b", {}, nullptr, false},
      {"aligned.b", {"-bundle-align=4096"}, nullptr, false},
      {"v3.b", {"-compress"}, "3", true},
      {"v2.b", {"-compress", "-compression-level=9"}, "2", true},
  };
  std::string Concatenated;
  for (const Variant &V : Variants) {
    SCOPED_TRACE(V.Name);
    std::vector<std::string> Args = Common;
    Args.insert(Args.end(), V.Extra.begin(), V.Extra.end());
    Args.push_back("-output=" + path(V.Name));
    // The bundler reads the compressed format version from the environment.
    if (V.FormatVersion)
      ::setenv("COMPRESSED_BUNDLE_FORMAT_VERSION", V.FormatVersion, 1);
    bool Ok = run(Args);
    ::unsetenv("COMPRESSED_BUNDLE_FORMAT_VERSION");
    if (!Ok)
      continue;
    std::string Bytes = readFile(V.Name);
    EXPECT_EQ(StringRef(Bytes).starts_with("CCOB"), V.Compressed);
    Expected<std::vector<BundleEntry>> R = readOffloadBundles(Bytes, V.Name);
    ASSERT_TRUE(bool(R)) << errorText(R);
    ASSERT_EQ(R->size(), 3u);
    std::map<std::string, std::string> ByTarget;
    for (const BundleEntry &E : *R) {
      EXPECT_EQ(E.WasCompressed, V.Compressed);
      ByTarget[E.TargetID] = payloadOf(E);
    }
    EXPECT_EQ(ByTarget["gfx942:xnack-"], "DEVICE-PAYLOAD-942");
    EXPECT_EQ(ByTarget["gfx90a"], "DEVICE-90A");
    EXPECT_EQ(ByTarget[""], "");
    Concatenated += padTo(Bytes, 4096);
  }
  Expected<std::vector<BundleEntry>> All =
      readOffloadBundles(Concatenated, "all.b");
  ASSERT_TRUE(bool(All)) << errorText(All);
  EXPECT_EQ(All->size(), 3 * Variants.size());
}

TEST_F(ToolTest, HostELFWithHipFatbin) {
  std::optional<std::string> Clang = findTool("clang-22", "ASMEVO_CLANG");
  if (!Clang)
    GTEST_SKIP() << "clang-22 not found";
  // Just enough of the HIP headers for clang to emit the kernel stub.
  StringRef Prelude = "#define __global__ __attribute__((global))\n"
                      "typedef struct { unsigned x, y, z; } dim3;\n"
                      "extern \"C\" int hipLaunchKernel(const void *, dim3, "
                      "dim3, void **, unsigned long, void *);\n";
  writeFile("a.hip",
            (Prelude + "__global__ void ka(int *p) { *p = 1; }\n").str());
  writeFile("b.hip",
            (Prelude + "__global__ void kb(int *p) { *p = 2; }\n").str());
  std::vector<std::string> Compile = {*Clang,      "-x",    "hip", "-nogpuinc",
                                      "-nogpulib", "-fPIC", "-c"};
  auto CompileOne = [&](StringRef Src, StringRef Out,
                        std::vector<std::string> Extra) {
    std::vector<std::string> Args = Compile;
    Args.insert(Args.end(), Extra.begin(), Extra.end());
    Args.push_back(path(Src));
    Args.push_back("-o");
    Args.push_back(path(Out));
    return run(Args);
  };
  ASSERT_TRUE(CompileOne("a.hip", "a.o",
                         {"--offload-arch=gfx942", "--offload-arch=gfx90a"}));
  ASSERT_TRUE(CompileOne("b.hip", "b.o",
                         {"--offload-arch=gfx1100", "--offload-compress"}));
  ASSERT_TRUE(run({*Clang, "-shared", "-nostdlib", "-fuse-ld=lld", path("a.o"),
                   path("b.o"), "-o", path("libab.so")}));

  std::string Obj = readFile("a.o");
  EXPECT_TRUE(looksLikeHostELF(Obj));
  Expected<std::vector<BundleEntry>> R = readHostFatbin(Obj, "a.o");
  ASSERT_TRUE(bool(R)) << errorText(R);
  ASSERT_EQ(R->size(), 3u);
  std::set<std::string> Targets;
  for (const BundleEntry &E : *R) {
    Targets.insert(E.TargetID);
    if (E.Kind == "host")
      continue;
    EXPECT_EQ(E.Triple, "amdgcn-amd-amdhsa");
    // Each device payload is an AMDGPU code object, which is not a host ELF.
    StringRef Payload = toStringRef(E.Data);
    EXPECT_TRUE(Payload.starts_with("\x7f"
                                    "ELF"));
    EXPECT_FALSE(looksLikeHostELF(Payload));
  }
  EXPECT_EQ(Targets, (std::set<std::string>{"", "gfx942", "gfx90a"}));

  std::string Lib = readFile("libab.so");
  ASSERT_TRUE(looksLikeHostELF(Lib));
  Expected<HipFatbinSection> Sec = findHipFatbinSection(Lib, "libab.so");
  ASSERT_TRUE(bool(Sec)) << errorText(Sec);
  EXPECT_EQ(Sec->Contents.data(), Lib.data() + Sec->FileOffset);
  EXPECT_GE(Sec->Alignment, 8u);
  R = readHostFatbin(Lib, "libab.so");
  ASSERT_TRUE(bool(R)) << errorText(R);
  ASSERT_EQ(R->size(), 5u);
  size_t Compressed = 0;
  std::set<uint64_t> Starts;
  for (const BundleEntry &E : *R) {
    Compressed += E.WasCompressed;
    Starts.insert(E.BundleOffset);
  }
  EXPECT_EQ(Compressed, 2u);
  EXPECT_EQ(Starts.size(), 2u);
  EXPECT_EQ((*R)[4].TargetID, "gfx1100");
  EXPECT_TRUE(toStringRef((*R)[4].Data)
                  .starts_with("\x7f"
                               "ELF"));

  // Corrupt the first bundle's entry count: the error names the section.
  std::string Bad = Lib;
  support::endian::write64le(&Bad[Sec->FileOffset + 24], uint64_t(1) << 63);
  R = readHostFatbin(Bad, "libab.so");
  EXPECT_NE(errorText(R).find("libab.so: .hip_fatbin+0x18: bundle entry "
                              "count 0x8000000000000000 is impossible"),
            std::string::npos)
      << errorText(R);

  // Every truncation of the object file fails cleanly.
  for (size_t Len = 0; Len < Obj.size(); Len += 7) {
    std::vector<char> Copy(Obj.begin(), Obj.begin() + Len);
    Expected<std::vector<BundleEntry>> T =
        readHostFatbin(StringRef(Copy.data(), Copy.size()), "cut.o");
    if (!T)
      consumeError(T.takeError());
  }
}

TEST_F(ToolTest, HostELFWithoutFatbin) {
  std::optional<std::string> Clang = findTool("clang-22", "ASMEVO_CLANG");
  if (!Clang)
    GTEST_SKIP() << "clang-22 not found";
  writeFile("plain.c", "int f(void) { return 1; }\n");
  ASSERT_TRUE(run({*Clang, "-c", path("plain.c"), "-o", path("plain.o")}));
  std::string Obj = readFile("plain.o");
  EXPECT_TRUE(looksLikeHostELF(Obj));
  Expected<std::vector<BundleEntry>> R = readHostFatbin(Obj, "plain.o");
  EXPECT_NE(errorText(R).find("plain.o: no .hip_fatbin section"),
            std::string::npos)
      << errorText(R);
}

TEST(HostBinaryTest, NotAnELF) {
  EXPECT_FALSE(looksLikeHostELF("hello"));
  EXPECT_FALSE(looksLikeHostELF(""));
  Expected<std::vector<BundleEntry>> R = readHostFatbin("hello", "h.txt");
  EXPECT_NE(errorText(R).find("h.txt: not a valid object file"),
            std::string::npos)
      << errorText(R);
  // An ELF header with nothing behind it.
  std::string Header("\x7f"
                     "ELF\x02\x01\x01",
                     7);
  Header.resize(20, '\0');
  Header[18] = 62; // EM_X86_64
  EXPECT_TRUE(looksLikeHostELF(Header));
  R = readHostFatbin(Header, "short.so");
  EXPECT_NE(errorText(R).find("short.so: "), std::string::npos) << errorText(R);
  Header[18] = char(224); // EM_AMDGPU
  EXPECT_FALSE(looksLikeHostELF(Header));
}

} // namespace

//===- BundleWriterTest.cpp - Tests for in-place bundle rewriting ---------===//
//
// Part of AsmEvo, a post-link optimizer for AMD GPU code objects.
//
// What lit cannot reach with real edits: payloads that do not compress (so
// that even a compressed bundle does not fit), bundles that are not the last
// in their section, and hand-made host layouts around .hip_fatbin.
//
//===----------------------------------------------------------------------===//

#include "asmevo/CodeObject/BundleWriter.h"
#include "asmevo/CodeObject/HostBinary.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/ObjectYAML/yaml2obj.h"
#include "llvm/Support/Compression.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

#include <random>

using namespace llvm;
using namespace asmevo;

namespace {

constexpr StringLiteral HostId = "host-x86_64-unknown-linux-gnu-";
constexpr StringLiteral DeviceId = "hipv4-amdgcn-amd-amdhsa--gfx942";

std::vector<uint8_t> randomBytes(size_t N, unsigned Seed) {
  std::mt19937 Gen(Seed);
  std::vector<uint8_t> Out(N);
  for (uint8_t &B : Out)
    B = uint8_t(Gen());
  return Out;
}

/// A host entry and one device entry holding \p Payload, payload unaligned
/// so that no padding helps compression.
std::vector<uint8_t> bundleOf(ArrayRef<uint8_t> Payload) {
  return writeOffloadBundle({{HostId.str(), {}}, {DeviceId.str(), Payload}},
                            /*Align=*/1);
}

StringRef asString(ArrayRef<uint8_t> B) {
  return StringRef(reinterpret_cast<const char *>(B.data()), B.size());
}

/// The device payload of the single bundle at the start of \p Region.
std::vector<uint8_t> devicePayload(ArrayRef<uint8_t> Region) {
  auto Entries = readOffloadBundles(asString(Region), "out");
  EXPECT_TRUE(bool(Entries)) << toString(Entries.takeError());
  if (!Entries)
    return {};
  for (const BundleEntry &E : *Entries)
    if (E.Id == DeviceId)
      return std::vector<uint8_t>(E.Data.begin(), E.Data.end());
  ADD_FAILURE() << "no device entry";
  return {};
}

bool haveZstd() { return compression::zstd::isAvailable(); }

//===----------------------------------------------------------------------===//
// rewriteBundles, in place.
//===----------------------------------------------------------------------===//

TEST(BundleWriterTest, OutgrownUncompressedBundleIsCompressed) {
  if (!haveZstd())
    GTEST_SKIP() << "LLVM built without zstd";
  std::vector<uint8_t> Region = bundleOf(std::vector<uint8_t>(4000, 7));
  auto Entries = readOffloadBundles(asString(Region), "in");
  ASSERT_TRUE(bool(Entries)) << toString(Entries.takeError());
  std::vector<std::vector<uint8_t>> NewData(Entries->size());
  NewData[1] = std::vector<uint8_t>(4100, 9);
  InPlaceRewriteNotes Notes;
  // Only when asked: compressing changes which runtimes can load it.
  auto Refused =
      rewriteBundles(Region, *Entries, NewData, "lib.so: .hip_fatbin",
                     /*AllowGrowth=*/false, /*Slack=*/0, &Notes);
  ASSERT_FALSE(bool(Refused));
  EXPECT_TRUE(StringRef(toString(Refused.takeError()))
                  .contains(formatv("lib.so: .hip_fatbin+0x0: the rebuilt "
                                    "bundle needs {0} bytes but only {1} are "
                                    "available",
                                    Region.size() + 100, Region.size())
                                .str()));
  auto Out = rewriteBundles(Region, *Entries, NewData, "lib.so: .hip_fatbin",
                            /*AllowGrowth=*/false, /*Slack=*/0, &Notes,
                            /*AllowCompress=*/true);
  ASSERT_TRUE(bool(Out)) << toString(Out.takeError());
  EXPECT_EQ(Out->size(), Region.size());
  EXPECT_TRUE(asString(*Out).starts_with("CCOB"));
  EXPECT_EQ(devicePayload(*Out), NewData[1]);
  EXPECT_EQ(Notes.UsedSize, Region.size());
  ASSERT_EQ(Notes.Warnings.size(), 1u);
  EXPECT_TRUE(StringRef(Notes.Warnings[0])
                  .starts_with(formatv("lib.so: .hip_fatbin+0x0: the rebuilt "
                                       "bundle ({0} bytes) does not fit in "
                                       "the {1} available, so it was written "
                                       "compressed",
                                       Region.size() + 100, Region.size())
                                   .str()))
      << Notes.Warnings[0];
}

TEST(BundleWriterTest, IncompressibleGrowthIsAnError) {
  if (!haveZstd())
    GTEST_SKIP() << "LLVM built without zstd";
  std::vector<uint8_t> Region = bundleOf(randomBytes(4000, 1));
  auto Entries = readOffloadBundles(asString(Region), "in");
  ASSERT_TRUE(bool(Entries)) << toString(Entries.takeError());
  std::vector<std::vector<uint8_t>> NewData(Entries->size());
  NewData[1] = randomBytes(4100, 2);
  InPlaceRewriteNotes Notes;
  auto Out = rewriteBundles(Region, *Entries, NewData, "lib.so: .hip_fatbin",
                            /*AllowGrowth=*/false, /*Slack=*/16, &Notes,
                            /*AllowCompress=*/true);
  ASSERT_FALSE(bool(Out));
  std::string Msg = toString(Out.takeError());
  EXPECT_TRUE(StringRef(Msg).starts_with(
      formatv("lib.so: .hip_fatbin+0x0: the rebuilt bundle needs {0} bytes (",
              Region.size() + 100)
          .str()))
      << Msg;
  EXPECT_TRUE(StringRef(Msg).ends_with(
      formatv(" compressed) but only {0} are available", Region.size() + 16)
          .str()))
      << Msg;
  EXPECT_TRUE(Notes.Warnings.empty());
}

TEST(BundleWriterTest, SlackTakesUncompressedGrowth) {
  std::vector<uint8_t> Region = bundleOf(randomBytes(4000, 3));
  auto Entries = readOffloadBundles(asString(Region), "in");
  ASSERT_TRUE(bool(Entries)) << toString(Entries.takeError());
  std::vector<std::vector<uint8_t>> NewData(Entries->size());
  NewData[1] = randomBytes(4100, 4);
  InPlaceRewriteNotes Notes;
  auto Out = rewriteBundles(Region, *Entries, NewData, "lib.so: .hip_fatbin",
                            /*AllowGrowth=*/false, /*Slack=*/128, &Notes);
  ASSERT_TRUE(bool(Out)) << toString(Out.takeError());
  EXPECT_EQ(Out->size(), Region.size() + 128);
  EXPECT_TRUE(asString(*Out).starts_with("__CLANG_OFFLOAD_BUNDLE__"));
  EXPECT_EQ(Notes.UsedSize, Region.size() + 100);
  EXPECT_TRUE(Notes.Warnings.empty());
  EXPECT_EQ(devicePayload(*Out), NewData[1]);
  // The slack it did not use stays zero.
  EXPECT_EQ(asString(*Out).drop_front(Notes.UsedSize).find_first_not_of('\0'),
            StringRef::npos);
}

TEST(BundleWriterTest, SlackIsOnlyForTheLastBundle) {
  std::vector<uint8_t> First = bundleOf(randomBytes(1000, 5));
  std::vector<uint8_t> Second = bundleOf(randomBytes(1000, 6));
  std::vector<uint8_t> Region = First;
  Region.insert(Region.end(), Second.begin(), Second.end());
  auto Entries = readOffloadBundles(asString(Region), "in");
  ASSERT_TRUE(bool(Entries)) << toString(Entries.takeError());
  ASSERT_EQ(Entries->size(), 4u);
  std::vector<std::vector<uint8_t>> NewData(Entries->size());
  NewData[1] = randomBytes(1010, 7);
  auto Out = rewriteBundles(Region, *Entries, NewData, "a.out: .hip_fatbin",
                            /*AllowGrowth=*/false, /*Slack=*/4096);
  ASSERT_FALSE(bool(Out));
  EXPECT_TRUE(
      StringRef(toString(Out.takeError()))
          .contains(formatv("but only {0} are available", First.size()).str()));
  // The second one may use it.
  NewData[1].clear();
  NewData[3] = randomBytes(1010, 8);
  InPlaceRewriteNotes Notes;
  Out = rewriteBundles(Region, *Entries, NewData, "a.out: .hip_fatbin",
                       /*AllowGrowth=*/false, /*Slack=*/4096, &Notes);
  ASSERT_TRUE(bool(Out)) << toString(Out.takeError());
  EXPECT_EQ(Notes.UsedSize, Region.size() + 10);
  EXPECT_TRUE(Notes.Warnings.empty());
}

TEST(BundleWriterTest, BundleFilesStillGrow) {
  std::vector<uint8_t> Region = bundleOf(randomBytes(1000, 9));
  auto Entries = readOffloadBundles(asString(Region), "in");
  ASSERT_TRUE(bool(Entries)) << toString(Entries.takeError());
  std::vector<std::vector<uint8_t>> NewData(Entries->size());
  NewData[1] = randomBytes(1500, 10);
  auto Out = rewriteBundles(Region, *Entries, NewData, "x.hipfb",
                            /*AllowGrowth=*/true);
  ASSERT_TRUE(bool(Out)) << toString(Out.takeError());
  EXPECT_EQ(Out->size(), Region.size() + 500);
  EXPECT_EQ(devicePayload(*Out), NewData[1]);
}

TEST(BundleWriterTest, PayloadThatFitsItsSlotMovesNothingElse) {
  // Payloads 4 KiB aligned, as hipcc writes them: the first device entry
  // may grow into its padding, and the second keeps its offset and bytes.
  std::vector<uint8_t> A = randomBytes(3000, 20), B = randomBytes(3000, 21);
  std::vector<uint8_t> Region = writeOffloadBundle(
      {{HostId.str(), {}}, {DeviceId.str(), A},
       {"hipv4-amdgcn-amd-amdhsa--gfx90a", B}},
      /*Align=*/4096);
  auto Entries = readOffloadBundles(asString(Region), "in");
  ASSERT_TRUE(bool(Entries)) << toString(Entries.takeError());
  std::vector<std::vector<uint8_t>> NewData(Entries->size());
  NewData[1] = randomBytes(3100, 22);
  auto Out = rewriteBundles(Region, *Entries, NewData, "a.out: .hip_fatbin",
                            /*AllowGrowth=*/false);
  ASSERT_TRUE(bool(Out)) << toString(Out.takeError());
  ASSERT_EQ(Out->size(), Region.size());
  auto New = readOffloadBundles(asString(*Out), "out");
  ASSERT_TRUE(bool(New)) << toString(New.takeError());
  EXPECT_EQ((*New)[1].Offset, (*Entries)[1].Offset);
  EXPECT_EQ(std::vector<uint8_t>((*New)[1].Data.begin(), (*New)[1].Data.end()),
            NewData[1]);
  EXPECT_EQ((*New)[2].Offset, (*Entries)[2].Offset);
  // Everything from the second payload on is the original's.
  EXPECT_TRUE(std::equal(Region.begin() + (*Entries)[2].Offset, Region.end(),
                         Out->begin() + (*Entries)[2].Offset));
}

TEST(BundleWriterTest, CompressedBundleKeepsItsVersionAndMethod) {
  std::vector<uint8_t> Inner = bundleOf(std::vector<uint8_t>(4000, 7));
  for (uint16_t Version : {1, 2, 3})
    for (uint16_t Method : {0, 1}) {
      if (Method == 1 ? !haveZstd() : !compression::zlib::isAvailable())
        continue;
      SCOPED_TRACE(formatv("version {0} method {1}", Version, Method).str());
      auto C = compressOffloadBundle(Inner, Version, Method);
      ASSERT_TRUE(bool(C)) << toString(C.takeError());
      std::vector<uint8_t> Region = *C;
      Region.resize(Region.size() + 256, 0);
      auto Entries = readOffloadBundles(asString(Region), "in");
      ASSERT_TRUE(bool(Entries)) << toString(Entries.takeError());
      EXPECT_EQ((*Entries)[1].CompressedVersion, Version);
      std::vector<std::vector<uint8_t>> NewData(Entries->size());
      NewData[1] = std::vector<uint8_t>(4010, 8);
      auto Out = rewriteBundles(Region, *Entries, NewData, "a.out",
                                /*AllowGrowth=*/false);
      ASSERT_TRUE(bool(Out)) << toString(Out.takeError());
      EXPECT_EQ(support::endian::read16le(Out->data() + 4), Version);
      EXPECT_EQ(support::endian::read16le(Out->data() + 6), Method);
      EXPECT_EQ(devicePayload(*Out), NewData[1]);
    }
}

//===----------------------------------------------------------------------===//
// Host layouts: the padding after .hip_fatbin.
//===----------------------------------------------------------------------===//

/// An x86-64 ELF of type \p Type whose .hip_fatbin holds \p Fatbin and is
/// followed, in the same PT_LOAD segment, by \p GapSize bytes of
/// \p GapByte and a .next section.
std::string hostYAML(StringRef Type, ArrayRef<uint8_t> Fatbin, uint64_t GapSize,
                     StringRef GapByte) {
  uint64_t NextAddr = 0x1000 + Fatbin.size() + GapSize;
  return formatv(R"(--- !ELF
FileHeader:
  Class: ELFCLASS64
  Data: ELFDATA2LSB
  Type: {0}
  Machine: EM_X86_64
Sections:
  - Name: .hip_fatbin
    Type: SHT_PROGBITS
    Flags: [ SHF_ALLOC ]
    Address: 0x1000
    AddressAlign: 0x1000
    Content: "{1}"
  - Type: Fill
    Pattern: "{2}"
    Size: {3}
  - Name: .next
    Type: SHT_PROGBITS
    Flags: [ SHF_ALLOC ]
    Address: {4}
    AddressAlign: 1
    Content: "0102030405060708"
ProgramHeaders:
  - Type: PT_LOAD
    Flags: [ PF_R ]
    FirstSec: .hip_fatbin
    LastSec: .next
    VAddr: 0x1000
    Align: 0x1000
)",
                 Type, toHex(Fatbin), GapByte, GapSize, NextAddr)
      .str();
}

std::string makeHost(StringRef Yaml) {
  SmallString<0> Storage;
  std::string Err;
  std::unique_ptr<object::ObjectFile> Obj = yaml::yaml2ObjectFile(
      Storage, Yaml, [&](const Twine &Msg) { Err += Msg.str(); });
  EXPECT_TRUE(Obj != nullptr) << Err;
  return std::string(Storage);
}

TEST(HostSlackTest, ZeroPaddingIsSlack) {
  std::vector<uint8_t> Fatbin = bundleOf(randomBytes(200, 11));
  std::string Host = makeHost(hostYAML("ET_DYN", Fatbin, 0x40, "00"));
  auto Sec = findHipFatbinSection(Host, "lib.so");
  ASSERT_TRUE(bool(Sec)) << toString(Sec.takeError());
  EXPECT_EQ(Sec->Contents.size(), Fatbin.size());
  EXPECT_EQ(Sec->Slack, 0x40u);
  EXPECT_NE(Sec->SizeFieldOffset, 0u);
}

TEST(HostSlackTest, NoSlackWithoutZeroPaddingOrSegments) {
  std::vector<uint8_t> Fatbin = bundleOf(randomBytes(200, 12));
  for (auto [Type, Byte] :
       {std::pair<StringRef, StringRef>{"ET_DYN", "ff"}, {"ET_REL", "00"}}) {
    SCOPED_TRACE((Type + " " + Byte).str());
    std::string Host = makeHost(hostYAML(Type, Fatbin, 0x40, Byte));
    auto Sec = findHipFatbinSection(Host, "h");
    ASSERT_TRUE(bool(Sec)) << toString(Sec.takeError());
    EXPECT_EQ(Sec->Slack, 0u);
  }
}

TEST(HostSlackTest, RewriteGrowsTheSectionIntoItsSlack) {
  std::vector<uint8_t> Fatbin = bundleOf(randomBytes(200, 13));
  std::string Host = makeHost(hostYAML("ET_DYN", Fatbin, 0x40, "00"));
  auto Entries = readHostFatbin(Host, "lib.so");
  ASSERT_TRUE(bool(Entries)) << toString(Entries.takeError());
  std::vector<std::vector<uint8_t>> NewData(Entries->size());
  NewData[1] = randomBytes(230, 14);
  std::vector<std::string> Warnings;
  auto Out = rewriteHostFatbin(Host, "lib.so", *Entries, NewData, Warnings);
  ASSERT_TRUE(bool(Out)) << toString(Out.takeError());
  EXPECT_TRUE(Warnings.empty());
  ASSERT_EQ(Out->size(), Host.size());
  auto Sec = findHipFatbinSection(asString(*Out), "out");
  ASSERT_TRUE(bool(Sec)) << toString(Sec.takeError());
  EXPECT_EQ(Sec->Contents.size(), Fatbin.size() + 30);
  EXPECT_EQ(Sec->Slack, 0x40u - 30);
  EXPECT_EQ(devicePayload(arrayRefFromStringRef(Sec->Contents)), NewData[1]);
  // Outside the section and its sh_size, nothing changed.
  for (size_t I = 0; I < Host.size(); ++I) {
    bool InSection =
        I >= Sec->FileOffset && I < Sec->FileOffset + 0x40 + Fatbin.size();
    bool InSizeField =
        I >= Sec->SizeFieldOffset && I < Sec->SizeFieldOffset + 8;
    if (!InSection && !InSizeField)
      ASSERT_EQ(uint8_t(Host[I]), (*Out)[I]) << "offset " << I;
  }
  // Growing past the padding is an error naming the sizes.
  NewData[1] = randomBytes(300, 15);
  Out = rewriteHostFatbin(Host, "lib.so", *Entries, NewData, Warnings);
  ASSERT_FALSE(bool(Out));
  EXPECT_TRUE(StringRef(toString(Out.takeError()))
                  .starts_with(formatv("lib.so: .hip_fatbin+0x0: the rebuilt "
                                       "bundle needs {0} bytes",
                                       Fatbin.size() + 100)
                                   .str()));
}

} // namespace

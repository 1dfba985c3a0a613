//===- DescriptorBitsTest.cpp - Every descriptor bit is seen ---------------===//
//
// A K1 that differs from K0 in one bit of a kernel descriptor must never be
// `equivalent` without that bit's field named in the report: each of the
// 512 bits of relu's descriptor (a suite kernel with preloaded arguments)
// is flipped in turn and the candidate is either unreadable with an error
// naming the descriptor field, refused as incomparable with the field
// named, or verified with the field listed and judged by the runs or
// `unknown`. The counts are printed for the record.
//
//===----------------------------------------------------------------------===//
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/CodeObject/DescriptorFields.h"
#include "asmevo/Emulator/LaunchSpec.h"
#include "asmevo/Verify/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"
#include <map>

using namespace llvm;
using namespace asmevo;
using namespace asmevo::verify;

namespace {

const char *Relu = ASMEVO_TEST_KERNEL_DIR "/suite_relu-gfx942.co";

// Small sizes, one seed: the point is the descriptor, not the kernel.
const char *Spec = R"SPEC(asmevo-launch: 1
scalars:
  n: {type: i32, value: 1000}
buffers:
  x: {type: f32, count: n, role: in, init: {dist: special}}
  y: {type: f32, count: n, role: out}
kernel: relu
grid: ["ceil_div(n, 256)"]
block: [256]
args: [x, y, n]
variants:
  - {n: 77}
)SPEC";

TEST(DescriptorFields, CoverEveryBitOnce) {
  unsigned Next = 0;
  for (const DescriptorField &F : descriptorFields()) {
    EXPECT_EQ(F.Bit, Next) << F.Name;
    EXPECT_TRUE(F.Width > 0 && F.Width <= 64) << F.Name;
    Next = F.Bit + F.Width;
  }
  EXPECT_EQ(Next, KernelDescriptor::Size * 8);
}

TEST(DescriptorBits, EveryBitIsJudgedOrUnknown) {
  auto MB = MemoryBuffer::getFile(Relu, /*IsText=*/false);
  ASSERT_TRUE(bool(MB)) << Relu << " (build asmevo-test-kernels)";
  ArrayRef<uint8_t> Image = arrayRefFromStringRef((*MB)->getBuffer());
  auto K0 = CodeObject::create(Image, "K0");
  ASSERT_TRUE(bool(K0)) << toString(K0.takeError());
  const KernelInfo *K = (*K0)->findKernel("relu");
  ASSERT_TRUE(K);
  const ELFSection *Sec = (*K0)->sectionForAddr(K->DescriptorAddr);
  ASSERT_TRUE(Sec);
  uint64_t FileOff = Sec->Offset + (K->DescriptorAddr - Sec->Addr);
  auto S = emu::LaunchSpec::parse(Spec, "relu-small.yaml");
  ASSERT_TRUE(bool(S)) << toString(S.takeError());

  VerifyOptions O;
  O.Seeds = 1;
  O.RandomSizes = 0;
  O.CheckDeterminism = false;
  unsigned Unreadable = 0, Refused = 0, ByRuns = 0, Unknown = 0,
           Different = 0, Silent = 0;
  std::map<std::string, std::string> Outcomes; // field -> outcomes seen
  for (unsigned Bit = 0; Bit < KernelDescriptor::Size * 8; ++Bit) {
    const DescriptorField &F = descriptorFieldOfBit(Bit);
    std::vector<uint8_t> Bytes(Image.begin(), Image.end());
    Bytes[FileOff + Bit / 8] ^= uint8_t(1u << (Bit % 8));
    auto K1 = CodeObject::create(ArrayRef<uint8_t>(Bytes), "K1");
    std::string Outcome;
    if (!K1) {
      std::string Msg = toString(K1.takeError());
      // The error says what is wrong with the descriptor.
      EXPECT_NE(Msg.find("descriptor"), std::string::npos)
          << "bit " << Bit << " (" << F.Name << "): " << Msg;
      ++Unreadable;
      Outcome = "unreadable";
    } else {
      auto Rep = asmevo::verify::verify(**K0, **K1, *S, O);
      if (!Rep) {
        std::string Msg = toString(Rep.takeError());
        EXPECT_NE(Msg.find(F.Name), std::string::npos)
            << "bit " << Bit << " (" << F.Name << "): " << Msg;
        ++Refused;
        Outcome = "refused";
      } else {
        const ObjectDifference *D = nullptr;
        for (const ObjectDifference &X : Rep->ObjectDiffs)
          if (X.In == "descriptor" && X.Field == F.Name)
            D = &X;
        EXPECT_TRUE(D) << "bit " << Bit << " (" << F.Name
                       << ") is not in the report";
        EXPECT_EQ(Rep->ObjectDiffs.size(), 1u) << "bit " << Bit;
        if (Rep->V == Verdict::Equivalent) {
          if (D && D->J == ObjectDifference::ByRuns) {
            ++ByRuns;
            Outcome = "equivalent (judged by runs)";
          } else {
            ++Silent;
            Outcome = "SILENT";
            ADD_FAILURE() << "bit " << Bit << " (" << F.Name
                          << ") passed unseen";
          }
        } else if (Rep->V == Verdict::Unknown) {
          // Unknown because of the field, or because the runs could not
          // finish (a modelled field that breaks the kernel).
          ++Unknown;
          Outcome = D && D->J == ObjectDifference::Unknown
                        ? "unknown (field not modelled)"
                        : "unknown (runs)";
        } else {
          ++Different;
          Outcome = std::string(verdictName(Rep->V)) + " (judged by runs)";
        }
      }
    }
    std::string &Seen = Outcomes[F.Name];
    if (Seen.find(Outcome) == std::string::npos)
      Seen += (Seen.empty() ? "" : ", ") + Outcome;
  }
  for (auto &[Field, Seen] : Outcomes)
    std::printf("  %-48s %s\n", Field.c_str(), Seen.c_str());
  std::printf("512 bits: %u unreadable (field named), %u refused as "
              "incomparable (field named), %u equivalent judged by runs, "
              "%u different/violation, %u unknown, %u silently passed\n",
              Unreadable, Refused, ByRuns, Different, Unknown, Silent);
  EXPECT_EQ(Silent, 0u);
  EXPECT_EQ(Unreadable + Refused + ByRuns + Different + Unknown, 512u);
}

} // namespace

//===- WorkDirTest.cpp - Paths an agent names stay in the work directory --===//
#include "asmevo/Agent/ToolSet.h"
#include "asmevo/Agent/WorkDir.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"
#include <fstream>

using namespace llvm;
using namespace asmevo;

namespace {

template <typename T> bool ok(Expected<T> E) {
  if (E)
    return true;
  consumeError(E.takeError());
  return false;
}
bool ok(Error E) { return !errorToBool(std::move(E)); }

class WorkDirTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createUniqueDirectory("asmevo-workdir", Base));
    Work = Base;
    sys::path::append(Work, "work");
    ASSERT_FALSE(sys::fs::create_directory(Work));
    write("work/in.co");
    write("secret");
    ASSERT_FALSE(sys::fs::create_directory(Work + "/sub"));
  }
  void TearDown() override { sys::fs::remove_directories(Base); }
  void write(StringRef Rel) {
    std::ofstream(std::string(Base) + "/" + Rel.str()) << "x";
  }
  std::string path(StringRef Rel) { return std::string(Base) + "/" + Rel.str(); }
  SmallString<128> Base, Work;
};

TEST_F(WorkDirTest, InsideIsAllowed) {
  auto D = WorkDir::open(Work);
  ASSERT_TRUE(bool(D));
  EXPECT_TRUE(ok(D->input("in.co")));
  EXPECT_TRUE(ok(D->input("sub/../in.co")));
  EXPECT_TRUE(ok(D->output("sub/out.co")));
}

TEST_F(WorkDirTest, OutsideIsRefusedWhetherOrNotItExists) {
  auto D = WorkDir::open(Work);
  ASSERT_TRUE(bool(D));
  for (StringRef P : {"../secret", "../nothing-here", "/etc/passwd",
                      "sub/../../secret"}) {
    auto R = D->input(P);
    ASSERT_FALSE(bool(R)) << P.str();
    EXPECT_NE(toString(R.takeError()).find("outside the work directory"),
              std::string::npos)
        << P.str();
  }
  EXPECT_FALSE(ok(D->output("../new.co")));
}

TEST_F(WorkDirTest, SymbolicLinksOutAreRefused) {
  ASSERT_FALSE(sys::fs::create_link(path("secret"), path("work/link")));
  ASSERT_FALSE(sys::fs::create_link(Base, path("work/dirlink")));
  auto D = WorkDir::open(Work);
  ASSERT_TRUE(bool(D));
  EXPECT_FALSE(ok(D->input("link")));
  EXPECT_FALSE(ok(D->input("dirlink/secret")));
  // Writing through a link would write outside.
  EXPECT_FALSE(ok(D->output("link")));
  EXPECT_FALSE(ok(D->output("dirlink/new.co")));
}

TEST(ToolSchemaTest, ArgumentsAreChecked) {
  const AgentTool *T = findAgentTool("verify");
  ASSERT_NE(T, nullptr);
  json::Value Good = json::Object{{"k0", "a"}, {"k1", "b"}, {"spec", "s"}};
  EXPECT_TRUE(ok(checkAgainstSchema(Good, T->InputSchema)));
  json::Value Missing = json::Object{{"k0", "a"}, {"k1", "b"}};
  EXPECT_FALSE(ok(checkAgainstSchema(Missing, T->InputSchema)));
  json::Value Range =
      json::Object{{"k0", "a"}, {"k1", "b"}, {"spec", "s"}, {"seeds", 0}};
  EXPECT_FALSE(ok(checkAgainstSchema(Range, T->InputSchema)));
  json::Value Extra =
      json::Object{{"k0", "a"}, {"k1", "b"}, {"spec", "s"}, {"x", 1}};
  EXPECT_FALSE(ok(checkAgainstSchema(Extra, T->InputSchema)));
}

} // namespace

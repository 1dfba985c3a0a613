//===- EditScriptTest.cpp - Edit-script JSON in and out -------------------===//
#include "asmevo/Search/EditScript.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace asmevo;

static const char *Script = R"JS({
  "format": "asmevo-edit-script", "version": 1, "target": "gfx942",
  "edits": [
    {"kind": "replace", "function": "k", "block": 1, "index": 3,
     "instructions": [{"text": "v_max_f32_e32 v1, 0, v1", "bytes": "80 02 02 16"}],
     "asm": ["v_max_f32_e64 v1, v1, 0"], "note": "why"},
    {"kind": "move", "function": "k", "block": 0, "index": 2,
     "instructions": [{"text": "s_nop 0", "bytes": "000080bf"}],
     "to": {"block": 0, "index": 5, "instructions": []}},
    {"kind": "set-waitcnt", "function": "k", "block": 0, "index": 1,
     "instructions": [{"text": "s_waitcnt vmcnt(0)", "bytes": "708f8cbf"}],
     "lgkmcnt": 0},
    {"kind": "pass", "function": "k", "pass": "relax-waitcnt",
     "params": {"rewrites": [0, 2]}, "fingerprint": "00000000deadbeef"}
  ]})JS";

TEST(EditScript, RoundTrip) {
  auto S = parseEditScript(Script, "s.json");
  ASSERT_TRUE(bool(S)) << toString(S.takeError());
  ASSERT_EQ(S->Edits.size(), 4u);
  EXPECT_EQ(S->Edits[0].At->Instrs[0].Bytes,
            (std::vector<uint8_t>{0x80, 0x02, 0x02, 0x16}));
  EXPECT_EQ(*S->Edits[3].Fingerprint, 0xdeadbeefULL);
  EXPECT_FALSE(S->Edits[3].At);
  std::string Text = serializeEditScript(*S);
  auto Again = parseEditScript(Text, "again.json");
  ASSERT_TRUE(bool(Again)) << toString(Again.takeError());
  EXPECT_EQ(serializeEditScript(*Again), Text);
}

static std::string errorOf(StringRef Text) {
  auto S = parseEditScript(Text, "s.json");
  if (S)
    return "";
  return toString(S.takeError());
}

TEST(EditScript, Refusals) {
  EXPECT_NE(errorOf("{").find("not JSON"), std::string::npos);
  EXPECT_NE(errorOf(R"({"format":"asmevo-edit-script","version":2,"edits":[]})")
                .find("version 2 is not supported"),
            std::string::npos);
  std::string Typo = errorOf(
      R"({"format":"asmevo-edit-script","version":1,"edits":[
        {"kind":"delete","function":"k","block":0,"idx":1,"index":1,
         "instructions":[{"text":"s_nop 0","bytes":"000080bf"}]}]})");
  EXPECT_NE(Typo.find("edit 0 (delete): unknown key 'idx'"), std::string::npos)
      << Typo;
  std::string Odd = errorOf(
      R"({"format":"asmevo-edit-script","version":1,"edits":[
        {"kind":"delete","function":"k","block":0,"index":1,
         "instructions":[{"text":"s_nop 0","bytes":"000080b"}]}]})");
  EXPECT_NE(Odd.find("whole 32-bit words"), std::string::npos) << Odd;
}

TEST(EditScript, Normalize) {
  EXPECT_EQ(normalizeInstrText("V_ADD_U32_e32\tv1,  v2 ,v3 "),
            "v_add_u32_e32 v1,v2,v3");
  EXPECT_EQ(normalizeInstrText("v_add_u32_e32 v1, v2, v3"),
            normalizeInstrText("v_add_u32_e32   v1,v2,v3"));
}

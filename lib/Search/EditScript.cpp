//===- EditScript.cpp - Edit scripts: JSON in and out ---------------------===//
#include "asmevo/Search/EditScript.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;
using L = EditScriptLimits;

static constexpr StringLiteral FormatName = "asmevo-edit-script";

static const struct {
  EditKind K;
  StringLiteral Name;
} KindNames[] = {
    {EditKind::Replace, "replace"},        {EditKind::Insert, "insert"},
    {EditKind::Delete, "delete"},          {EditKind::Move, "move"},
    {EditKind::SetWaitcnt, "set-waitcnt"}, {EditKind::SetNop, "set-nop"},
    {EditKind::Rename, "rename"},          {EditKind::Pass, "pass"},
};

StringRef asmevo::editKindName(EditKind K) {
  for (const auto &N : KindNames)
    if (N.K == K)
      return N.Name;
  return "?";
}

std::optional<EditKind> asmevo::parseEditKind(StringRef Name) {
  for (const auto &N : KindNames)
    if (N.Name == Name)
      return N.K;
  return std::nullopt;
}

std::string asmevo::normalizeInstrText(StringRef Text) {
  std::string Out;
  bool Blank = false;
  for (char C : Text) {
    if (isSpace(C)) {
      Blank = true;
      continue;
    }
    if (Blank && !Out.empty() && Out.back() != ',' && C != ',')
      Out += ' ';
    Blank = false;
    Out += toLower(C);
  }
  return Out;
}

Error asmevo::checkJSONDepth(StringRef Text, unsigned Max, StringRef FileName) {
  unsigned Depth = 0;
  bool InString = false;
  for (size_t I = 0; I < Text.size(); ++I) {
    char C = Text[I];
    if (InString) {
      if (C == '\\')
        ++I;
      else if (C == '"')
        InString = false;
    } else if (C == '"') {
      InString = true;
    } else if (C == '[' || C == '{') {
      if (++Depth > Max)
        return createStringError(FileName + ": JSON nested deeper than " +
                                 Twine(Max) + " levels");
    } else if ((C == ']' || C == '}') && Depth) {
      --Depth;
    }
  }
  return Error::success();
}

std::string asmevo::bytesToHex(ArrayRef<uint8_t> Bytes) {
  return toHex(Bytes, /*LowerCase=*/true);
}

std::optional<std::vector<uint8_t>> asmevo::hexToBytes(StringRef Hex) {
  std::string Digits;
  for (char C : Hex) {
    if (isSpace(C))
      continue;
    if (!isHexDigit(C))
      return std::nullopt;
    Digits += C;
  }
  if (Digits.size() % 2)
    return std::nullopt;
  std::vector<uint8_t> Out;
  for (size_t I = 0; I < Digits.size(); I += 2)
    Out.push_back(hexDigitValue(Digits[I]) * 16 + hexDigitValue(Digits[I + 1]));
  return Out;
}

void InstrFingerprint::add(StringRef Text, ArrayRef<uint8_t> Bytes) {
  for (char C : normalizeInstrText(Text))
    mix(C);
  mix(0);
  for (uint8_t B : Bytes)
    mix(B);
  mix(0xff);
}

std::string asmevo::describeEdit(const EditScript &S, size_t I) {
  std::string D = "edit " + std::to_string(I);
  if (I < S.Edits.size())
    D += " (" + editKindName(S.Edits[I].Kind).str() + ")";
  return D;
}

namespace {
/// Reads one JSON object, remembering which keys were asked for, so that
/// an unknown (mistyped) key is an error rather than silently ignored.
class ObjectReader {
public:
  ObjectReader(const json::Object &O, std::string Where)
      : O(O), Where(std::move(Where)) {}

  Error fail(const Twine &Msg) const {
    return createStringError(Where + ": " + Msg);
  }
  const json::Value *get(StringRef Key) {
    Asked.insert(Key);
    return O.get(Key);
  }
  bool has(StringRef Key) const { return O.get(Key) != nullptr; }

  Error string(StringRef Key, std::string &Out, bool Required,
               size_t Max = L::MaxStringLength) {
    const json::Value *V = get(Key);
    if (!V)
      return Required ? fail("'" + Key + "' is missing") : Error::success();
    auto S = V->getAsString();
    if (!S)
      return fail("'" + Key + "' must be a string");
    if (S->size() > Max)
      return fail("'" + Key + "' is longer than " + Twine(Max) +
                  " characters (the documented limit)");
    Out = S->str();
    return Error::success();
  }
  Error uint(StringRef Key, std::optional<unsigned> &Out, bool Required,
             uint64_t Max = UINT32_MAX) {
    const json::Value *V = get(Key);
    if (!V)
      return Required ? fail("'" + Key + "' is missing") : Error::success();
    std::optional<int64_t> I = V->getAsInteger();
    if (!I || *I < 0 || (uint64_t)*I > Max)
      return fail("'" + Key + "' must be an integer from 0 to " + Twine(Max));
    Out = (unsigned)*I;
    return Error::success();
  }
  Error unknownKeys() const {
    for (const auto &KV : O)
      if (!Asked.contains(KV.first))
        return fail("unknown key '" + KV.first.str() + "'");
    return Error::success();
  }
  const std::string &where() const { return Where; }

private:
  const json::Object &O;
  std::string Where;
  StringSet<> Asked;
};
} // namespace

static Error parseInstrs(ObjectReader &R, std::vector<AnchoredInstr> &Out) {
  const json::Value *V = R.get("instructions");
  if (!V)
    return R.fail("'instructions' is missing");
  const json::Array *A = V->getAsArray();
  if (!A)
    return R.fail("'instructions' must be a list");
  if (A->size() > L::MaxWindow)
    return R.fail("window of " + Twine(A->size()) +
                  " instructions is over the limit of " + Twine(L::MaxWindow));
  for (size_t I = 0; I < A->size(); ++I) {
    const json::Object *O = (*A)[I].getAsObject();
    std::string Where = R.where() + ": instructions[" + std::to_string(I) + "]";
    if (!O)
      return createStringError(Where + ": must be an object");
    ObjectReader IR(*O, Where);
    AnchoredInstr AI;
    std::string Hex;
    if (Error E = IR.string("text", AI.Text, true, L::MaxLineLength))
      return E;
    if (Error E = IR.string("bytes", Hex, true, L::MaxLineLength))
      return E;
    auto Bytes = hexToBytes(Hex);
    if (!Bytes || Bytes->empty() || Bytes->size() % 4)
      return IR.fail("'bytes' must be hex digits of whole 32-bit words");
    AI.Bytes = std::move(*Bytes);
    if (Error E = IR.unknownKeys())
      return E;
    Out.push_back(std::move(AI));
  }
  return Error::success();
}

/// block, index and instructions of \p R, if any of them is there.
static Expected<std::optional<Anchor>> parseAnchor(ObjectReader &R) {
  if (!R.has("block") && !R.has("index") && !R.has("instructions")) {
    // Consume nothing: the caller decides whether an anchor was needed.
    return std::nullopt;
  }
  std::optional<unsigned> B, I;
  if (Error E = R.uint("block", B, true))
    return std::move(E);
  if (Error E = R.uint("index", I, true))
    return std::move(E);
  Anchor A;
  A.Block = *B;
  A.Index = *I;
  if (Error E = parseInstrs(R, A.Instrs))
    return std::move(E);
  return A;
}

static Error parseAsm(ObjectReader &R, std::vector<std::string> &Out) {
  const json::Value *V = R.get("asm");
  if (!V)
    return R.fail("'asm' is missing");
  const json::Array *A = V->getAsArray();
  if (!A)
    return R.fail("'asm' must be a list of strings");
  if (A->empty())
    return R.fail("'asm' is empty (use a delete edit)");
  if (A->size() > L::MaxAsmLines)
    return R.fail(Twine(A->size()) + " instructions in 'asm' is over the " +
                  "limit of " + Twine(L::MaxAsmLines));
  for (size_t I = 0; I < A->size(); ++I) {
    auto S = (*A)[I].getAsString();
    if (!S)
      return R.fail("asm[" + Twine(I) + "] must be a string");
    if (S->size() > L::MaxLineLength)
      return R.fail("asm[" + Twine(I) + "] is longer than " +
                    Twine(L::MaxLineLength) + " characters");
    Out.push_back(S->str());
  }
  return Error::success();
}

static Error parseEdit(const json::Value &V, const std::string &Where,
                       Edit &Out) {
  const json::Object *O = V.getAsObject();
  if (!O)
    return createStringError(Where + ": must be an object");
  ObjectReader R(*O, Where);
  std::string KindName;
  if (Error E = R.string("kind", KindName, true))
    return E;
  std::optional<EditKind> K = parseEditKind(KindName);
  if (!K)
    return R.fail("unknown kind '" + KindName +
                  "' (replace, insert, delete, move, set-waitcnt, set-nop, "
                  "rename, pass)");
  Out.Kind = *K;
  ObjectReader RK(*O, Where + " (" + KindName + ")");
  RK.get("kind");
  if (Error E = RK.string("function", Out.Function, true))
    return E;
  if (Out.Function.empty())
    return RK.fail("'function' is empty");
  if (Error E = RK.string("note", Out.Note, false))
    return E;
  auto At = parseAnchor(RK);
  if (!At)
    return At.takeError();
  Out.At = std::move(*At);
  if (!Out.At && Out.Kind != EditKind::Pass)
    return RK.fail("'block', 'index' and 'instructions' are missing");

  auto WindowSize = [&](size_t Min, size_t Max) -> Error {
    size_t N = Out.At->Instrs.size();
    if (N < Min || N > Max)
      return RK.fail(Min == Max ? "the window must hold exactly " + Twine(Min) +
                                      " instruction(s), not " + Twine(N)
                                : "the window must hold " + Twine(Min) +
                                      " to " + Twine(Max) +
                                      " instructions, not " + Twine(N));
    return Error::success();
  };
  switch (Out.Kind) {
  case EditKind::Replace:
    if (Error E = WindowSize(1, L::MaxWindow))
      return E;
    if (Error E = parseAsm(RK, Out.Asm))
      return E;
    break;
  case EditKind::Insert:
    if (Error E = WindowSize(0, 1))
      return E;
    if (Error E = parseAsm(RK, Out.Asm))
      return E;
    break;
  case EditKind::Delete:
    if (Error E = WindowSize(1, L::MaxWindow))
      return E;
    break;
  case EditKind::Move: {
    if (Error E = WindowSize(1, L::MaxWindow))
      return E;
    const json::Value *TV = RK.get("to");
    if (!TV)
      return RK.fail("'to' is missing");
    const json::Object *TO = TV->getAsObject();
    if (!TO)
      return RK.fail("'to' must be an object");
    ObjectReader TR(*TO, RK.where() + ": to");
    auto To = parseAnchor(TR);
    if (!To)
      return To.takeError();
    if (!*To)
      return TR.fail("'block', 'index' and 'instructions' are missing");
    if ((*To)->Instrs.size() > 1)
      return TR.fail("'instructions' must hold the one instruction the "
                     "window goes before, or none for the block's end");
    if (Error E = TR.unknownKeys())
      return E;
    Out.To = std::move(*To);
    break;
  }
  case EditKind::SetWaitcnt:
    if (Error E = WindowSize(1, 1))
      return E;
    // Range checks against the target's counter widths are the applying
    // pass's; here only what no target allows.
    if (Error E = RK.uint("vmcnt", Out.Vmcnt, false, 63))
      return E;
    if (Error E = RK.uint("expcnt", Out.Expcnt, false, 7))
      return E;
    if (Error E = RK.uint("lgkmcnt", Out.Lgkmcnt, false, 15))
      return E;
    if (!Out.Vmcnt && !Out.Expcnt && !Out.Lgkmcnt)
      return RK.fail("none of 'vmcnt', 'expcnt', 'lgkmcnt' is given");
    break;
  case EditKind::SetNop: {
    if (Error E = WindowSize(1, 1))
      return E;
    std::optional<unsigned> Imm;
    if (Error E = RK.uint("imm", Imm, true, 15))
      return E;
    Out.NopImm = *Imm;
    break;
  }
  case EditKind::Rename:
    if (Error E = WindowSize(1, L::MaxWindow))
      return E;
    if (Error E = RK.string("from", Out.From, true, 32))
      return E;
    if (Error E = RK.string("to", Out.ToReg, true, 32))
      return E;
    break;
  case EditKind::Pass: {
    if (Out.At && Out.At->Instrs.empty())
      return RK.fail("a pass over a window needs 'instructions'");
    if (Error E = RK.string("pass", Out.PassName, true, 64))
      return E;
    if (const json::Value *P = RK.get("params")) {
      const json::Object *PO = P->getAsObject();
      if (!PO)
        return RK.fail("'params' must be an object");
      Out.Params = *PO;
    }
    std::string FP;
    if (Error E = RK.string("fingerprint", FP, false, 16))
      return E;
    if (!FP.empty()) {
      uint64_t V;
      if (FP.size() != 16 || StringRef(FP).getAsInteger(16, V))
        return RK.fail("'fingerprint' must be 16 hex digits");
      Out.Fingerprint = V;
    }
    if (Out.At && Out.Fingerprint)
      return RK.fail("'fingerprint' anchors a whole-function pass; a window "
                     "is anchored by its instructions");
    break;
  }
  }
  return RK.unknownKeys();
}

Expected<EditScript> asmevo::parseEditScript(StringRef Text,
                                             StringRef FileName) {
  auto Fail = [&](const Twine &Msg) {
    return createStringError(FileName + ": " + Msg);
  };
  if (Text.size() > L::MaxScriptBytes)
    return Fail("the script is " + Twine(Text.size()) +
                " bytes, over the limit of " + Twine(L::MaxScriptBytes));
  if (Error E = checkJSONDepth(Text, 16, FileName))
    return std::move(E);
  Expected<json::Value> V = json::parse(Text);
  if (!V)
    return Fail("not JSON: " + toString(V.takeError()));
  const json::Object *O = V->getAsObject();
  if (!O)
    return Fail("the script must be a JSON object");
  ObjectReader R(*O, FileName.str());
  EditScript S;
  std::string Format;
  if (Error E = R.string("format", Format, true))
    return std::move(E);
  if (Format != FormatName)
    return Fail("'format' must be \"" + FormatName + "\"");
  std::optional<unsigned> Version;
  if (Error E = R.uint("version", Version, true))
    return std::move(E);
  if (*Version != L::Version)
    return Fail("version " + Twine(*Version) + " is not supported (this "
                "reader knows version " + Twine(L::Version) + ")");
  S.Version = *Version;
  if (Error E = R.string("target", S.Target, false, 64))
    return std::move(E);
  if (Error E = R.string("comment", S.Comment, false))
    return std::move(E);
  const json::Value *EV = R.get("edits");
  if (!EV)
    return Fail("'edits' is missing");
  const json::Array *EA = EV->getAsArray();
  if (!EA)
    return Fail("'edits' must be a list");
  if (EA->size() > L::MaxEdits)
    return Fail(Twine(EA->size()) + " edits is over the limit of " +
                Twine(L::MaxEdits));
  if (Error E = R.unknownKeys())
    return std::move(E);
  for (size_t I = 0; I < EA->size(); ++I) {
    Edit Ed;
    if (Error E = parseEdit((*EA)[I], FileName.str() + ": edit " +
                                          std::to_string(I),
                            Ed))
      return std::move(E);
    S.Edits.push_back(std::move(Ed));
  }
  return S;
}

static json::Value anchorInstrs(const Anchor &A) {
  json::Array Out;
  for (const AnchoredInstr &I : A.Instrs)
    Out.push_back(json::Object{{"text", I.Text}, {"bytes", bytesToHex(I.Bytes)}});
  return Out;
}

static void putAnchor(json::Object &O, const Anchor &A) {
  O["block"] = A.Block;
  O["index"] = A.Index;
  O["instructions"] = anchorInstrs(A);
}

static json::Value editToJSON(const Edit &E) {
  json::Object O{{"kind", editKindName(E.Kind)}, {"function", E.Function}};
  if (E.At)
    putAnchor(O, *E.At);
  switch (E.Kind) {
  case EditKind::Replace:
  case EditKind::Insert: {
    json::Array A;
    for (const std::string &L : E.Asm)
      A.push_back(L);
    O["asm"] = std::move(A);
    break;
  }
  case EditKind::Delete:
    break;
  case EditKind::Move:
    if (E.To) {
      json::Object T;
      putAnchor(T, *E.To);
      O["to"] = std::move(T);
    }
    break;
  case EditKind::SetWaitcnt:
    if (E.Vmcnt)
      O["vmcnt"] = *E.Vmcnt;
    if (E.Expcnt)
      O["expcnt"] = *E.Expcnt;
    if (E.Lgkmcnt)
      O["lgkmcnt"] = *E.Lgkmcnt;
    break;
  case EditKind::SetNop:
    O["imm"] = E.NopImm;
    break;
  case EditKind::Rename:
    O["from"] = E.From;
    O["to"] = E.ToReg;
    break;
  case EditKind::Pass:
    O["pass"] = E.PassName;
    O["params"] = json::Object(E.Params);
    if (E.Fingerprint)
      O["fingerprint"] = formatv("{0:x-16}", *E.Fingerprint).str();
    break;
  }
  if (!E.Note.empty())
    O["note"] = E.Note;
  return O;
}

json::Value asmevo::toJSON(const EditScript &S) {
  json::Object O{{"format", FormatName}, {"version", S.Version}};
  if (!S.Target.empty())
    O["target"] = S.Target;
  if (!S.Comment.empty())
    O["comment"] = S.Comment;
  json::Array Edits;
  for (const Edit &E : S.Edits)
    Edits.push_back(editToJSON(E));
  O["edits"] = std::move(Edits);
  return O;
}

std::string asmevo::serializeEditScript(const EditScript &S) {
  std::string Out;
  raw_string_ostream OS(Out);
  OS << formatv("{0:2}", toJSON(S)) << "\n";
  return Out;
}

//===- PCProfile.cpp - rocprofv3 PC-sampling files ------------------------===//
#include "asmevo/Search/PCProfile.h"
#include "asmevo/Search/EditScript.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include <vector>

using namespace llvm;
using namespace asmevo;

/// Samples are counted, not stored; still, a profile is user input.
static constexpr size_t MaxProfileBytes = size_t(1) << 30;
static constexpr unsigned MaxJSONDepth = 64;

StringRef asmevo::stripAsmComment(StringRef Text) {
  size_t P = std::min(Text.find("//"), Text.find(';'));
  return Text.take_front(P).trim();
}

/// Every object with a "pc" member holding code_object_id and
/// code_object_offset is one sample, wherever rocprofv3's layout puts it
/// (its JSON nests records under buffer_records by kind and has changed
/// between releases).
static Error walkJSON(const json::Value &V, unsigned Depth, PCProfile &P,
                      StringRef Kind, StringRef Name) {
  if (Depth > MaxJSONDepth)
    return createStringError(Name + ": JSON nested deeper than " +
                             Twine(MaxJSONDepth));
  if (const json::Array *A = V.getAsArray()) {
    for (const json::Value &E : *A)
      if (Error Err = walkJSON(E, Depth + 1, P, Kind, Name))
        return Err;
    return Error::success();
  }
  const json::Object *O = V.getAsObject();
  if (!O)
    return Error::success();
  if (const json::Object *PC = O->getObject("pc")) {
    std::optional<int64_t> Id = PC->getInteger("code_object_id");
    std::optional<int64_t> Off = PC->getInteger("code_object_offset");
    if (Id && Off && *Id >= 0 && *Off >= 0) {
      ++P.Samples;
      if (*Id == 0)
        ++P.NoCodeObject;
      else
        ++P.ByPC[{uint64_t(*Id), uint64_t(*Off)}];
      if (P.Method.empty() && !Kind.empty())
        P.Method = Kind.contains("stochastic") ? "stochastic" : "host_trap";
      return Error::success();
    }
  }
  for (const auto &KV : *O) {
    StringRef K = KV.first;
    StringRef SubKind = K.contains("pc_sample") ? K : Kind;
    if (Error Err = walkJSON(KV.second, Depth + 1, P, SubKind, Name))
      return Err;
  }
  return Error::success();
}

/// One CSV record (RFC 4180: quoted fields, doubled quotes) from \p Text
/// at \p Pos; advances \p Pos past the line.
static std::vector<std::string> csvRecord(StringRef Text, size_t &Pos) {
  std::vector<std::string> Fields(1);
  bool Quoted = false;
  while (Pos < Text.size()) {
    char C = Text[Pos++];
    if (Quoted) {
      if (C == '"' && Pos < Text.size() && Text[Pos] == '"') {
        Fields.back() += '"';
        ++Pos;
      } else if (C == '"') {
        Quoted = false;
      } else {
        Fields.back() += C;
      }
    } else if (C == '"') {
      Quoted = true;
    } else if (C == ',') {
      Fields.emplace_back();
    } else if (C == '\n') {
      break;
    } else if (C != '\r') {
      Fields.back() += C;
    }
  }
  return Fields;
}

static Expected<PCProfile> parseCSV(StringRef Text, StringRef Name) {
  PCProfile P;
  P.Form = PCProfile::Format::CSV;
  size_t Pos = 0;
  std::vector<std::string> Header = csvRecord(Text, Pos);
  auto Col = [&](StringRef N) -> int {
    for (size_t I = 0; I < Header.size(); ++I)
      if (StringRef(Header[I]).trim() == N)
        return I;
    return -1;
  };
  int Instr = Col("Instruction");
  if (Instr < 0)
    return createStringError(Name + ": no 'Instruction' column; expected "
                             "rocprofv3's PC-sampling CSV (host-trap: "
                             "Sample_Timestamp, Exec_Mask, Dispatch_Id, "
                             "Instruction, Instruction_Comment, "
                             "Correlation_Id)");
  int Issued = Col("Wave_Issued_Instruction");
  int Stall = Col("Stall_Reason");
  P.Method = Issued >= 0 ? "stochastic" : "host_trap";
  unsigned Line = 1;
  while (Pos < Text.size()) {
    ++Line;
    std::vector<std::string> F = csvRecord(Text, Pos);
    if (F.size() == 1 && StringRef(F[0]).trim().empty())
      continue;
    if (F.size() != Header.size())
      return createStringError(Name + ":" + Twine(Line) + ": " +
                               Twine(F.size()) + " fields, the header has " +
                               Twine(Header.size()));
    ++P.Samples;
    ++P.ByText[normalizeInstrText(stripAsmComment(F[Instr]))];
    if (Stall >= 0 && Issued >= 0 && StringRef(F[Issued]).trim() == "0")
      ++P.StallReasons[StringRef(F[Stall]).trim().str()];
  }
  return P;
}

Expected<PCProfile> asmevo::parsePCProfile(StringRef Text, StringRef Name) {
  if (Text.size() > MaxProfileBytes)
    return createStringError(Name + ": larger than 1 GiB");
  StringRef T = Text.ltrim();
  if (T.starts_with("{") || T.starts_with("[")) {
    if (Error E = checkJSONDepth(Text, MaxJSONDepth, Name))
      return std::move(E);
    Expected<json::Value> V = json::parse(Text);
    if (!V)
      return createStringError(Name + ": not JSON: " +
                               toString(V.takeError()));
    PCProfile P;
    if (Error E = walkJSON(*V, 0, P, "", Name))
      return std::move(E);
    if (!P.Samples)
      return createStringError(Name + ": no PC sample (an object with "
                               "\"pc\": {\"code_object_id\", "
                               "\"code_object_offset\"}) in it");
    return P;
  }
  return parseCSV(Text, Name);
}

Expected<PCProfile> asmevo::readPCProfile(StringRef Path) {
  auto Buf = MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/true);
  if (!Buf)
    return createStringError(Path + ": " + Buf.getError().message());
  return parsePCProfile((*Buf)->getBuffer(), Path);
}

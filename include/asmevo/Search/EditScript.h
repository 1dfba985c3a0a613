//===- EditScript.h - Edit scripts: data model, JSON in and out -*- C++ -*-===//
//
// An edit script is what an agent proposes and what the optimizer records of
// its own steps (docs/edit-script.md). This header is only the data and its
// JSON form: it depends on nothing but LLVM Support, so that the pass that
// applies scripts (lib/Transforms), the search loop and the fuzzer can all
// use it. Parsing checks the shape and the documented limits; whether an
// anchor matches a kernel is the applying pass's question.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_SEARCH_EDITSCRIPT_H
#define ASMEVO_SEARCH_EDITSCRIPT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace asmevo {

/// The documented limits (docs/edit-script.md). They keep a hostile script
/// from costing more than a pass does.
struct EditScriptLimits {
  static constexpr unsigned Version = 1;
  static constexpr size_t MaxScriptBytes = 1 << 20;
  static constexpr size_t MaxEdits = 256;
  static constexpr size_t MaxWindow = 64;
  static constexpr size_t MaxAsmLines = 64;
  static constexpr size_t MaxLineLength = 256;
  static constexpr size_t MaxStringLength = 4096;
};

/// One instruction of an anchor: what the printer spells and the encoding.
struct AnchoredInstr {
  std::string Text;
  std::vector<uint8_t> Bytes;
};

/// Where an edit applies: block and index within the function, and each
/// instruction of the window, so that a stale edit can be refused.
struct Anchor {
  unsigned Block = 0;
  unsigned Index = 0;
  std::vector<AnchoredInstr> Instrs;
};

enum class EditKind {
  Replace,
  Insert,
  Delete,
  Move,
  SetWaitcnt,
  SetNop,
  Rename,
  Pass
};

llvm::StringRef editKindName(EditKind K);
std::optional<EditKind> parseEditKind(llvm::StringRef Name);

struct Edit {
  EditKind Kind = EditKind::Replace;
  std::string Function;
  /// Absent only for a pass over the whole function.
  std::optional<Anchor> At;
  /// replace, insert: one instruction per line.
  std::vector<std::string> Asm;
  /// move: the instruction the window goes before.
  std::optional<Anchor> To;
  /// set-waitcnt: the counters to set (an absent one keeps its value).
  std::optional<unsigned> Vmcnt, Expcnt, Lgkmcnt;
  /// set-nop.
  unsigned NopImm = 0;
  /// rename.
  std::string From, ToReg;
  /// pass.
  std::string PassName;
  llvm::json::Object Params;
  /// pass over a whole function: instructionFingerprint() before the pass.
  std::optional<uint64_t> Fingerprint;
  /// The one-line hypothesis behind the edit; never interpreted.
  std::string Note;
};

struct EditScript {
  unsigned Version = EditScriptLimits::Version;
  std::string Target;
  std::string Comment;
  std::vector<Edit> Edits;
};

/// Parses and checks the shape and the limits. Errors name \p FileName, the
/// edit's index and kind, and the key at fault.
llvm::Expected<EditScript> parseEditScript(llvm::StringRef Text,
                                           llvm::StringRef FileName);

llvm::json::Value toJSON(const EditScript &S);
/// Pretty-printed JSON, one edit per line group; parseEditScript reads it
/// back to an equal script.
std::string serializeEditScript(const EditScript &S);

/// "What is edit N" for error messages: "edit 3 (replace)".
std::string describeEdit(const EditScript &S, size_t I);

/// Text comparison as anchors do it: case folded, blanks collapsed, none
/// after commas. The printer's tabs and an agent's spaces then agree.
std::string normalizeInstrText(llvm::StringRef Text);

/// Refuses JSON nested deeper than \p Max before llvm::json::parse (which
/// recurses once per level) sees it: a hostile file of a million '[' would
/// otherwise exhaust the stack.
llvm::Error checkJSONDepth(llvm::StringRef Text, unsigned Max,
                           llvm::StringRef FileName);

/// Hex in memory order, and back (blanks allowed; nullopt on anything else).
std::string bytesToHex(llvm::ArrayRef<uint8_t> Bytes);
std::optional<std::vector<uint8_t>> hexToBytes(llvm::StringRef Hex);

/// FNV-1a over each instruction's normalized text and bytes, in order: the
/// anchor of a whole-function pass edit.
class InstrFingerprint {
public:
  void add(llvm::StringRef Text, llvm::ArrayRef<uint8_t> Bytes);
  uint64_t value() const { return H; }

private:
  void mix(uint8_t B) { H = (H ^ B) * 0x100000001b3ULL; }
  uint64_t H = 0xcbf29ce484222325ULL;
};

} // namespace asmevo

#endif

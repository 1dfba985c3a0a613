//===- SpecProposal.cpp - Launch specs from kernel metadata ---------------===//
//
// Metadata fields read (AMDGPUUsage.rst, "Code Object V3 Metadata" and
// later, kernel argument map): .name, .value_kind, .offset, .size,
// .address_space, .type_name, .value_type (v3, deprecated but still
// emitted by hand-written kernels), .access / .actual_access, and per
// kernel .reqd_workgroup_size, .max_flat_workgroup_size,
// .kernarg_segment_size.
//
//===----------------------------------------------------------------------===//
#include "asmevo/Verify/SpecProposal.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/CodeObject/MetadataNodes.h"
#include "asmevo/Emulator/LaunchSpec.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>

using namespace llvm;
using namespace asmevo;
using namespace asmevo::emu;
using namespace asmevo::verify;

namespace {

/// One .args entry, with the fields a proposal needs.
struct MDArg {
  std::string Name, ValueKind, AddressSpace, TypeName, ValueType, Access;
  std::optional<uint64_t> Offset, Size;
};

struct MDKernel {
  std::vector<MDArg> Args;
  bool HasArgs = false;
  std::optional<uint64_t> KernargSize, MaxFlat;
  std::vector<uint64_t> ReqdWorkgroup;
};


std::optional<MDKernel> readMetadata(const CodeObject &CO,
                                     const KernelInfo &K) {
  msgpack::MapDocNode *KMP = md::kernelMap(CO, K.MetadataIndex);
  if (!KMP)
    return std::nullopt;
  msgpack::MapDocNode &KM = *KMP;
  MDKernel M;
  M.KernargSize = md::asUInt(md::find(KM, ".kernarg_segment_size"));
  M.MaxFlat = md::asUInt(md::find(KM, ".max_flat_workgroup_size"));
  if (auto *R = md::find(KM, ".reqd_workgroup_size"))
    if (R->isArray())
      for (auto &E : R->getArray())
        if (auto V = md::asUInt(&E))
          M.ReqdWorkgroup.push_back(*V);
  auto *Args = md::find(KM, ".args");
  if (!Args || !Args->isArray())
    return M;
  M.HasArgs = true;
  for (auto &AN : Args->getArray()) {
    MDArg A;
    if (AN.isMap()) {
      auto &AM = AN.getMap();
      A.Name = md::asString(md::find(AM, ".name"));
      A.ValueKind = md::asString(md::find(AM, ".value_kind"));
      A.AddressSpace = md::asString(md::find(AM, ".address_space"));
      A.TypeName = md::asString(md::find(AM, ".type_name"));
      A.ValueType = md::asString(md::find(AM, ".value_type"));
      // .actual_access is what the compiler proved; .access is what the
      // source declared. The proof wins.
      A.Access = md::asString(md::find(AM, ".actual_access"));
      if (A.Access.empty())
        A.Access = md::asString(md::find(AM, ".access"));
      A.Offset = md::asUInt(md::find(AM, ".offset"));
      A.Size = md::asUInt(md::find(AM, ".size"));
    }
    M.Args.push_back(std::move(A));
  }
  return M;
}

/// A C/HIP type name to an element type: "const float *" -> f32.
std::optional<ElemType> typeFromName(StringRef T) {
  std::string S;
  for (StringRef W : split(T, ' ')) {
    W = W.trim();
    if (W.empty() || W == "const" || W == "volatile" || W == "__restrict__" ||
        W == "__restrict" || W == "restrict" || W == "signed")
      continue;
    if (!S.empty())
      S += ' ';
    S += W.str();
  }
  StringRef N = StringRef(S).rtrim("* ").trim();
  // HIP vector types: the element type.
  if (N.consume_front("HIP_vector_type<"))
    N = N.split(',').first.trim();
  static const std::pair<const char *, ElemType> Map[] = {
      {"float", ElemType::F32},       {"double", ElemType::F64},
      {"half", ElemType::F16},        {"_Float16", ElemType::F16},
      {"__half", ElemType::F16},      {"__bf16", ElemType::BF16},
      {"__hip_bfloat16", ElemType::BF16}, {"hip_bfloat16", ElemType::BF16},
      {"bfloat16", ElemType::BF16},   {"int", ElemType::I32},
      {"int32_t", ElemType::I32},     {"unsigned int", ElemType::U32},
      {"unsigned", ElemType::U32},    {"uint32_t", ElemType::U32},
      {"uint", ElemType::U32},        {"long", ElemType::I64},
      {"long long", ElemType::I64},   {"int64_t", ElemType::I64},
      {"ptrdiff_t", ElemType::I64},   {"unsigned long", ElemType::U64},
      {"unsigned long long", ElemType::U64}, {"size_t", ElemType::U64},
      {"uint64_t", ElemType::U64},    {"ulong", ElemType::U64},
      {"short", ElemType::I16},       {"int16_t", ElemType::I16},
      {"unsigned short", ElemType::U16}, {"uint16_t", ElemType::U16},
      {"ushort", ElemType::U16},      {"char", ElemType::I8},
      {"int8_t", ElemType::I8},       {"unsigned char", ElemType::U8},
      {"uint8_t", ElemType::U8},      {"uchar", ElemType::U8},
      {"bool", ElemType::U8}};
  for (auto &[Name, Ty] : Map)
    if (N == Name)
      return Ty;
  // float4, int2, ...: OpenCL/HIP vector spellings.
  StringRef Base = N.rtrim("0123456789");
  if (Base != N)
    return typeFromName(Base);
  return std::nullopt;
}

/// .value_type (code object v2/v3 metadata) to an element type.
std::optional<ElemType> typeFromValueType(StringRef V) {
  if (V == "struct")
    return std::nullopt;
  return parseElemType(V);
}

bool isIdentifier(StringRef N) {
  if (N.empty() || !(isAlpha(N[0]) || N[0] == '_'))
    return false;
  return all_of(N, [](char C) { return isAlnum(C) || C == '_'; });
}

std::string fmtDouble(double D) {
  std::string S;
  raw_string_ostream(S) << format("%g", D);
  if (S.find_first_of(".e") == std::string::npos)
    S += ".0";
  return S;
}

/// Collects guesses: each is printed at the top, above its use, and on
/// stderr by the tool.
struct Guesses {
  std::vector<std::string> All;
  /// A comment for an entry of a map (indented) ...
  std::string note(const std::string &G) { return "  " + top(G); }
  /// ... or for a top-level key.
  std::string top(const std::string &G) {
    All.push_back(G);
    return "# GUESS: " + G + "\n";
  }
};

} // namespace

Expected<SpecProposal> verify::proposeLaunchSpec(const CodeObject &CO,
                                                 StringRef KernelName) {
  std::string File = CO.name().str();
  const KernelInfo *K = nullptr;
  if (KernelName.empty()) {
    if (CO.kernels().size() != 1) {
      std::vector<std::string> Names;
      for (const KernelInfo &KI : CO.kernels())
        Names.push_back(KI.Name);
      return createStringError("%s: %zu kernels, name one with --kernel: %s",
                               File.c_str(), CO.kernels().size(),
                               join(Names, ", ").c_str());
    }
    K = &CO.kernels()[0];
  } else {
    StringRef N = KernelName;
    N.consume_back(".kd");
    K = CO.findKernel(N);
    if (!K)
      return createStringError("%s: no kernel named '%s'", File.c_str(),
                               N.str().c_str());
  }
  auto Refuse = [&](const Twine &Why) {
    return createStringError(
        "%s: kernel '%s': %s; the metadata cannot describe the launch, so "
        "no spec is proposed: write one with 'kernarg:' fields (byte "
        "offsets) by hand (docs/launch-spec.md, \"Arguments by byte "
        "offset\")",
        File.c_str(), K->Name.c_str(), Why.str().c_str());
  };
  auto MD = readMetadata(CO, *K);
  if (!MD)
    return Refuse("the code object has no metadata for it");
  if (!MD->HasArgs)
    return Refuse("its metadata has no .args");
  uint32_t KDKernarg = K->KD.kernargSize();
  uint64_t MDKernarg = MD->KernargSize.value_or(0);
  if (KDKernarg == 0 && (MDKernarg != 0 || !MD->Args.empty()))
    return Refuse("its kernel descriptor says kernarg_size 0 while the "
                  "metadata lists " +
                  Twine(MD->Args.size()) + " arguments in " +
                  Twine(MDKernarg) +
                  " bytes (a hand-written kernel whose .args need not be "
                  "its real argument struct)");

  // Validate and classify every argument before writing anything.
  struct Planned {
    const MDArg *A;
    enum { Buffer, Scalar, Null } Kind;
    std::string Name;
    ElemType Type = ElemType::F32;
    std::string TypeGuess; // why the type is a guess ("" = from metadata)
    SpecBuffer::Role Role = SpecBuffer::InOut;
    std::string RoleGuess;
  };
  std::vector<Planned> Explicit;
  StringSet<> Used;
  unsigned Index = 0;
  for (const MDArg &A : MD->Args) {
    unsigned I = Index++;
    std::string What = "argument " + std::to_string(I);
    if (!A.Name.empty())
      What += " ('" + A.Name + "')";
    if (!A.Offset || !A.Size || *A.Size == 0)
      return Refuse(What + " has no .offset/.size");
    if (StringRef(A.ValueKind).starts_with("hidden_"))
      continue; // LaunchSession fills these (hidden: auto)
    Planned P{&A, Planned::Scalar, "", ElemType::F32, "", SpecBuffer::InOut,
              ""};
    std::string Base = isIdentifier(A.Name) ? A.Name : "arg" + std::to_string(I);
    P.Name = Base;
    for (unsigned N = 2; Used.count(P.Name); ++N)
      P.Name = Base + "_" + std::to_string(N);
    Used.insert(P.Name);
    if (A.ValueKind == "global_buffer") {
      if (*A.Size != 8)
        return Refuse(What + " is a " + Twine(*A.Size) + "-byte pointer");
      if (StringRef(A.TypeName).count('*') > 1)
        return Refuse(What + " is a pointer to pointers ('" + A.TypeName +
                      "'), whose table the metadata cannot describe");
      P.Kind = Planned::Buffer;
      if (auto T = typeFromName(A.TypeName)) {
        P.Type = *T;
      } else if (auto T2 = typeFromValueType(A.ValueType)) {
        P.Type = *T2;
      } else {
        P.Type = ElemType::F32;
        P.TypeGuess = A.TypeName.empty()
                          ? "f32: no .type_name (f32 is the commonest)"
                          : "f32: .type_name '" + A.TypeName +
                                "' is not a type launch specs know";
      }
      if (A.AddressSpace == "constant" || A.Access == "read_only") {
        P.Role = SpecBuffer::In;
      } else if (A.Access == "write_only") {
        P.Role = SpecBuffer::Out;
      } else if (A.Access == "read_write") {
        P.Role = SpecBuffer::InOut;
      } else {
        P.Role = SpecBuffer::InOut;
        P.RoleGuess = "no .access/.actual_access: inout (initialised and "
                      "compared, the safe choice)";
      }
    } else if (A.ValueKind == "by_value") {
      unsigned Sz = unsigned(*A.Size);
      std::optional<ElemType> T = typeFromName(A.TypeName);
      if (!T)
        T = typeFromValueType(A.ValueType);
      if (T && elemSize(*T) != Sz) {
        P.TypeGuess = "metadata type '" +
                      (A.TypeName.empty() ? A.ValueType : A.TypeName) +
                      "' does not fit its " + std::to_string(Sz) +
                      "-byte .size";
        T.reset();
      }
      if (!T) {
        switch (Sz) {
        case 1: T = ElemType::U8; break;
        case 2: T = ElemType::I16; break;
        case 4: T = ElemType::I32; break;
        case 8: T = ElemType::I64; break;
        default:
          return Refuse(What + " is a " + Twine(Sz) +
                        "-byte by-value struct");
        }
        std::string Why = "type " + elemTypeName(*T).str() + " from its " +
                          std::to_string(Sz) + "-byte .size";
        P.TypeGuess = P.TypeGuess.empty()
                          ? Why + ": no .type_name (it may be a float)"
                          : Why + ": " + P.TypeGuess;
      }
      P.Type = *T;
    } else if (A.ValueKind == "dynamic_shared_pointer") {
      P.Kind = Planned::Null;
    } else {
      return Refuse(What + " has .value_kind '" + A.ValueKind +
                    "', which launch specs do not support");
    }
    Explicit.push_back(std::move(P));
  }
  if (Explicit.empty() && MD->Args.empty())
    return Refuse("its metadata lists no arguments");

  Guesses G;
  std::string Body;
  raw_string_ostream OS(Body);

  // Problem size: integer scalars are the only sizes the metadata names.
  std::vector<const Planned *> Ints;
  for (const Planned &P : Explicit)
    if (P.Kind == Planned::Scalar && !isFloatType(P.Type))
      Ints.push_back(&P);
  if (any_of(Explicit, [](const Planned &P) {
        return P.Kind == Planned::Scalar;
      }))
    OS << "scalars:\n";
  for (const Planned &P : Explicit) {
    if (P.Kind != Planned::Scalar)
      continue;
    if (!P.TypeGuess.empty())
      OS << G.note("scalar '" + P.Name + "': " + P.TypeGuess);
    std::string Value, Range;
    if (isFloatType(P.Type)) {
      Value = fmtDouble(1.5);
      Range = "[-4.0, 4.0]";
      OS << G.note("scalar '" + P.Name +
                   "': value 1.5, range [-4, 4] (neither 0 nor 1, so a "
                   "dropped or wrong use of it shows)");
    } else {
      // One size: 1000, not a multiple of any block size, drawn up to
      // 4000. Several: their product sizes every buffer, so each gets
      // 2^(18/k) (at least 2) and is never drawn larger, keeping buffers
      // near 2^18 elements.
      size_t NI = Ints.size();
      int64_t V = NI == 1 ? 1000 : std::max<int64_t>(2, 1ll << (18 / NI));
      int64_t Hi = NI == 1 ? 4 * V : V;
      if (P.Type == ElemType::I8 || P.Type == ElemType::U8) {
        V = std::min<int64_t>(V, 100);
        Hi = std::min<int64_t>(Hi, 127);
      }
      Value = std::to_string(V);
      Range = "[1, " + std::to_string(Hi) + "]";
      OS << G.note("scalar '" + P.Name + "': value " + Value + ", range " +
                   Range + ": the metadata has no values; taken as a "
                   "problem size" +
                   (NI == 1 ? std::string(" (1000: not a multiple of the "
                                          "block size)")
                            : " (" + std::to_string(NI) +
                                  " integer scalars: the buffers hold their "
                                  "product, kept near 2^18)"));
    }
    OS << "  " << P.Name << ": {type: " << elemTypeName(P.Type)
       << ", value: " << Value << ", range: " << Range << "}\n";
  }

  std::string Count;
  if (Ints.empty()) {
    Count = "4096";
  } else {
    for (const Planned *P : Ints)
      Count += (Count.empty() ? "" : " * ") + P->Name;
  }
  if (any_of(Explicit,
             [](const Planned &P) { return P.Kind == Planned::Buffer; }))
    OS << "buffers:\n";
  for (const Planned &P : Explicit) {
    if (P.Kind != Planned::Buffer)
      continue;
    if (!P.TypeGuess.empty())
      OS << G.note("buffer '" + P.Name + "': element type " + P.TypeGuess);
    if (!P.RoleGuess.empty())
      OS << G.note("buffer '" + P.Name + "': role " + P.RoleGuess);
    OS << G.note("buffer '" + P.Name + "': count " + Count +
                 (Ints.empty()
                      ? ": no integer scalar to size it by"
                      : Ints.size() == 1
                            ? ": one element per unit of the only integer "
                              "scalar"
                            : ": the product of the integer scalars, so any "
                              "index built from them stays inside"));
    const char *Role = P.Role == SpecBuffer::In    ? "in"
                       : P.Role == SpecBuffer::Out ? "out"
                                                   : "inout";
    bool Expr = Count.find(' ') != std::string::npos;
    OS << "  " << P.Name << ": {type: " << elemTypeName(P.Type)
       << ", count: " << (Expr ? "\"" + Count + "\"" : Count)
       << ", role: " << Role << "}\n";
  }

  OS << "kernel: " << K->Name << "\n";
  unsigned Block[3] = {1, 1, 1};
  if (!MD->ReqdWorkgroup.empty()) {
    for (unsigned D = 0; D < 3 && D < MD->ReqdWorkgroup.size(); ++D)
      Block[D] = unsigned(std::clamp<uint64_t>(MD->ReqdWorkgroup[D], 1, 1024));
  } else {
    uint64_t MaxFlat = MD->MaxFlat.value_or(1024);
    Block[0] = unsigned(std::clamp<uint64_t>(MaxFlat, 1, 256));
    OS << G.top("block [" + std::to_string(Block[0]) +
                 "]: no .reqd_workgroup_size; " +
                 (MD->MaxFlat ? "the smaller of .max_flat_workgroup_size (" +
                                    std::to_string(*MD->MaxFlat) + ") and 256"
                              : std::string("256")) +
                 ", one dimension");
  }
  if (Ints.empty()) {
    OS << G.top("grid [1]: no integer scalar to cover");
    OS << "grid: [1]\n";
  } else {
    OS << G.top("grid: enough workgroups of the block's x size to cover '" +
                 Ints[0]->Name + "' once, in one dimension");
    OS << "grid: [\"ceil_div(" << Ints[0]->Name << ", " << Block[0]
       << ")\"]\n";
  }
  OS << "block: [" << Block[0] << ", " << Block[1] << ", " << Block[2]
     << "]\n";
  for (const Planned &P : Explicit)
    if (P.Kind == Planned::Null)
      OS << G.top("argument '" + P.Name +
                   "' (dynamic_shared_pointer): null, dynamic_lds 0");
  OS << "args: [";
  for (size_t I = 0; I < Explicit.size(); ++I)
    OS << (I ? ", " : "")
       << (Explicit[I].Kind == Planned::Null ? std::string("null")
                                             : Explicit[I].Name);
  OS << "]\n";
  OS.flush();

  SpecProposal Out;
  Out.Kernel = K->Name;
  Out.Guesses = G.All;
  std::string Head;
  raw_string_ostream HS(Head);
  HS << "# Launch spec proposed by asmevo-verify spec-from-metadata for kernel\n"
     << "# '" << K->Name << "' of " << File << " ("
     << CO.target().targetID() << ").\n";
  if (G.All.empty()) {
    HS << "# Every value comes from the kernel metadata.\n";
  } else {
    HS << "# " << G.All.size()
       << " values are GUESSES (not in the metadata); check each before "
          "trusting\n# a verdict:\n";
    for (const std::string &S : G.All)
      HS << "#   - " << S << "\n";
  }
  HS << "asmevo-launch: 1\n";
  HS.flush();
  Out.YAML = Head + Body;
  return Out;
}

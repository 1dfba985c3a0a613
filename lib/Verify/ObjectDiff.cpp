//===- ObjectDiff.cpp - Descriptor and metadata differences ---------------===//
#include "asmevo/Verify/ObjectDiff.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/CodeObject/DescriptorFields.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Support/FormatVariadic.h"
#include <map>

using namespace llvm;

namespace asmevo {
namespace verify {

StringRef judgementName(ObjectDifference::Judgement J) {
  switch (J) {
  case ObjectDifference::ByRuns:
    return "runs";
  case ObjectDifference::Unknown:
    return "unknown";
  case ObjectDifference::Accepted:
    return "accepted";
  }
  llvm_unreachable("bad judgement");
}

std::string ObjectDifference::describe() const {
  std::string S = In + " difference: ";
  if (!Kernel.empty())
    S += "kernel '" + Kernel + "': ";
  S += (Location.empty() ? Field : Location) + ": K0 " + K0Value + ", K1 " +
       K1Value + ": ";
  switch (J) {
  case ByRuns:
    S += "judged by the runs";
    break;
  case Unknown:
    S += "unknown (" + Why + "; accept it with --accept=" + acceptName() + ")";
    break;
  case Accepted:
    S += "accepted by --accept=" + acceptName() + " (" + Why + ")";
    break;
  }
  return S;
}

bool emulatorModelsDescriptorField(StringRef Name) {
  // Each one is read in Engine.cpp's launch or wave set-up; a change to
  // any of them changes what a run does, so the runs judge it. Fields the
  // emulator reads only to report an approximation (the denorm modes) or
  // not at all are absent.
  static const char *const Modelled[] = {
      "group_segment_fixed_size",     // LDS allocation
      "private_segment_fixed_size",   // scratch per lane
      "kernel_code_entry_byte_offset", // the entry
      "accum_offset",                 // AGPR base
      "granulated_workitem_vgpr_count", // register allocation checks
      "enable_dx10_clamp",            // clamp of NaN
      "enable_private_segment",       // system SGPRs
      "user_sgpr_count",
      "enable_sgpr_workgroup_id_x",
      "enable_sgpr_workgroup_id_y",
      "enable_sgpr_workgroup_id_z",
      "enable_sgpr_workgroup_info",
      "enable_vgpr_workitem_id",      // packed work-item ids in v0
      "enable_sgpr_private_segment_buffer", // user SGPRs
      "enable_sgpr_dispatch_ptr",
      "enable_sgpr_queue_ptr",
      "enable_sgpr_kernarg_segment_ptr",
      "enable_sgpr_dispatch_id",
      "enable_sgpr_flat_scratch_init",
      "enable_sgpr_private_segment_size",
      "uses_dynamic_stack",           // scratch size
      "kernarg_preload_spec_length",  // preloaded SGPRs, +256 entry
      "kernarg_preload_spec_offset",
  };
  for (const char *M : Modelled)
    if (Name == M)
      return true;
  return false;
}

namespace {

std::string fieldValue(const DescriptorField &F, uint64_t V) {
  if (F.Width <= 8)
    return std::to_string(V);
  return formatv("{0} ({1:x})", V, V).str();
}

/// A scalar node as text; composite nodes by their size. Written here
/// rather than DocNode::toString, which does not handle every kind.
std::string nodeText(const msgpack::DocNode &CN) {
  // getArray/getMap are not const in LLVM 22; sizes are only read here.
  msgpack::DocNode &N = const_cast<msgpack::DocNode &>(CN);
  std::string S;
  switch (N.getKind()) {
  case msgpack::Type::Int:
    return std::to_string(N.getInt());
  case msgpack::Type::UInt:
    return std::to_string(N.getUInt());
  case msgpack::Type::Boolean:
    return N.getBool() ? "true" : "false";
  case msgpack::Type::Float:
    return formatv("{0}", N.getFloat()).str();
  case msgpack::Type::String:
    S = "\"" + N.getString().str() + "\"";
    break;
  case msgpack::Type::Binary:
    return formatv("<{0} bytes>", N.getBinary().getBufferSize()).str();
  case msgpack::Type::Array:
    return formatv("[{0} entries]", N.getArray().size()).str();
  case msgpack::Type::Map:
    return formatv("{{{0} keys}", N.getMap().size()).str();
  case msgpack::Type::Nil:
    return "nil";
  default:
    return "(absent)";
  }
  if (S.size() > 80)
    S = S.substr(0, 77) + "...";
  return S;
}

bool scalarEqual(const msgpack::DocNode &A, const msgpack::DocNode &B) {
  if (A.getKind() != B.getKind())
    return false;
  switch (A.getKind()) {
  case msgpack::Type::Int:
    return A.getInt() == B.getInt();
  case msgpack::Type::UInt:
    return A.getUInt() == B.getUInt();
  case msgpack::Type::Boolean:
    return A.getBool() == B.getBool();
  case msgpack::Type::Float:
    return A.getFloat() == B.getFloat() ||
           (A.getFloat() != A.getFloat() && B.getFloat() != B.getFloat());
  case msgpack::Type::String:
    return A.getString() == B.getString();
  case msgpack::Type::Binary:
    return A.getBinary().getBuffer() == B.getBinary().getBuffer();
  default:
    return true;
  }
}

std::string keyText(const msgpack::DocNode &K) {
  if (K.getKind() == msgpack::Type::String)
    return K.getString().str();
  return "<" + nodeText(K) + ">";
}

class Differ {
public:
  Differ(const std::set<std::string> &Launched,
         const std::set<std::string> &Accepted, bool OnHardware,
         std::vector<ObjectDifference> &Out)
      : Launched(Launched), Accepted(Accepted), OnHardware(OnHardware),
        Out(Out) {}

  void descriptors(const CodeObject &K0, const CodeObject &K1);
  void metadata(const CodeObject &K0, const CodeObject &K1);

private:
  void add(ObjectDifference D, bool Modelled, StringRef WhyNot);
  /// Recursive comparison; \p Field drops array indices, \p Loc keeps them.
  void node(StringRef Kernel, const std::string &Field,
            const std::string &Loc, msgpack::DocNode *A,
            msgpack::DocNode *B);
  void kernels(msgpack::DocNode *A, msgpack::DocNode *B);

  const std::set<std::string> &Launched, &Accepted;
  bool OnHardware;
  std::vector<ObjectDifference> &Out;
};

void Differ::add(ObjectDifference D, bool Modelled, StringRef WhyNot) {
  bool Runs = !D.Kernel.empty() && Launched.count(D.Kernel);
  if (Modelled && Runs) {
    D.J = ObjectDifference::ByRuns;
  } else {
    D.Why = (!Modelled || D.Kernel.empty()) ? WhyNot.str()
            : "the spec does not launch this kernel";
    D.J = Accepted.count(D.acceptName()) ? ObjectDifference::Accepted
                                         : ObjectDifference::Unknown;
  }
  Out.push_back(std::move(D));
}

void Differ::descriptors(const CodeObject &K0, const CodeObject &K1) {
  std::map<std::string, const KernelInfo *> Other;
  for (const KernelInfo &K : K1.kernels())
    Other[K.Name] = &K;
  for (const KernelInfo &A : K0.kernels()) {
    auto It = Other.find(A.Name);
    if (It == Other.end()) {
      add({A.Name, "descriptor", "kernel", "", "present", "absent", ObjectDifference::Unknown, ""}, false,
          "K1 has no descriptor for this kernel");
      continue;
    }
    const KernelInfo &B = *It->second;
    Other.erase(It);
    for (const DescriptorField &F : descriptorFields()) {
      uint64_t X = F.read(A.KD), Y = F.read(B.KD);
      if (X == Y)
        continue;
      StringRef WhyNot = "the emulator does not model this field";
      bool Modelled = OnHardware || emulatorModelsDescriptorField(F.Name);
      // The emulator gives every wave all SGPRs, so it cannot see a K1
      // that allocates fewer than its code uses; more than K0 allocated
      // (what an edit that uses more registers gets) cannot starve code
      // the runs executed.
      if (!Modelled && StringRef(F.Name) == "granulated_wavefront_sgpr_count") {
        Modelled = Y > X;
        WhyNot = "K1 allocates fewer SGPRs than K0, and the emulator does "
                 "not model the SGPR allocation";
      }
      add({A.Name, "descriptor", F.Name, "", fieldValue(F, X),
           fieldValue(F, Y), ObjectDifference::Unknown, ""},
          Modelled, WhyNot);
    }
  }
  for (auto &[Name, K] : Other)
    add({Name, "descriptor", "kernel", "", "absent", "present", ObjectDifference::Unknown, ""}, false,
        "K0 has no descriptor for this kernel");
}

void Differ::node(StringRef Kernel, const std::string &Field,
                  const std::string &Loc, msgpack::DocNode *A,
                  msgpack::DocNode *B) {
  auto Diff = [&] {
    // Kernel-argument offsets, sizes and kinds and the kernarg segment
    // size are what the emulator lays arguments out by; checkComparable
    // refuses a K1 that changes them, so they never get here changed.
    // The note's register counts restate what the code uses (the emitter
    // recomputes them with the descriptor's granules, by which hardware
    // allocates): the runs of that code judge them.
    std::string F = Field.empty() ? "kernel" : Field;
    static const char *const Counts[] = {".vgpr_count", ".agpr_count",
                                         ".sgpr_count", ".vgpr_spill_count",
                                         ".sgpr_spill_count"};
    bool Count = !Kernel.empty() && llvm::is_contained(Counts, Field);
    add({Kernel.str(), "metadata", F, Loc == Field ? "" : Loc,
         A ? nodeText(*A) : "(absent)", B ? nodeText(*B) : "(absent)",
         ObjectDifference::Unknown, ""},
        Count, "the emulator does not read this metadata field");
  };
  if (!A || !B || A->getKind() != B->getKind())
    return Diff();
  if (A->isMap()) {
    std::map<std::string, std::pair<msgpack::DocNode *,
                                    msgpack::DocNode *>>
        Keys;
    for (auto &KV : A->getMap())
      Keys[keyText(KV.first)].first = &KV.second;
    for (auto &KV : B->getMap())
      Keys[keyText(KV.first)].second = &KV.second;
    for (auto &[K, P] : Keys) {
      std::string Sep = Field.empty() || StringRef(K).starts_with(".") ? ""
                                                                       : ".";
      node(Kernel, Field + Sep + K, Loc + Sep + K, P.first, P.second);
    }
    return;
  }
  if (A->isArray()) {
    auto &X = A->getArray(), &Y = B->getArray();
    if (X.size() != Y.size())
      return Diff();
    for (size_t I = 0; I < X.size(); ++I)
      node(Kernel, Field, Loc + "[" + std::to_string(I) + "]", &X[I], &Y[I]);
    return;
  }
  if (!scalarEqual(*A, *B))
    Diff();
}

static msgpack::DocNode *mapFind(msgpack::DocNode &M,
                                       StringRef Key) {
  if (!M.isMap())
    return nullptr;
  for (auto &KV : M.getMap())
    if (KV.first.getKind() == msgpack::Type::String &&
        KV.first.getString() == Key)
      return &KV.second;
  return nullptr;
}

void Differ::kernels(msgpack::DocNode *A, msgpack::DocNode *B) {
  // Kernels pair by name, not by position: a rebuild may list them in
  // another order.
  auto ByName = [](msgpack::DocNode *L) {
    std::map<std::string, msgpack::DocNode *> M;
    if (!L || !L->isArray())
      return M;
    auto &Arr = L->getArray();
    for (size_t I = 0; I < Arr.size(); ++I) {
      msgpack::DocNode *N = mapFind(Arr[I], ".name");
      std::string Name = N && N->getKind() == msgpack::Type::String
                             ? N->getString().str()
                             : "#" + std::to_string(I);
      M.emplace(Name, &Arr[I]);
    }
    return M;
  };
  auto X = ByName(A), Y = ByName(B);
  for (auto &[Name, N] : X) {
    auto It = Y.find(Name);
    node(Name, "", "", N, It == Y.end() ? nullptr : It->second);
  }
  for (auto &[Name, N] : Y)
    if (!X.count(Name))
      node(Name, "", "", nullptr, N);
}

void Differ::metadata(const CodeObject &K0, const CodeObject &K1) {
  msgpack::Document *A = K0.metadata(), *B = K1.metadata();
  if (!A && !B)
    return;
  msgpack::DocNode Empty;
  msgpack::DocNode &RA = A ? A->getRoot() : Empty;
  msgpack::DocNode &RB = B ? B->getRoot() : Empty;
  if (!RA.isMap() || !RB.isMap())
    return node("", "metadata note", "metadata note", A ? &RA : nullptr,
                B ? &RB : nullptr);
  std::map<std::string, std::pair<msgpack::DocNode *,
                                  msgpack::DocNode *>>
      Keys;
  for (auto &KV : RA.getMap())
    Keys[keyText(KV.first)].first = &KV.second;
  for (auto &KV : RB.getMap())
    Keys[keyText(KV.first)].second = &KV.second;
  for (auto &[K, P] : Keys) {
    if (K == "amdhsa.kernels" && P.first && P.second)
      kernels(P.first, P.second);
    else
      node("", K, K, P.first, P.second);
  }
}

} // namespace

std::vector<ObjectDifference>
diffObjects(const CodeObject &K0, const CodeObject &K1,
            const std::set<std::string> &Launched,
            const std::set<std::string> &Accepted, bool OnHardware) {
  std::vector<ObjectDifference> Out;
  Differ D(Launched, Accepted, OnHardware, Out);
  D.descriptors(K0, K1);
  D.metadata(K0, K1);
  return Out;
}

} // namespace verify
} // namespace asmevo

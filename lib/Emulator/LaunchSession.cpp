//===- LaunchSession.cpp - Buffers, kernarg segments, launches ------------===//
#include "asmevo/Emulator/LaunchSession.h"
#include "asmevo/Emulator/Float.h"
#include "asmevo/Emulator/Random.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Emulator/KernelMetadata.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"
#include <cmath>
#include <random>

using namespace llvm;
using namespace asmevo;
using namespace asmevo::emu;

/// \p V as an integer, saturated: a spec's double (a constant, an iota
/// step, a range bound) may lie outside int64_t, where a plain conversion is
/// undefined.
static int64_t saturate(double V) {
  if (std::isnan(V))
    return 0;
  if (V >= 9223372036854775807.0)
    return INT64_MAX;
  if (V <= -9223372036854775808.0)
    return INT64_MIN;
  return int64_t(V);
}

void emu::encodeScalar(const ScalarValue &V, ElemType T, uint8_t *Out) {
  auto Put = [&](auto X) { std::memcpy(Out, &X, sizeof(X)); };
  double F = V.IsFloat ? V.F : double(V.I);
  int64_t I = V.IsFloat ? saturate(V.F) : V.I;
  switch (T) {
  case ElemType::I8: case ElemType::U8: Put(uint8_t(I)); break;
  case ElemType::I16: case ElemType::U16: Put(uint16_t(I)); break;
  case ElemType::I32: case ElemType::U32: Put(uint32_t(I)); break;
  case ElemType::I64: case ElemType::U64: case ElemType::Ptr:
    Put(uint64_t(I));
    break;
  case ElemType::F16: Put(f32ToF16(float(F))); break;
  case ElemType::BF16: Put(f32ToBF16(float(F))); break;
  case ElemType::F32: Put(float(F)); break;
  case ElemType::F64: Put(F); break;
  case ElemType::FP8: Put(f32ToF8(float(F), FP8FNUZ, true)); break;
  case ElemType::BF8: Put(f32ToF8(float(F), BF8FNUZ, true)); break;
  }
}

static Expected<ScalarValue> parseScalar(const SpecScalar &S, StringRef Text,
                                         const ScalarEnv &Env) {
  StringRef T = Text.trim();
  if (isFloatType(S.Type)) {
    double D;
    if (T.getAsDouble(D)) {
      if (T == "inf")
        D = INFINITY;
      else if (T == "-inf")
        D = -INFINITY;
      else if (T == "nan")
        D = NAN;
      else
        return createStringError("scalar '%s': '%s' is not a number",
                                 S.Name.c_str(), T.str().c_str());
    }
    return ScalarValue::ofFloat(D);
  }
  auto V = evalExpr(T, Env);
  if (!V)
    return createStringError("scalar '%s': %s", S.Name.c_str(),
                             toString(V.takeError()).c_str());
  return ScalarValue::ofInt(*V);
}

Error LaunchSession::evalScalars(const SessionOptions &O) {
  std::map<std::string, std::string> Text;
  for (const SpecScalar &S : Spec.Scalars)
    Text[S.Name] = S.Value;
  const std::map<std::string, std::string> *Var = nullptr;
  if (O.Variant > 0) {
    if (O.Variant > Spec.Variants.size())
      return createStringError("%s: no variant %u (the spec has %zu)",
                               Spec.Path.c_str(), O.Variant,
                               Spec.Variants.size());
    Var = &Spec.Variants[O.Variant - 1];
    for (auto &KV : *Var)
      Text[KV.first] = KV.second;
  }
  for (auto &KV : O.Overrides) {
    if (!Spec.scalar(KV.first))
      return createStringError("%s: no scalar named '%s'", Spec.Path.c_str(),
                               KV.first.c_str());
    Text[KV.first] = KV.second;
  }
  std::mt19937_64 Rng(Seed * 0x9E3779B97F4A7C15ull ^ 0x5CA1A8ull);
  // Independent scalars first, then derived ones in declaration order (a
  // derived scalar may use any independent one or an earlier derived one).
  for (int Pass = 0; Pass < 2; ++Pass)
    for (const SpecScalar &S : Spec.Scalars) {
      SpecScalar Cur = S;
      Cur.Value = Text[S.Name];
      bool Derived = Cur.isDerived();
      if ((Pass == 0) == Derived)
        continue;
      bool Overridden = O.Overrides.count(S.Name) ||
                        (Var && Var->count(S.Name));
      if (O.RandomizeScalars && !Overridden && !Derived &&
          (S.Range || !S.Values.empty())) {
        double V;
        if (!S.Values.empty()) {
          V = S.Values[Rng() % S.Values.size()];
        } else if (isFloatType(S.Type)) {
          std::uniform_real_distribution<double> D(S.Range->first,
                                                   S.Range->second);
          V = D(Rng);
        } else {
          // Bounds well inside int64_t, so that Lo + M - 1 cannot wrap.
          if (!(S.Range->first >= -0x1p62 && S.Range->second <= 0x1p62))
            return createStringError("%s: scalar '%s': range [%g, %g] is "
                                     "outside +-2^62",
                                     Spec.Path.c_str(), S.Name.c_str(),
                                     S.Range->first, S.Range->second);
          int64_t Lo = int64_t(std::ceil(S.Range->first));
          int64_t Hi = int64_t(std::floor(S.Range->second));
          int64_t M = S.MultipleOf > 0 && S.MultipleOf <= (1ll << 62)
                          ? S.MultipleOf
                          : 1;
          int64_t LoM = (Lo + M - 1) / M, HiM = Hi / M;
          if (HiM < LoM)
            return createStringError("%s: scalar '%s': no multiple of %lld "
                                     "in its range",
                                     Spec.Path.c_str(), S.Name.c_str(),
                                     (long long)M);
          std::uniform_int_distribution<int64_t> D(LoM, HiM);
          V = double(D(Rng) * M);
        }
        Env[S.Name] = isFloatType(S.Type) ? ScalarValue::ofFloat(V)
                                          : ScalarValue::ofInt(saturate(V));
        continue;
      }
      auto V = parseScalar(S, Cur.Value, Env);
      if (!V)
        return createStringError("%s: %s", Spec.Path.c_str(),
                                 toString(V.takeError()).c_str());
      Env[S.Name] = *V;
    }
  return Error::success();
}

/// Seeded per-buffer random stream: depends only on the seed and the name.
static std::mt19937_64 bufferRng(uint64_t Seed, StringRef Name) {
  return std::mt19937_64(Seed * 0x9E3779B97F4A7C15ull ^ xxh3_64bits(Name));
}

static void putFloat(uint8_t *P, ElemType T, double V) {
  encodeScalar(ScalarValue::ofFloat(V), T, P);
}

static void fill(HostBuffer &B, uint64_t Seed, unsigned Index) {
  const SpecBuffer &S = *B.Spec;
  unsigned ES = elemSize(S.Type);
  InitSpec I = S.Init;
  if (I.K == InitSpec::Default) {
    if (S.R == SpecBuffer::Out || S.R == SpecBuffer::Temp)
      I.K = InitSpec::Canary;
    else if (isFloatType(S.Type)) {
      I.K = InitSpec::Uniform;
      I.A = -1;
      I.B = 1;
    } else {
      I.K = InitSpec::Uniform;
      I.A = 0;
      I.B = 100;
    }
  }
  auto Rng = bufferRng(Seed, S.Name);
  uint8_t *P = B.Bytes.data();
  switch (I.K) {
  case InitSpec::Zeros:
    std::fill(B.Bytes.begin(), B.Bytes.end(), 0);
    return;
  case InitSpec::Canary: {
    // A pattern unlikely to be a computed result: 0xCB ^ index per byte.
    uint8_t C = uint8_t(0xCB ^ (Index * 0x25));
    for (size_t K = 0; K < B.Bytes.size(); ++K)
      P[K] = uint8_t(C ^ (K & 3));
    return;
  }
  default:
    break;
  }
  NormalSampler Norm(I.A, I.B);
  for (uint64_t E = 0; E < B.Count; ++E) {
    uint8_t *Q = P + E * ES;
    double V = 0;
    switch (I.K) {
    case InitSpec::Uniform:
      if (isFloatType(S.Type))
        V = std::uniform_real_distribution<double>(I.A, I.B)(Rng);
      else
        V = double(std::uniform_int_distribution<int64_t>(
            saturate(std::ceil(I.A)),
            std::max(saturate(std::ceil(I.A)), saturate(std::floor(I.B))))(
            Rng));
      break;
    case InitSpec::Normal:
      V = Norm(Rng);
      break;
    case InitSpec::Constant:
      V = I.A;
      break;
    case InitSpec::Iota:
      V = I.A + I.B * double(E);
      break;
    case InitSpec::Special: {
      static const double Sp[] = {0.0, -0.0, 1e-40, -1e-40, INFINITY,
                                  -INFINITY, NAN, 1.0, -2.5, 65504.0};
      V = (E % 3 == 0) ? Sp[(E / 3) % 10]
                       : std::uniform_real_distribution<double>(-1, 1)(Rng);
      if (!isFloatType(S.Type))
        V = double(int64_t(Rng()));
      break;
    }
    case InitSpec::Permutation:
      V = double(E);
      break;
    default:
      break;
    }
    if (isFloatType(S.Type))
      putFloat(Q, S.Type, V);
    else
      encodeScalar(ScalarValue::ofInt(saturate(V)), S.Type, Q);
  }
  if (I.K == InitSpec::Permutation && !isFloatType(S.Type)) {
    for (uint64_t E = B.Count; E > 1; --E) {
      uint64_t J = Rng() % E;
      for (unsigned K = 0; K < ES; ++K)
        std::swap(P[(E - 1) * ES + K], P[J * ES + K]);
    }
  }
}

Error LaunchSession::makeBuffers(const SessionOptions &O) {
  // The whole budget is checked before the first buffer is allocated: a
  // spec asking for more than the machine has is a spec error, not an
  // out-of-memory abort. Each buffer takes its bytes, a guard band on each
  // side and up to its alignment (DeviceMemory::allocate).
  uint64_t Total = 0;
  std::vector<uint64_t> Counts;
  for (const SpecBuffer &S : Spec.Buffers) {
    auto N = evalExpr(S.Count, Env);
    if (!N)
      return createStringError("%s: buffer '%s': count: %s", Spec.Path.c_str(),
                               S.Name.c_str(),
                               toString(N.takeError()).c_str());
    if (*N < 0)
      return createStringError("%s: buffer '%s': count %lld is negative",
                               Spec.Path.c_str(), S.Name.c_str(),
                               (long long)*N);
    uint64_t Bytes, Need;
    bool Over = __builtin_mul_overflow(uint64_t(*N), uint64_t(elemSize(S.Type)),
                                       &Bytes) ||
                __builtin_add_overflow(Bytes, S.Guard, &Need) ||
                __builtin_add_overflow(Need, S.Guard, &Need) ||
                __builtin_add_overflow(Need, S.Align, &Need) ||
                __builtin_add_overflow(Total, Need, &Total);
    if (Over || Total > O.MaxDeviceMemory)
      return createStringError(
          "%s: buffer '%s': count %lld (%s, guard %llu, align %llu) does not "
          "fit in the device-memory budget of %llu bytes "
          "(--max-device-memory)",
          Spec.Path.c_str(), S.Name.c_str(), (long long)*N,
          elemTypeName(S.Type).str().c_str(), (unsigned long long)S.Guard,
          (unsigned long long)S.Align, (unsigned long long)O.MaxDeviceMemory);
    Counts.push_back(uint64_t(*N));
  }
  unsigned Index = 0;
  for (const SpecBuffer &S : Spec.Buffers) {
    HostBuffer B;
    B.Spec = &S;
    B.Count = Counts[Index];
    B.Bytes.assign(B.Count * elemSize(S.Type), 0);
    auto FIt = O.InputFiles.find(S.Name);
    if (FIt != O.InputFiles.end() || S.Init.K == InitSpec::File) {
      std::string Path = FIt != O.InputFiles.end() ? FIt->second : S.Init.Path;
      if (FIt == O.InputFiles.end() && !sys::path::is_absolute(Path)) {
        SmallString<256> P(sys::path::parent_path(Spec.Path));
        sys::path::append(P, Path);
        Path = std::string(P);
      }
      auto Data = readArrayFile(Path, S.Type, B.Count);
      if (!Data)
        return FIt != O.InputFiles.end()
                   ? createStringError("buffer '%s': --input file: %s",
                                       S.Name.c_str(),
                                       toString(Data.takeError()).c_str())
                   : createStringError("%s: buffer '%s': init file: %s",
                                       Spec.Path.c_str(), S.Name.c_str(),
                                       toString(Data.takeError()).c_str());
      B.Bytes = std::move(*Data);
    } else if (S.Init.K != InitSpec::Pointers) {
      fill(B, Seed, Index);
    }
    Bufs.push_back(std::move(B));
    ++Index;
  }
  for (auto &KV : O.InputFiles)
    if (!Spec.buffer(KV.first))
      return createStringError("--input %s: the spec has no buffer of that "
                               "name",
                               KV.first.c_str());
  return Error::success();
}

HostBuffer *LaunchSession::buffer(StringRef Name) {
  for (HostBuffer &B : Bufs)
    if (B.Spec->Name == Name)
      return &B;
  return nullptr;
}

Expected<std::unique_ptr<LaunchSession>>
LaunchSession::create(const LaunchSpec &Spec, const Emulator &Emu,
                      const SessionOptions &O) {
  std::unique_ptr<LaunchSession> S(new LaunchSession(Spec, Emu));
  S->Seed = O.Seed ? O.Seed : Spec.Seed;
  if (Error E = S->evalScalars(O))
    return std::move(E);
  if (Error E = S->makeBuffers(O))
    return std::move(E);
  for (HostBuffer &B : S->Bufs)
    B.Initial = B.Bytes;
  return std::move(S);
}

namespace {
/// Value of a code-object-v5 hidden argument (AMDGPUUsage, "Code Object V5
/// Metadata", hidden kernel arguments).
std::optional<uint64_t> hiddenValue(StringRef Kind, const LaunchParams &P) {
  Kind.consume_front("hidden_");
  unsigned Dims = P.Grid[2] * P.Block[2] > 1 ? 3
                  : P.Grid[1] * P.Block[1] > 1 ? 2
                                               : 1;
  if (Kind == "block_count_x") return P.Grid[0];
  if (Kind == "block_count_y") return P.Grid[1];
  if (Kind == "block_count_z") return P.Grid[2];
  if (Kind == "group_size_x") return P.Block[0];
  if (Kind == "group_size_y") return P.Block[1];
  if (Kind == "group_size_z") return P.Block[2];
  if (Kind.starts_with("remainder_")) return 0;
  if (Kind.starts_with("global_offset_")) return 0;
  if (Kind == "grid_dims") return Dims;
  if (Kind == "dynamic_lds_size") return P.DynamicLDS;
  if (Kind == "private_base") return PrivateApertureBase >> 32;
  if (Kind == "shared_base") return SharedApertureBase >> 32;
  if (Kind == "printf_buffer" || Kind == "hostcall_buffer" ||
      Kind == "heap_v1" || Kind == "multigrid_sync_arg" ||
      Kind == "default_queue" || Kind == "completion_action" ||
      Kind == "queue_ptr" || Kind == "none")
    return 0;
  return std::nullopt;
}
} // namespace

Expected<std::vector<uint8_t>>
LaunchSession::kernarg(const SpecLaunch &L, size_t LI, const LaunchParams &P) {
  const CodeObject &CO = Emu.codeObject();
  const KernelInfo *K = CO.findKernel(L.Kernel);
  if (!K) {
    unsigned Idx;
    if (!StringRef(L.Kernel).getAsInteger(10, Idx) &&
        Idx < CO.kernels().size())
      K = &CO.kernels()[Idx];
  }
  if (!K)
    return createStringError("%s: launch %zu: the code object has no kernel "
                             "'%s'",
                             Spec.Path.c_str(), LI, L.Kernel.c_str());
  auto MD = readKernelMetadata(CO, *K);
  if (!MD)
    return MD.takeError();
  auto Fail = [&](const Twine &Msg) {
    return createStringError("%s: launch %zu (kernel '%s'): %s",
                             Spec.Path.c_str(), LI, K->Name.c_str(),
                             Msg.str().c_str());
  };
  std::vector<uint8_t> Seg;
  std::vector<bool> Used;
  auto Place = [&](int64_t At, const uint8_t *Src, unsigned Len,
                   const std::string &What) -> Error {
    if (At < 0 || uint64_t(At) > Seg.size() || Len > Seg.size() - At)
      return Fail(What + " at byte " + Twine(At) + " (" + Twine(Len) +
                  " bytes) is outside the " + Twine(Seg.size()) +
                  "-byte kernarg segment");
    for (unsigned I = 0; I < Len; ++I) {
      if (Used[At + I])
        return Fail(What + " at byte " + Twine(At) + " overlaps another field");
      Used[At + I] = true;
    }
    std::memcpy(Seg.data() + At, Src, Len);
    return Error::success();
  };
  /// Bytes of one argument value; \p Size is the slot size.
  auto Value = [&](const SpecArg &A, unsigned Size, std::string &Err)
      -> std::vector<uint8_t> {
    std::vector<uint8_t> Out(8, 0);
    switch (A.K) {
    case SpecArg::Null:
      Out.resize(Size ? Size : 8);
      return Out;
    case SpecArg::BufferAt:
    case SpecArg::Name: {
      if (HostBuffer *B = buffer(A.Ref)) {
        int64_t Off = 0;
        if (A.K == SpecArg::BufferAt) {
          auto O = evalExpr(A.Offset, Env);
          if (!O) {
            Err = toString(O.takeError());
            return {};
          }
          Off = *O;
          // One past the end is a valid pointer; further is not.
          if (Off < 0 || uint64_t(Off) > B->Initial.size()) {
            Err = "offset " + std::to_string(Off) + " is outside buffer '" +
                  A.Ref + "' (" + std::to_string(B->Initial.size()) + " bytes)";
            return {};
          }
        }
        uint64_t Addr = B->Addr + uint64_t(Off);
        std::memcpy(Out.data(), &Addr, 8);
        if (Size && Size != 8)
          Err = "pointer '" + A.Ref + "' in a " + std::to_string(Size) +
                "-byte argument";
        Out.resize(8);
        return Out;
      }
      const SpecScalar *S = Spec.scalar(A.Ref);
      if (!S) {
        Err = "'" + A.Ref + "' is not a scalar or buffer";
        return {};
      }
      unsigned ES = elemSize(S->Type);
      if (Size && ES != Size)
        Err = "scalar '" + A.Ref + "' (" + elemTypeName(S->Type).str() +
              ", " + std::to_string(ES) + " bytes) passed in a " +
              std::to_string(Size) + "-byte argument";
      Out.assign(ES, 0);
      encodeScalar(Env.at(A.Ref), S->Type, Out.data());
      return Out;
    }
    case SpecArg::Literal: {
      unsigned ES = elemSize(A.Type);
      if (Size && ES != Size)
        Err = "literal of type " + elemTypeName(A.Type).str() + " in a " +
              std::to_string(Size) + "-byte argument";
      Out.assign(ES, 0);
      ScalarValue V;
      if (isFloatType(A.Type)) {
        double D;
        if (StringRef(A.Value).trim().getAsDouble(D)) {
          Err = "'" + A.Value + "' is not a number";
          return {};
        }
        V = ScalarValue::ofFloat(D);
      } else {
        auto I = evalExpr(A.Value, Env);
        if (!I) {
          Err = toString(I.takeError());
          return {};
        }
        V = ScalarValue::ofInt(*I);
      }
      encodeScalar(V, A.Type, Out.data());
      return Out;
    }
    case SpecArg::Hidden: {
      auto V = hiddenValue(A.Ref, P);
      if (!V) {
        Err = "unknown hidden argument '" + A.Ref + "'";
        return {};
      }
      std::memcpy(Out.data(), &*V, 8);
      Out.resize(Size ? Size : 8);
      return Out;
    }
    }
    return Out;
  };

  if (!L.Raw) {
    auto Explicit = MD->explicitArgs();
    if (MD->Args.empty())
      return Fail("the kernel metadata lists no arguments: use 'kernarg:' "
                  "with byte offsets");
    if (Explicit.size() != L.Args.size())
      return Fail("the spec gives " + Twine(L.Args.size()) +
                  " arguments, the kernel metadata has " +
                  Twine(Explicit.size()));
    uint64_t Size = MD->KernargSegmentSize.value_or(K->KD.kernargSize());
    for (const KernelArg &A : MD->Args)
      Size = std::max<uint64_t>(Size, A.Offset + A.Size);
    Seg.assign(Size, 0);
    Used.assign(Size, false);
    for (size_t I = 0; I < Explicit.size(); ++I) {
      const KernelArg &MA = *Explicit[I];
      std::string Err;
      auto Bytes = Value(L.Args[I], MA.Size, Err);
      // Metadata without argument names (-fno-... or stripped) names
      // arguments by position only.
      std::string What = "argument " + std::to_string(I);
      if (!MA.Name.empty())
        What += " ('" + MA.Name + "')";
      if (!Err.empty())
        return Fail(What + ": " + Err);
      if (Error E = Place(MA.Offset, Bytes.data(), unsigned(Bytes.size()),
                          What))
        return std::move(E);
    }
  } else {
    auto Size = evalExpr(L.KernargSize, Env);
    if (!Size)
      return Fail(toString(Size.takeError()));
    if (*Size < 0 || *Size > 65536)
      return Fail("kernarg size " + Twine(*Size) + " out of range");
    Seg.assign(size_t(*Size), 0);
    Used.assign(size_t(*Size), false);
    for (const SpecArg &A : L.Args) {
      auto At = evalExpr(A.At, Env);
      if (!At)
        return Fail(toString(At.takeError()));
      unsigned Size = 0;
      if (A.K == SpecArg::Hidden)
        Size = 0;
      std::string Err;
      auto Bytes = Value(A, Size, Err);
      if (!Err.empty())
        return Fail("field at " + Twine(*At) + ": " + Err);
      if (A.K == SpecArg::Hidden) {
        // Hidden fields take their size from the metadata when known.
        unsigned HS = 8;
        for (const KernelArg &MA : MD->Args)
          if (StringRef(MA.ValueKind).drop_front(7) == A.Ref ||
              MA.ValueKind == A.Ref)
            HS = MA.Size;
        Bytes.resize(HS);
      }
      if (Error E = Place(*At, Bytes.data(), unsigned(Bytes.size()), "field"))
        return std::move(E);
    }
  }
  if (L.HiddenAuto) {
    for (const KernelArg &MA : MD->Args) {
      if (!MA.isHidden())
        continue;
      auto V = hiddenValue(MA.ValueKind, P);
      if (!V)
        continue; // unknown hidden kinds stay zero
      if (MA.Offset + MA.Size > Seg.size())
        return Fail("hidden argument " + MA.ValueKind +
                    " lies outside the kernarg segment");
      bool Taken = false;
      for (unsigned I = 0; I < MA.Size; ++I)
        Taken |= Used[MA.Offset + I];
      if (Taken)
        continue; // the spec placed something there explicitly
      std::memcpy(Seg.data() + MA.Offset, &*V, std::min<unsigned>(MA.Size, 8));
    }
  }
  return Seg;
}

Error LaunchSession::resolvePointers() {
  for (HostBuffer &B : Bufs)
    B.Bytes = B.Initial;
  for (HostBuffer &B : Bufs) {
    const SpecBuffer &S = *B.Spec;
    auto Addr = [&](const PtrRef &P) -> Expected<uint64_t> {
      if (P.Null)
        return 0;
      auto Off = evalExpr(P.Offset, Env);
      if (!Off)
        return createStringError("%s: buffer '%s': pointer offset: %s",
                                 Spec.Path.c_str(), S.Name.c_str(),
                                 toString(Off.takeError()).c_str());
      const HostBuffer *T = buffer(P.Buffer);
      if (*Off < 0 || uint64_t(*Off) > T->Initial.size())
        return createStringError("%s: buffer '%s': pointer offset %lld is "
                                 "outside buffer '%s' (%zu bytes)",
                                 Spec.Path.c_str(), S.Name.c_str(),
                                 (long long)*Off, P.Buffer.c_str(),
                                 T->Initial.size());
      return T->Addr + uint64_t(*Off);
    };
    if (S.Init.K == InitSpec::Pointers) {
      if (S.Init.Ptrs.size() != B.Count)
        return createStringError("%s: buffer '%s': %zu pointers for %llu "
                                 "elements",
                                 Spec.Path.c_str(), S.Name.c_str(),
                                 S.Init.Ptrs.size(),
                                 (unsigned long long)B.Count);
      for (size_t I = 0; I < S.Init.Ptrs.size(); ++I) {
        auto A = Addr(S.Init.Ptrs[I]);
        if (!A)
          return A.takeError();
        std::memcpy(B.Bytes.data() + 8 * I, &*A, 8);
      }
    }
    for (const auto &Pt : S.Patches) {
      auto At = evalExpr(Pt.At, Env);
      if (!At)
        return createStringError("%s: buffer '%s': patch at: %s",
                                 Spec.Path.c_str(), S.Name.c_str(),
                                 toString(At.takeError()).c_str());
      auto A = Addr(Pt.P);
      if (!A)
        return A.takeError();
      if (*At < 0 || uint64_t(*At) + 8 > B.Bytes.size())
        return createStringError("%s: buffer '%s': patch at %lld is outside "
                                 "the buffer",
                                 Spec.Path.c_str(), S.Name.c_str(),
                                 (long long)*At);
      std::memcpy(B.Bytes.data() + *At, &*A, 8);
    }
  }
  return Error::success();
}

Expected<LaunchParams> LaunchSession::launchParams(size_t LI) {
  const SpecLaunch &L = Spec.Launches[LI];
  LaunchParams P;
  P.Kernel = L.Kernel;
  for (unsigned D = 0; D < 3; ++D) {
    auto G = evalExpr(L.Grid[D], Env);
    if (!G)
      return createStringError("%s: launch %zu: grid[%u]: %s",
                               Spec.Path.c_str(), LI, D,
                               toString(G.takeError()).c_str());
    auto Bk = evalExpr(L.Block[D], Env);
    if (!Bk)
      return createStringError("%s: launch %zu: block[%u]: %s",
                               Spec.Path.c_str(), LI, D,
                               toString(Bk.takeError()).c_str());
    // The dispatch packet's grid size (work-items) is 32 bits per dimension.
    if (*G < 1 || *G > (1ll << 31) || *Bk < 1 || *Bk > 1024 ||
        *G * *Bk > int64_t(UINT32_MAX))
      return createStringError("%s: launch %zu: grid %lld / block %lld out "
                               "of range in dimension %u (grid x block must "
                               "fit in 32 bits)",
                               Spec.Path.c_str(), LI, (long long)*G,
                               (long long)*Bk, D);
    P.Grid[D] = uint32_t(*G);
    P.Block[D] = uint32_t(*Bk);
  }
  auto Dyn = evalExpr(L.DynamicLDS, Env);
  if (!Dyn)
    return createStringError("%s: launch %zu: dynamic_lds: %s",
                             Spec.Path.c_str(), LI,
                             toString(Dyn.takeError()).c_str());
  if (*Dyn < 0 || *Dyn > 65536)
    return createStringError("%s: launch %zu: dynamic_lds %lld out of range",
                             Spec.Path.c_str(), LI, (long long)*Dyn);
  P.DynamicLDS = uint32_t(*Dyn);
  // Resolve a kernel given by index to its name.
  const CodeObject &CO = Emu.codeObject();
  if (!CO.findKernel(P.Kernel)) {
    unsigned Idx;
    if (!StringRef(P.Kernel).getAsInteger(10, Idx) &&
        Idx < CO.kernels().size())
      P.Kernel = CO.kernels()[Idx].Name;
  }
  return P;
}

Expected<std::vector<DeviceLaunch>>
LaunchSession::prepareDeviceRun(ArrayRef<uint64_t> Addrs) {
  if (Addrs.size() != Bufs.size())
    return createStringError("%s: %zu device addresses for %zu buffers",
                             Spec.Path.c_str(), Addrs.size(), Bufs.size());
  for (size_t I = 0; I < Bufs.size(); ++I)
    Bufs[I].Addr = Addrs[I];
  if (Error E = resolvePointers())
    return std::move(E);
  std::vector<DeviceLaunch> Out;
  for (size_t LI = 0; LI < Spec.Launches.size(); ++LI) {
    auto P = launchParams(LI);
    if (!P)
      return P.takeError();
    auto Seg = kernarg(Spec.Launches[LI], LI, *P);
    if (!Seg)
      return Seg.takeError();
    P->KernargSize = Seg->size();
    Out.push_back({std::move(*P), std::move(*Seg)});
  }
  GuardErrors.clear();
  return Out;
}

Expected<std::vector<LaunchOutcome>>
LaunchSession::run(const RunOptions &RO) {
  DeviceMemory Mem;
  auto Base = Emu.load(Mem);
  if (!Base)
    return Base.takeError();
  for (HostBuffer &B : Bufs)
    B.Addr = Mem.allocate("buffer '" + B.Spec->Name + "'", B.Initial.size(),
                          B.Spec->Align, B.Spec->Guard);
  if (Error E = resolvePointers())
    return std::move(E);
  for (HostBuffer &B : Bufs)
    if (!B.Bytes.empty())
      std::memcpy(Mem.find(B.Addr)->data(), B.Bytes.data(), B.Bytes.size());
  std::vector<LaunchOutcome> Out;
  for (size_t LI = 0; LI < Spec.Launches.size(); ++LI) {
    const SpecLaunch &L = Spec.Launches[LI];
    auto POr = launchParams(LI);
    if (!POr)
      return POr.takeError();
    LaunchParams &P = *POr;
    // Each wave executes at least one instruction: refuse a grid the budget
    // cannot finish before anything is set up for it.
    uint64_t Groups = 0, Waves = 0;
    uint64_t GroupSize = uint64_t(P.Block[0]) * P.Block[1] * P.Block[2];
    if (__builtin_mul_overflow(uint64_t(P.Grid[0]) * P.Grid[1],
                               uint64_t(P.Grid[2]), &Groups) ||
        __builtin_mul_overflow(Groups, uint64_t((GroupSize + 63) / 64),
                               &Waves) ||
        Waves > RO.InstructionBudget)
      return createStringError(
          "%s: launch %zu: grid [%u, %u, %u] x block [%u, %u, %u] has more "
          "waves than the instruction budget of %llu instructions allows "
          "(--budget)",
          Spec.Path.c_str(), LI, P.Grid[0], P.Grid[1], P.Grid[2], P.Block[0],
          P.Block[1], P.Block[2], (unsigned long long)RO.InstructionBudget);
    auto Seg = kernarg(L, LI, P);
    if (!Seg)
      return Seg.takeError();
    P.KernargSize = Seg->size();
    // The runtime hands out kernarg segments in aligned chunks, and
    // compilers widen scalar loads of the last arguments into that padding
    // (s_load_dwordx4 of a 36-byte segment): pad to 64 bytes.
    P.KernargAddr = Mem.allocate("kernarg segment of launch " +
                                     std::to_string(LI),
                                 alignTo(std::max<size_t>(Seg->size(), 1), 64),
                                 256, 256, /*ReadOnly=*/true);
    std::memcpy(Mem.find(P.KernargAddr)->data(), Seg->data(), Seg->size());
    auto R = Emu.launch(Mem, P, RO);
    if (!R)
      return R.takeError();
    Out.push_back({P.Kernel, std::move(*R)});
    if (Out.back().Result.Aborted)
      break;
  }
  for (HostBuffer &B : Bufs)
    if (!B.Bytes.empty())
      std::memcpy(B.Bytes.data(), Mem.find(B.Addr)->data(), B.Bytes.size());
  GuardErrors = Mem.checkGuards();
  return Out;
}

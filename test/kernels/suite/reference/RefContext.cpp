//===- RefContext.cpp -----------------------------------------------------===//
#include "Reference.h"

using namespace llvm;
using namespace asmevo::suite;

void RefContext::fail(const Twine &Msg) {
  if (Err.empty())
    Err = ("'" + Spec.Path + "': kernel '" + Spec.Kernel + "': " + Msg).str();
}

int64_t RefContext::i(StringRef Name) {
  auto It = Scalars.find(Name);
  if (It == Scalars.end() || isFloatType(It->second.Type)) {
    fail("the reference needs an integer scalar '" + Name + "'");
    return 0;
  }
  return It->second.Int;
}

double RefContext::f(StringRef Name) {
  auto It = Scalars.find(Name);
  if (It == Scalars.end()) {
    fail("the reference needs a scalar '" + Name + "'");
    return 0;
  }
  return isFloatType(It->second.Type) ? It->second.Float
                                      : (double)It->second.Int;
}

const HostBuffer *RefContext::input(StringRef Name, ElemType Type,
                                    uint64_t MinCount) {
  auto It = Inputs.find(Name);
  if (It == Inputs.end()) {
    fail("the reference needs an input buffer '" + Name + "'");
    return nullptr;
  }
  const HostBuffer &B = It->second;
  if (B.type() != Type) {
    fail("buffer '" + Name + "' is " + elemTypeName(B.type()) +
         ", the kernel reads " + elemTypeName(Type));
    return nullptr;
  }
  if (B.count() < MinCount) {
    fail("buffer '" + Name + "' has " + Twine(B.count()) +
         " elements, the kernel reads " + Twine(MinCount));
    return nullptr;
  }
  return &B;
}

MutableArrayRef<double> RefContext::out(StringRef Name, uint64_t Count) {
  const BufferSpec *BS = Spec.buffer(Name);
  if (!BS || (BS->Role != BufferRole::Out && BS->Role != BufferRole::InOut)) {
    fail("the reference writes '" + Name +
         "', which the spec does not declare as an out or inout buffer");
    return {};
  }
  Expected<uint64_t> SpecCount = bufferCount(Spec, *BS, Scalars);
  if (!SpecCount) {
    fail(toString(SpecCount.takeError()));
    return {};
  }
  if (*SpecCount != Count) {
    fail("buffer '" + Name + "' has " + Twine(*SpecCount) +
         " elements in the spec, the kernel writes " + Twine(Count));
    return {};
  }
  ExpectedBuffer &E = Outputs[Name];
  E.Values.assign(Count, 0.0);
  E.Scales.assign(Count, NAN);
  if (BS->Role == BufferRole::InOut) {
    auto It = Inputs.find(Name);
    if (It == Inputs.end() || It->second.count() != Count) {
      fail("inout buffer '" + Name + "' has no initial content");
      return {};
    }
    for (uint64_t I = 0; I < Count; ++I)
      E.Values[I] = It->second.get(I);
  }
  return E.Values;
}

MutableArrayRef<double> RefContext::scale(StringRef Name) {
  auto It = Outputs.find(Name);
  if (It == Outputs.end()) {
    fail("scale('" + Name + "') before out('" + Name + "')");
    return {};
  }
  return It->second.Scales;
}

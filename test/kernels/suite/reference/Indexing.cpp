//===- Indexing.cpp - References of histogram, gather and scatter ---------===//
#include "Reference.h"

using namespace llvm;
using namespace asmevo::suite;

Error asmevo::suite::histogramRef(RefContext &C) {
  int64_t N = C.i("n");
  auto Data = C.in<uint8_t>("data", N);
  auto Hist = C.out("hist", 256); // inout: counts are added
  if (Error E = C.takeError())
    return E;
  std::vector<uint32_t> Counts(256);
  for (int64_t I = 0; I < N; ++I)
    ++Counts[Data[I]];
  for (int B = 0; B < 256; ++B)
    Hist[B] = (double)(uint32_t)((uint32_t)Hist[B] + Counts[B]);
  return Error::success();
}

Error asmevo::suite::embedding_gatherRef(RefContext &C) {
  int64_t NIdx = C.i("n_idx"), Dim = C.i("dim"), Rows = C.i("num_rows");
  auto Idx = C.in<int32_t>("idx", NIdx);
  auto Table = C.in<float>("table", Rows * Dim);
  auto Out = C.out("out", NIdx * Dim);
  if (Error E = C.takeError())
    return E;
  for (int64_t I = 0; I < NIdx; ++I) {
    int64_t R = Idx[I];
    for (int64_t D = 0; D < Dim; ++D)
      Out[I * Dim + D] = R >= 0 && R < Rows ? Table[R * Dim + D] : 0.0;
  }
  return Error::success();
}

Error asmevo::suite::scatter_addRef(RefContext &C) {
  int64_t N = C.i("n"), Size = C.i("out_size");
  auto Idx = C.in<int32_t>("idx", N);
  auto Src = C.in<int32_t>("src", N);
  auto Out = C.out("out", Size); // inout
  if (Error E = C.takeError())
    return E;
  std::vector<uint32_t> Acc(Size);
  for (int64_t I = 0; I < Size; ++I)
    Acc[I] = (uint32_t)(int32_t)Out[I];
  for (int64_t I = 0; I < N; ++I)
    if (Idx[I] >= 0 && Idx[I] < Size)
      Acc[Idx[I]] += (uint32_t)Src[I]; // int32 atomics wrap
  for (int64_t I = 0; I < Size; ++I)
    Out[I] = (double)(int32_t)Acc[I];
  return Error::success();
}

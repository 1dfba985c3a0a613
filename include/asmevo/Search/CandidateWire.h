//===- CandidateWire.h - A CandidateRecord between processes ----*- C++ -*-===//
//
// How an --evolve worker sends its evaluated candidate (or the error that
// stopped the evaluation) back to the parent. Doubles travel as their bits,
// so a candidate evaluated in a worker decides exactly as one evaluated in
// the parent would: --jobs never changes a result.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_SEARCH_CANDIDATEWIRE_H
#define ASMEVO_SEARCH_CANDIDATEWIRE_H

#include "asmevo/Search/LineageStore.h"

namespace asmevo {

std::string encodeCandidate(llvm::Expected<CandidateRecord> C);
/// The record, or the error the worker's evaluation returned.
llvm::Expected<CandidateRecord> decodeCandidate(llvm::StringRef Bytes);

} // namespace asmevo
#endif

//===- LineageStore.h - Every candidate of a search, in SQLite --*- C++ -*-===//
//
// One row per candidate, each written in its own transaction in WAL mode, so
// that several processes can share one file and a kill -9 loses only the
// candidate being evaluated (docs/lineage-store.md has the schema).
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_SEARCH_LINEAGESTORE_H
#define ASMEVO_SEARCH_LINEAGESTORE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct sqlite3;

namespace asmevo {

struct CandidateRecord {
  std::string RunId;
  int64_t Id = 0;
  int64_t Parent = -1; ///< -1: K0 itself.
  std::string K0Hash, CandidateHash;
  std::string Strategy;
  std::string Passes;     ///< Comma-separated, in the order run.
  std::string EditScript; ///< JSON (docs/edit-script.md), may be empty.
  std::string StaticCheck; ///< "ok" or the error that ruled it out.
  std::string Verdict;     ///< Verifier verdict, or empty.
  std::string Receipt;     ///< The gate's one-line reason.
  double K0Micros = 0, Micros = 0;
  /// Speedup over K0 under the base timing set, then each perturbed set.
  std::vector<double> Speedups;
  std::string TimeSource; ///< "model" or "hardware"; empty: not timed.
  bool Accepted = false;
  double Seconds = 0;
};

struct RunRecord {
  std::string RunId, K0Name, K0Hash;
  uint64_t Seed = 0;
};

class LineageStore {
public:
  static llvm::Expected<std::unique_ptr<LineageStore>> open(llvm::StringRef Path);
  ~LineageStore();

  /// Records the run unless it is there already.
  llvm::Error addRun(const RunRecord &R);
  llvm::Error add(const CandidateRecord &C);
  llvm::Expected<std::vector<RunRecord>> runs();
  /// In candidate-id order.
  llvm::Expected<std::vector<CandidateRecord>> candidates(llvm::StringRef RunId);

private:
  explicit LineageStore(sqlite3 *DB, std::string Path)
      : DB(DB), Path(std::move(Path)) {}
  llvm::Error exec(llvm::StringRef SQL);
  llvm::Error fail(llvm::StringRef What);
  sqlite3 *DB;
  std::string Path;
};

/// `asmevo-opt lineage`: each run's candidates, then its tree.
llvm::Error printLineage(llvm::raw_ostream &OS, LineageStore &S,
                         llvm::StringRef OnlyRun = "");

std::string encodeSpeedups(const std::vector<double> &V);
std::vector<double> decodeSpeedups(llvm::StringRef S);

} // namespace asmevo
#endif

//===- LineageStore.h - Every --evolve candidate in SQLite ------*- C++ -*-===//
//
// One row per candidate of an --evolve run (docs/lineage-store.md), written
// in its own transaction on a WAL database: a kill -9 loses at most the
// candidate being evaluated, and --resume reads back what was recorded.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_SEARCH_LINEAGESTORE_H
#define ASMEVO_SEARCH_LINEAGESTORE_H

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace asmevo {

/// What was decided about one candidate.
struct LineageRow {
  uint64_t Id = 0;
  std::optional<uint64_t> Parent;
  std::string Strategy;
  /// The passes, in order, comma-separated (the candidate's parameters).
  std::string Passes;
  bool StaticOk = false;
  std::string Check;   ///< The gate check that decided.
  std::string Verdict; ///< The verifier's, or empty.
  std::string Reason;
  /// Speedups over K0 (base parameters, then one per perturbed set);
  /// empty when nothing was timed.
  std::vector<double> Speedups;
  std::string TimeSource; ///< "model (not measured)".
  bool Accepted = false;
  std::string Script; ///< The edit script reproducing it (JSON), or empty.
  double Seconds = 0; ///< Wall time of the evaluation.
};

class LineageStore {
public:
  ~LineageStore();
  /// Opens (creating) \p Path. A run is identified by \p RunKey (K0's hash,
  /// the seed and the pipeline): a database holding another run is refused
  /// unless it is empty; without \p Resume a database holding candidates of
  /// this run is refused too.
  static llvm::Expected<std::unique_ptr<LineageStore>>
  open(llvm::StringRef Path, llvm::StringRef RunKey, bool Resume);
  /// Opens an existing store read-only (asmevo-opt lineage DB).
  static llvm::Expected<std::unique_ptr<LineageStore>>
  openForReading(llvm::StringRef Path);

  llvm::Error record(const LineageRow &R);
  llvm::Expected<std::vector<LineageRow>> rows();
  llvm::Expected<std::string> runKey();

private:
  LineageStore(sqlite3 *DB, std::string Path) : DB(DB), Path(std::move(Path)) {}
  llvm::Error exec(const char *SQL);
  llvm::Error fail(llvm::StringRef What);
  sqlite3 *DB;
  std::string Path;
};

/// The run's history and tree as text (asmevo-opt lineage DB).
void printLineage(llvm::raw_ostream &OS, llvm::ArrayRef<LineageRow> Rows);

} // namespace asmevo

#endif

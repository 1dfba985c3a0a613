//===- LineageStore.cpp ---------------------------------------------------===//
#include "asmevo/Search/LineageStore.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sqlite3.h>

using namespace llvm;

namespace asmevo {

static const char *Schema = R"sql(
CREATE TABLE IF NOT EXISTS runs(
  run_id TEXT PRIMARY KEY, k0_name TEXT NOT NULL, k0_hash TEXT NOT NULL,
  seed INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS candidates(
  run_id TEXT NOT NULL, candidate_id INTEGER NOT NULL, parent_id INTEGER,
  k0_hash TEXT NOT NULL, candidate_hash TEXT NOT NULL, strategy TEXT NOT NULL,
  passes TEXT NOT NULL, edit_script TEXT NOT NULL, static_check TEXT NOT NULL,
  verdict TEXT NOT NULL, receipt TEXT NOT NULL, k0_micros REAL NOT NULL,
  micros REAL NOT NULL, speedups TEXT NOT NULL, time_source TEXT NOT NULL,
  accepted INTEGER NOT NULL, seconds REAL NOT NULL,
  PRIMARY KEY(run_id, candidate_id));
)sql";

std::string encodeSpeedups(const std::vector<double> &V) {
  std::string S;
  for (double D : V) {
    char Buf[40];
    // %.17g reads back to the same double: a resumed run decides as the
    // uninterrupted one did.
    snprintf(Buf, sizeof(Buf), "%.17g", D);
    if (!S.empty())
      S += ",";
    S += Buf;
  }
  return S;
}

std::vector<double> decodeSpeedups(StringRef S) {
  std::vector<double> V;
  SmallVector<StringRef> Parts;
  S.split(Parts, ',', -1, false);
  for (StringRef P : Parts)
    V.push_back(strtod(P.str().c_str(), nullptr));
  return V;
}

Error LineageStore::fail(StringRef What) {
  return createStringError(formatv("lineage store '{0}': {1}: {2}", Path, What,
                                   sqlite3_errmsg(DB))
                               .str());
}

Error LineageStore::exec(StringRef SQL) {
  char *Msg = nullptr;
  if (sqlite3_exec(DB, SQL.str().c_str(), nullptr, nullptr, &Msg) !=
      SQLITE_OK) {
    std::string M = Msg ? Msg : "unknown error";
    sqlite3_free(Msg);
    return createStringError(
        formatv("lineage store '{0}': {1}", Path, M).str());
  }
  return Error::success();
}

Expected<std::unique_ptr<LineageStore>> LineageStore::open(StringRef Path) {
  sqlite3 *DB = nullptr;
  if (sqlite3_open_v2(Path.str().c_str(), &DB,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                      nullptr) != SQLITE_OK) {
    std::string M = DB ? sqlite3_errmsg(DB) : "out of memory";
    sqlite3_close(DB);
    return createStringError(
        formatv("lineage store '{0}': {1}", Path, M).str());
  }
  std::unique_ptr<LineageStore> S(new LineageStore(DB, Path.str()));
  // Other processes may hold the write lock for one candidate's insert.
  sqlite3_busy_timeout(DB, 10000);
  if (Error E = S->exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"))
    return std::move(E);
  if (Error E = S->exec(Schema))
    return std::move(E);
  return std::move(S);
}

LineageStore::~LineageStore() { sqlite3_close(DB); }

namespace {
/// A prepared statement, finalized on every path.
struct Stmt {
  sqlite3_stmt *S = nullptr;
  ~Stmt() { sqlite3_finalize(S); }
  void text(int I, StringRef T) {
    sqlite3_bind_text(S, I, T.data(), T.size(), SQLITE_TRANSIENT);
  }
  std::string col(int I) {
    const unsigned char *T = sqlite3_column_text(S, I);
    return T ? reinterpret_cast<const char *>(T) : "";
  }
};
} // namespace

Error LineageStore::addRun(const RunRecord &R) {
  Stmt St;
  if (sqlite3_prepare_v2(DB,
                         "INSERT OR IGNORE INTO runs VALUES(?1,?2,?3,?4)", -1,
                         &St.S, nullptr) != SQLITE_OK)
    return fail("preparing the run insert");
  St.text(1, R.RunId);
  St.text(2, R.K0Name);
  St.text(3, R.K0Hash);
  sqlite3_bind_int64(St.S, 4, static_cast<int64_t>(R.Seed));
  if (sqlite3_step(St.S) != SQLITE_DONE)
    return fail("recording run " + R.RunId);
  return Error::success();
}

Error LineageStore::add(const CandidateRecord &C) {
  Stmt St;
  if (sqlite3_prepare_v2(
          DB,
          "INSERT INTO candidates VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,"
          "?12,?13,?14,?15,?16,?17)",
          -1, &St.S, nullptr) != SQLITE_OK)
    return fail("preparing the candidate insert");
  St.text(1, C.RunId);
  sqlite3_bind_int64(St.S, 2, C.Id);
  if (C.Parent < 0)
    sqlite3_bind_null(St.S, 3);
  else
    sqlite3_bind_int64(St.S, 3, C.Parent);
  St.text(4, C.K0Hash);
  St.text(5, C.CandidateHash);
  St.text(6, C.Strategy);
  St.text(7, C.Passes);
  St.text(8, C.EditScript);
  St.text(9, C.StaticCheck);
  St.text(10, C.Verdict);
  St.text(11, C.Receipt);
  sqlite3_bind_double(St.S, 12, C.K0Micros);
  sqlite3_bind_double(St.S, 13, C.Micros);
  St.text(14, encodeSpeedups(C.Speedups));
  St.text(15, C.TimeSource);
  sqlite3_bind_int(St.S, 16, C.Accepted);
  sqlite3_bind_double(St.S, 17, C.Seconds);
  // Autocommit: one statement, one transaction; on return the row is
  // durable (synchronous=FULL).
  if (sqlite3_step(St.S) != SQLITE_DONE)
    return fail(formatv("recording candidate {0} of run {1}", C.Id, C.RunId)
                    .str());
  return Error::success();
}

Expected<std::vector<RunRecord>> LineageStore::runs() {
  Stmt St;
  if (sqlite3_prepare_v2(DB, "SELECT * FROM runs ORDER BY run_id", -1, &St.S,
                         nullptr) != SQLITE_OK)
    return fail("reading runs");
  std::vector<RunRecord> R;
  int RC;
  while ((RC = sqlite3_step(St.S)) == SQLITE_ROW)
    R.push_back({St.col(0), St.col(1), St.col(2),
                 static_cast<uint64_t>(sqlite3_column_int64(St.S, 3))});
  if (RC != SQLITE_DONE)
    return fail("reading runs");
  return R;
}

Expected<std::vector<CandidateRecord>>
LineageStore::candidates(StringRef RunId) {
  Stmt St;
  if (sqlite3_prepare_v2(DB,
                         "SELECT * FROM candidates WHERE run_id = ?1 ORDER BY "
                         "candidate_id",
                         -1, &St.S, nullptr) != SQLITE_OK)
    return fail("reading candidates");
  St.text(1, RunId);
  std::vector<CandidateRecord> R;
  int RC;
  while ((RC = sqlite3_step(St.S)) == SQLITE_ROW) {
    CandidateRecord C;
    C.RunId = St.col(0);
    C.Id = sqlite3_column_int64(St.S, 1);
    C.Parent = sqlite3_column_type(St.S, 2) == SQLITE_NULL
                   ? -1
                   : sqlite3_column_int64(St.S, 2);
    C.K0Hash = St.col(3);
    C.CandidateHash = St.col(4);
    C.Strategy = St.col(5);
    C.Passes = St.col(6);
    C.EditScript = St.col(7);
    C.StaticCheck = St.col(8);
    C.Verdict = St.col(9);
    C.Receipt = St.col(10);
    C.K0Micros = sqlite3_column_double(St.S, 11);
    C.Micros = sqlite3_column_double(St.S, 12);
    C.Speedups = decodeSpeedups(St.col(13));
    C.TimeSource = St.col(14);
    C.Accepted = sqlite3_column_int(St.S, 15);
    C.Seconds = sqlite3_column_double(St.S, 16);
    R.push_back(std::move(C));
  }
  if (RC != SQLITE_DONE)
    return fail("reading candidates");
  return R;
}

static void printTree(raw_ostream &OS,
                      const std::map<int64_t, std::vector<int64_t>> &Kids,
                      const std::map<int64_t, const CandidateRecord *> &ById,
                      int64_t Id, unsigned Depth) {
  auto It = Kids.find(Id);
  if (It == Kids.end())
    return;
  for (int64_t K : It->second) {
    const CandidateRecord &C = *ById.at(K);
    OS.indent(2 + 2 * Depth) << "#" << K << (C.Accepted ? " *" : "") << "\n";
    printTree(OS, Kids, ById, K, Depth + 1);
  }
}

Error printLineage(raw_ostream &OS, LineageStore &S, StringRef OnlyRun) {
  auto Runs = S.runs();
  if (!Runs)
    return Runs.takeError();
  bool Found = false;
  for (const RunRecord &R : *Runs) {
    if (!OnlyRun.empty() && R.RunId != OnlyRun)
      continue;
    Found = true;
    auto Cs = S.candidates(R.RunId);
    if (!Cs)
      return Cs.takeError();
    OS << "run " << R.RunId << ": " << R.K0Name << " (K0 " << R.K0Hash
       << "), seed " << R.Seed << ", " << Cs->size() << " candidates\n";
    std::map<int64_t, std::vector<int64_t>> Kids;
    std::map<int64_t, const CandidateRecord *> ById;
    for (const CandidateRecord &C : *Cs) {
      std::string Speed =
          C.Speedups.empty()
              ? std::string("-")
              : formatv("{0:F3}x ({1})", C.Speedups.front(), C.TimeSource)
                    .str();
      OS << formatv("  #{0} parent {1} {2} {3} {4} [{5}] {6}\n", C.Id,
                    C.Parent < 0 ? std::string("K0") : "#" + itostr(C.Parent),
                    C.Strategy, C.Accepted ? "accepted" : "rejected", Speed,
                    C.Passes, C.StaticCheck == "ok" || C.StaticCheck == "not run"
                                        ? C.Receipt
                                                    : "static: " + C.StaticCheck);
      Kids[C.Parent].push_back(C.Id);
      ById[C.Id] = &C;
    }
    OS << "  tree (* accepted):\n    K0\n";
    printTree(OS, Kids, ById, -1, 1);
  }
  if (!OnlyRun.empty() && !Found)
    return createStringError("no run '" + OnlyRun.str() + "' in the store");
  return Error::success();
}

} // namespace asmevo

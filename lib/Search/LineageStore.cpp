//===- LineageStore.cpp - Every --evolve candidate in SQLite --------------===//
#include "asmevo/Search/LineageStore.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <map>
#include <sqlite3.h>

using namespace llvm;

namespace asmevo {

static const char *Schema =
    "CREATE TABLE IF NOT EXISTS run (key TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS candidate ("
    " id INTEGER PRIMARY KEY, parent INTEGER, strategy TEXT NOT NULL,"
    " passes TEXT NOT NULL, static_ok INTEGER NOT NULL, gate_check TEXT,"
    " verdict TEXT, reason TEXT, speedups TEXT, time_source TEXT,"
    " accepted INTEGER NOT NULL, script TEXT, seconds REAL);";

LineageStore::~LineageStore() { sqlite3_close(DB); }

Error LineageStore::fail(StringRef What) {
  return createStringError(inconvertibleErrorCode(), "%s: %s: %s",
                           Path.c_str(), What.str().c_str(),
                           sqlite3_errmsg(DB));
}

Error LineageStore::exec(const char *SQL) {
  char *Msg = nullptr;
  if (sqlite3_exec(DB, SQL, nullptr, nullptr, &Msg) != SQLITE_OK) {
    std::string M = Msg ? Msg : "error";
    sqlite3_free(Msg);
    return createStringError(inconvertibleErrorCode(), "%s: %s",
                             Path.c_str(), M.c_str());
  }
  return Error::success();
}

static Expected<std::unique_ptr<LineageStore>> openDB(StringRef Path,
                                                      int Flags,
                                                      sqlite3 *&Out) {
  if (sqlite3_open_v2(Path.str().c_str(), &Out, Flags, nullptr) != SQLITE_OK) {
    std::string M = Out ? sqlite3_errmsg(Out) : "cannot open";
    sqlite3_close(Out);
    Out = nullptr;
    return createStringError(inconvertibleErrorCode(), "%s: %s",
                             Path.str().c_str(), M.c_str());
  }
  // Another process (or the one being resumed) may hold a write lock.
  sqlite3_busy_timeout(Out, 10000);
  return nullptr;
}

Expected<std::unique_ptr<LineageStore>>
LineageStore::open(StringRef Path, StringRef RunKey, bool Resume) {
  sqlite3 *DB = nullptr;
  if (auto E = openDB(Path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, DB);
      !E)
    return E.takeError();
  std::unique_ptr<LineageStore> S(new LineageStore(DB, Path.str()));
  if (Error E = S->exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"))
    return std::move(E);
  if (Error E = S->exec(Schema))
    return std::move(E);
  auto Key = S->runKey();
  if (!Key)
    return Key.takeError();
  auto Rows = S->rows();
  if (!Rows)
    return Rows.takeError();
  if (Key->empty()) {
    sqlite3_stmt *St;
    if (sqlite3_prepare_v2(DB, "INSERT INTO run(key) VALUES (?1)", -1, &St,
                           nullptr) != SQLITE_OK)
      return S->fail("cannot record the run");
    sqlite3_bind_text(St, 1, RunKey.data(), RunKey.size(), SQLITE_TRANSIENT);
    int RC = sqlite3_step(St);
    sqlite3_finalize(St);
    if (RC != SQLITE_DONE)
      return S->fail("cannot record the run");
  } else if (*Key != RunKey) {
    return createStringError(
        inconvertibleErrorCode(),
        "%s: holds another run (another kernel, seed or pipeline): '%s'",
        Path.str().c_str(), Key->c_str());
  } else if (!Resume && !Rows->empty()) {
    return createStringError(inconvertibleErrorCode(),
                             "%s: holds %zu candidates of this run; give "
                             "--resume to continue it",
                             Path.str().c_str(), Rows->size());
  }
  return std::move(S);
}

Expected<std::unique_ptr<LineageStore>>
LineageStore::openForReading(StringRef Path) {
  sqlite3 *DB = nullptr;
  if (auto E = openDB(Path, SQLITE_OPEN_READONLY, DB); !E)
    return E.takeError();
  return std::unique_ptr<LineageStore>(new LineageStore(DB, Path.str()));
}

Expected<std::string> LineageStore::runKey() {
  sqlite3_stmt *St;
  if (sqlite3_prepare_v2(DB, "SELECT key FROM run LIMIT 1", -1, &St,
                         nullptr) != SQLITE_OK)
    return fail("not a lineage store");
  std::string K;
  if (sqlite3_step(St) == SQLITE_ROW)
    K = reinterpret_cast<const char *>(sqlite3_column_text(St, 0));
  sqlite3_finalize(St);
  return K;
}

static std::string joinSpeedups(ArrayRef<double> S) {
  std::string R;
  for (double D : S)
    R += (R.empty() ? "" : ",") + formatv("{0:F6}", D).str();
  return R;
}

Error LineageStore::record(const LineageRow &R) {
  sqlite3_stmt *St;
  if (sqlite3_prepare_v2(
          DB,
          "INSERT OR REPLACE INTO candidate(id, parent, strategy, passes,"
          " static_ok, gate_check, verdict, reason, speedups, time_source,"
          " accepted, script, seconds)"
          " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13)",
          -1, &St, nullptr) != SQLITE_OK)
    return fail("cannot record a candidate");
  auto Text = [&](int I, const std::string &S) {
    sqlite3_bind_text(St, I, S.data(), S.size(), SQLITE_TRANSIENT);
  };
  sqlite3_bind_int64(St, 1, R.Id);
  if (R.Parent)
    sqlite3_bind_int64(St, 2, *R.Parent);
  else
    sqlite3_bind_null(St, 2);
  Text(3, R.Strategy);
  Text(4, R.Passes);
  sqlite3_bind_int(St, 5, R.StaticOk);
  Text(6, R.Check);
  Text(7, R.Verdict);
  Text(8, R.Reason);
  Text(9, joinSpeedups(R.Speedups));
  Text(10, R.TimeSource);
  sqlite3_bind_int(St, 11, R.Accepted);
  Text(12, R.Script);
  sqlite3_bind_double(St, 13, R.Seconds);
  int RC = sqlite3_step(St);
  sqlite3_finalize(St);
  if (RC != SQLITE_DONE)
    return fail(formatv("cannot record candidate {0}", R.Id).str());
  return Error::success();
}

Expected<std::vector<LineageRow>> LineageStore::rows() {
  sqlite3_stmt *St;
  if (sqlite3_prepare_v2(DB,
                         "SELECT id, parent, strategy, passes, static_ok,"
                         " gate_check, verdict, reason, speedups, time_source,"
                         " accepted, script, seconds FROM candidate ORDER BY id",
                         -1, &St, nullptr) != SQLITE_OK)
    return fail("not a lineage store");
  std::vector<LineageRow> Rows;
  auto Text = [&](int I) {
    const unsigned char *T = sqlite3_column_text(St, I);
    return T ? std::string(reinterpret_cast<const char *>(T)) : std::string();
  };
  int RC;
  while ((RC = sqlite3_step(St)) == SQLITE_ROW) {
    LineageRow R;
    R.Id = sqlite3_column_int64(St, 0);
    if (sqlite3_column_type(St, 1) != SQLITE_NULL)
      R.Parent = sqlite3_column_int64(St, 1);
    R.Strategy = Text(2);
    R.Passes = Text(3);
    R.StaticOk = sqlite3_column_int(St, 4);
    R.Check = Text(5);
    R.Verdict = Text(6);
    R.Reason = Text(7);
    SmallVector<StringRef> Parts;
    std::string Sp = Text(8);
    StringRef(Sp).split(Parts, ',', -1, false);
    for (StringRef P : Parts) {
      double D = 0;
      if (!P.getAsDouble(D))
        R.Speedups.push_back(D);
    }
    R.TimeSource = Text(9);
    R.Accepted = sqlite3_column_int(St, 10);
    R.Script = Text(11);
    R.Seconds = sqlite3_column_double(St, 12);
    Rows.push_back(std::move(R));
  }
  sqlite3_finalize(St);
  if (RC != SQLITE_DONE)
    return fail("cannot read the candidates");
  return Rows;
}

void printLineage(raw_ostream &OS, ArrayRef<LineageRow> Rows) {
  unsigned Accepted = 0;
  const LineageRow *Best = nullptr;
  std::map<uint64_t, const LineageRow *> ById;
  for (const LineageRow &R : Rows) {
    ById[R.Id] = &R;
    OS << formatv("#{0,-4} parent {1,-5} {2,-10} {3,-9} {4,-12}", R.Id,
                  R.Parent ? std::to_string(*R.Parent) : std::string("-"),
                  R.Strategy, R.Accepted ? "ACCEPTED" : "rejected",
                  R.Check.empty() ? std::string("-") : R.Check);
    if (!R.Speedups.empty())
      OS << formatv(" speedup {0:F4}x (model)", R.Speedups.front());
    OS << "  [" << R.Passes << "]\n";
    if (R.Accepted) {
      ++Accepted;
      Best = &R;
    }
  }
  OS << formatv("{0} candidates, {1} accepted\n", Rows.size(), Accepted);
  if (!Best) {
    OS << "winner: K0 (no candidate accepted)\n";
    return;
  }
  // The winner's lineage, from K0 down: each step with its effect.
  std::vector<const LineageRow *> Chain;
  for (const LineageRow *R = Best; R;) {
    Chain.push_back(R);
    R = R->Parent && ById.count(*R->Parent) ? ById[*R->Parent] : nullptr;
  }
  OS << "winner: #" << Best->Id << "; lineage from K0:\n";
  double Prev = 1.0;
  for (auto It = Chain.rbegin(); It != Chain.rend(); ++It) {
    double S = (*It)->Speedups.empty() ? 1.0 : (*It)->Speedups.front();
    OS << formatv("  #{0} {1} [{2}]: {3:F4}x over K0, {4:+F2}% over its "
                  "parent (model)\n",
                  (*It)->Id, (*It)->Strategy, (*It)->Passes, S,
                  (S / Prev - 1) * 100);
    Prev = S;
  }
}

} // namespace asmevo

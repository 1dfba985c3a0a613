# Runs a command and kills it with SIGKILL as soon as the lineage store DB
# holds at least N candidate rows (polled, read-only, while it runs).
# Prints how many rows the store held when the kill was sent.
import os, signal, sqlite3, subprocess, sys, time

db, n = sys.argv[1], int(sys.argv[2])
p = subprocess.Popen(sys.argv[3:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

def rows():
    if not os.path.exists(db):
        return 0
    try:
        c = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=10)
        try:
            return c.execute("select count(*) from candidates").fetchone()[0]
        finally:
            c.close()
    except sqlite3.OperationalError:  # not created yet
        return 0

while p.poll() is None:
    if rows() >= n:
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        break
    time.sleep(0.02)
killed = p.returncode == -signal.SIGKILL
print("killed with %d rows" % rows() if killed else "finished before %d rows" % n)
sys.exit(0 if killed else 1)

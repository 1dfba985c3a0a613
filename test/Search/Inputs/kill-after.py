# Runs a command, kills it with SIGKILL after N lines on its stderr.
import os, signal, subprocess, sys
n = int(sys.argv[1])
p = subprocess.Popen(sys.argv[2:], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
seen = 0
for line in p.stderr:
    seen += line.startswith(b"evolve: #")
    if seen >= n:
        os.kill(p.pid, signal.SIGKILL)
        break
p.wait()
sys.exit(0 if seen >= n else 1)

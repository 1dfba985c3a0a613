"""Runs a command next to a local chat-completions server that replays
recorded completions (an OpenAI-compatible endpoint on 127.0.0.1).

  with-chat-server.py RECORDED.json REQUEST_LOG -- CMD ARGS...

RECORDED.json is a list; the n-th request gets the n-th entry:
{"delay": SECONDS (optional), "status": HTTP status (optional, 200),
 "body": the JSON answer}. The command runs with ASMEVO_LLM_BASE_URL set,
this script's stdin as its stdin; each request's JSON is appended to
REQUEST_LOG, one line each. Exits with the command's status.
"""
import http.server
import json
import os
import subprocess
import sys
import threading
import time

recorded_path, log_path = sys.argv[1], sys.argv[2]
cmd = sys.argv[sys.argv.index("--") + 1:]
with open(recorded_path) as f:
    recorded = json.load(f)
lock = threading.Lock()
served = [0]


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(n))
        with lock:
            i = served[0]
            served[0] += 1
            with open(log_path, "a") as f:
                f.write(json.dumps({"path": self.path, "request": body}) + "\n")
        entry = recorded[i] if i < len(recorded) else {
            "status": 500, "body": {"error": "no more recorded answers"}}
        time.sleep(entry.get("delay", 0))
        data = json.dumps(entry["body"]).encode()
        try:
            self.send_response(entry.get("status", 200))
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
threading.Thread(target=server.serve_forever, daemon=True).start()
env = dict(os.environ)
env["ASMEVO_LLM_BASE_URL"] = "http://127.0.0.1:%d/v1" % server.server_port
open(log_path, "w").close()
rc = subprocess.call(cmd, env=env)
server.shutdown()
sys.exit(rc)

#!/usr/bin/env python3
"""over-limit.py WHAT : an edit script just over one documented limit
(docs/edit-script.md): edits, window, asm, line, size or depth."""
import json
import sys

nop = {"text": "s_nop 0", "bytes": "000080bf"}
what = sys.argv[1]
edit = {"kind": "delete", "function": "relu", "block": 3, "index": 0,
        "instructions": [nop]}
script = {"format": "asmevo-edit-script", "version": 1, "edits": [edit]}
if what == "edits":
    script["edits"] = [edit] * 257
elif what == "window":
    edit["instructions"] = [nop] * 65
elif what == "asm":
    edit.update(kind="insert", asm=["s_nop 0"] * 65)
elif what == "line":
    edit.update(kind="insert", asm=["s_nop 0" + " " * 300])
elif what == "size":
    script["comment"] = "x" * 4000
    script["edits"] = [dict(edit, note="y" * 4000) for _ in range(256)]
elif what == "depth":
    sys.stdout.write("[" * 100000 + "]" * 100000 + "\n")
    sys.exit(0)
json.dump(script, sys.stdout)
sys.stdout.write("\n")

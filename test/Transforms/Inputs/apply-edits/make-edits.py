#!/usr/bin/env python3
"""make-edits.py ANCHORS EDIT... : an edit script whose anchors come from
`asmevo-opt K --list-anchors` (ANCHORS), so that a test names a window by
block, index and "count" and the text and bytes are the kernel's own.
Each EDIT is one edit as JSON; "count" (and "to"'s "count") are replaced by
the window's "instructions". "--raw=TEXT" puts TEXT as the whole script."""
import json
import sys


def main():
    anchors = {}
    with open(sys.argv[1]) as f:
        for line in f:
            a = json.loads(line)
            anchors[(a["function"], a["block"], a["index"])] = {
                "text": a["text"], "bytes": a["bytes"]}

    def fill(func, obj):
        if "count" not in obj:
            return
        n = obj.pop("count")
        obj["instructions"] = [anchors[(func, obj["block"], obj["index"] + i)]
                               for i in range(n)]

    edits = []
    for arg in sys.argv[2:]:
        e = json.loads(arg)
        fill(e["function"], e)
        if isinstance(e.get("to"), dict):
            fill(e["function"], e["to"])
        edits.append(e)
    json.dump({"format": "asmevo-edit-script", "version": 1,
               "edits": edits}, sys.stdout, indent=1)
    sys.stdout.write("\n")


main()

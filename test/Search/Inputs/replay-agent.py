# A scripted --agent: answers each `state` with the next line of a file of
# recorded answers (docs/agent-protocol.md). A line {"hang": true} makes it
# stop answering, as a stuck model would. Every message it receives is
# appended to a log, so a test can check what the tool told it.
import json, sys, time

answers = [l for l in open(sys.argv[1]) if l.strip()]
log = open(sys.argv[2], "a")
for line in sys.stdin:
    log.write(line)
    log.flush()
    msg = json.loads(line)
    if msg["type"] != "state":
        continue
    answer = json.loads(answers.pop(0)) if answers else {"type": "stop", "reason": "no more recorded answers"}
    if answer.get("hang"):
        time.sleep(600)
    print(json.dumps(answer), flush=True)

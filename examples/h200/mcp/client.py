#!/usr/bin/env python3
"""kf-mcp on a GPU machine, driven as an agent would, with nothing but the
standard library: JSON-RPC 2.0 lines over the server's pipes.

usage: client.py KF_MCP PROGRAM LOG

PROGRAM is the copy built from copy.cu. In order: initialize, tools/list,
profilers, profile of `PROGRAM naive` (with a progressToken), profile of
`PROGRAM coalesced` with the first as baseline, compare of the two output
directories, reread of the first's .ncu-rep, and a profile of a sleeping
program that is cancelled. Every line each way goes to LOG; a summary and
the checks to stdout. Exit status 1 when a check failed."""
import json
import os
import queue
import subprocess
import sys
import threading
import time

kf_mcp, program, log_path = sys.argv[1:4]
log = open(log_path, "w", encoding="utf-8")
failed = []


def note(direction, line):
    log.write(f"{time.strftime('%H:%M:%S')} {direction} {line}\n")
    log.flush()


def check(what, ok):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failed.append(what)


srv = subprocess.Popen([kf_mcp], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                       stderr=open(log_path + ".stderr", "w"), text=True, bufsize=1)
inbox = queue.Queue()


def reader():
    for line in srv.stdout:
        note("<-", line.rstrip("\n"))
        inbox.put(json.loads(line))
    inbox.put(None)


threading.Thread(target=reader, daemon=True).start()
pending = {}      # id -> message, answered out of order
progress = {}     # token -> notifications


def send(msg):
    line = json.dumps(msg)
    note("->", line)
    srv.stdin.write(line + "\n")
    srv.stdin.flush()


def pump(timeout):
    m = inbox.get(timeout=timeout)
    if m is None:
        raise SystemExit("kf-mcp ended")
    if m.get("method") == "notifications/progress":
        progress.setdefault(m["params"]["progressToken"], []).append(m["params"])
    elif "id" in m:
        pending[m["id"]] = m


def wait(rid, timeout=900):
    end = time.time() + timeout
    while rid not in pending:
        pump(max(1, end - time.time()))
    return pending.pop(rid)


def call(rid, name, args, token=None):
    params = {"name": name, "arguments": args}
    if token:
        params["_meta"] = {"progressToken": token}
    send({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params})


send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "kf-h200-check", "version": "1"}}})
init = wait(1)
check("initialize: 2025-06-18", init["result"]["protocolVersion"] == "2025-06-18")
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
names = [t["name"] for t in wait(2)["result"]["tools"]]
check("tools/list: " + ", ".join(names), names == ["profile", "reread", "compare", "profilers"])

call(3, "profilers", {})
r = wait(3)["result"]
print(r["content"][0]["text"])
ncu = [p for p in r["structuredContent"]["profilers"] if p["name"] == "ncu"][0]
check("profilers: ncu available", ncu["available"])

cwd = os.path.dirname(os.path.abspath(program))
call(4, "profile", {"command": [program, "naive"], "id": "copy", "cwd": cwd,
                    "timeout": 600}, token="naive")
t0 = time.time()
naive = wait(4)["result"]
print(f"\n== profile naive ({time.time() - t0:.1f} s)\n" + naive["content"][0]["text"])
before = naive["structuredContent"]["output_dir"]
check("profile naive: no error", not naive["isError"])
check(f"profile naive: {len(progress.get('naive', []))} progress notifications",
      len(progress.get("naive", [])) > 0)
focus = naive["structuredContent"]["analysis"].get("focus") or {}
check("profile naive: focus is copy_naive", "copy_naive" in str(focus.get("name")))
kinds = [d.get("kind") for d in naive["structuredContent"]["analysis"].get("diagnosis", [])]
print("diagnosis kinds:", kinds)

call(5, "profile", {"command": [program, "coalesced"], "id": "copy", "cwd": cwd,
                    "timeout": 600, "baseline": before})
after = wait(5)["result"]
print("\n== profile coalesced, baseline naive\n" + after["content"][0]["text"])
delta = after["structuredContent"]["analysis"].get("delta") or {}
check("profile coalesced: no error", not after["isError"])
check(f"profile coalesced: delta verdict {delta.get('verdict')}, speedup {delta.get('speedup')}",
      delta.get("verdict") == "faster")

call(6, "compare", {"before": before, "after": after["structuredContent"]["output_dir"]})
cmp = wait(6)["result"]
print("\n== compare\n" + cmp["content"][0]["text"])
cd = cmp["structuredContent"]["analysis"].get("delta") or {}
check("compare: the same verdict and speedup as profile's baseline",
      (cd.get("verdict"), cd.get("speedup")) == (delta.get("verdict"), delta.get("speedup")))

rep = os.path.join(before, "copy", "ncu.000", "report.ncu-rep")
call(7, "reread", {"path": rep})
rr = wait(7)["result"]
check("reread .ncu-rep: focus duration as profile's",
      (rr["structuredContent"]["analysis"].get("focus") or {}).get("duration_ns")
      == focus.get("duration_ns"))

pidfile = os.path.join(cwd, "sleep.pid")
if os.path.exists(pidfile):
    os.unlink(pidfile)
call(8, "profile", {"command": ["sh", "-c", 'echo $$ > "$0"; exec sleep 300', pidfile],
                    "id": "sleeper", "cwd": cwd})
end = time.time() + 120
while not os.path.exists(pidfile) and time.time() < end:
    time.sleep(0.2)
pid = int(open(pidfile).read())
send({"jsonrpc": "2.0", "method": "notifications/cancelled",
      "params": {"requestId": 8, "reason": "the check cancels it"}})
send({"jsonrpc": "2.0", "id": 9, "method": "ping"})
check("ping answered after the cancel", wait(9).get("result") == {})
time.sleep(8)
try:
    os.kill(pid, 0)
    gone = False
except ProcessLookupError:
    gone = True
check(f"cancel: the program (pid {pid}) is gone", gone)
while not inbox.empty():
    pump(1)
check("cancel: no answer for the cancelled call", 8 not in pending)

srv.stdin.close()
srv.wait(timeout=60)
check(f"kf-mcp exited 0 at the end of its input (status {srv.returncode})", srv.returncode == 0)
print(f"\n{len(failed)} check(s) failed" if failed else "\nall checks passed")
sys.exit(1 if failed else 0)

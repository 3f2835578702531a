"""Drives the AIDE adapter's own code for the replay tests (rexmle's code,
standard library only).

  aide_replay.py bridge AGENTS WORKSPACE SOCKET LIVE
      starts the adapter's validation bridge (adaptkit.Bridge) forwarding to
      rexmle's endpoint on SOCKET, the multipart uploads taking their other
      files from LIVE; prints the port, serves until stdin closes.
  aide_replay.py collect AGENTS ROOT SUBMISSION LOGS
      runs the adapter's collect (adapter.collect_from) as it runs at the
      deadline; prints the folder it collected from.
"""
import os
import sys

cmd, agents = sys.argv[1], sys.argv[2]
sys.path[:0] = [os.path.join(agents, "aide"), agents]
import adaptkit as ak  # noqa: E402

if cmd == "bridge":
    ws, sock, live = sys.argv[3:6]
    task = ak.parse(["--workspace", ws, "--validate-socket", sock, "--time-limit", "60"], "aide")
    b = ak.Bridge(task, live, os.path.join(ws, ".rexmle-validate"))
    print(b.port, flush=True)
    sys.stdin.read()
    b.close()
elif cmd == "collect":
    import adapter  # noqa: E402

    root, sub, logs = sys.argv[3:6]
    print(adapter.collect_from(root, sub, logs) or "")
else:
    raise SystemExit("unknown command %r" % cmd)

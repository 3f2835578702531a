"""adaptkit: the adapter contract shared by every rexmle agent recipe.

Standard library only. The canonical copy is agents/adaptkit.py; each recipe
folder holds an identical copy (its build context is the folder), and a Go
test fails when a copy drifts. See agents/README.md for the contract.
"""

import argparse
import email.parser
import email.policy
import http.client
import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

# Benchmark instructions and agent notes, written for rexmle (not copied from
# the reference harness): the same facts the paper's agents were given.
BENCHMARK_INSTRUCTIONS = """\
You are taking part in ReX-MLE, an offline benchmark built from medical imaging
challenges. Solve the task below by writing code that trains a model on the
training data and runs it on the test data to produce a submission. Labelling
test data by hand is not allowed.

HOW THIS BENCHMARK IS SET UP
- The task itself is described in {data}/description.md (repeated below).
- All data for the task is in {data} (read-only).
- Your submission is a folder. It must contain submission.csv, shaped like the
  sample submission, plus every prediction file the CSV refers to; paths in the
  CSV are relative to the submission folder. A CSV without its files fails.
- The train/test split is our own, since the challenges' test labels are not
  public; the data you see may differ a little from the original description.
  Work with the split you are given.
- You may check a submission's format (never its score) with the validation
  service: {validate_hint}
- Do not look up other people's solutions to this challenge.
Where these points and the task description disagree, these points win.
"""

AGENT_NOTES = """\
NOTES ON YOUR BUDGET
- Hardware: {hardware}.
- Time: at most {time_text} of wall-clock time in total, including the time
  your programs run. Each single program run is stopped after {step_timeout_text}.
- Steps: at most {steps} steps.
- Use the time you have to improve the submission rather than stopping at the
  first one that works: validate it, check predictions by eye, build your own
  validation split and compare methods. Whatever submission is in place when
  time runs out is the one graded.
"""


def fmt_duration(secs):
    secs = int(secs)
    h, rem = divmod(secs, 3600)
    m, s = divmod(rem, 60)
    return "%dh %02dm %02ds" % (h, m, s)


def _env_int(name, default):
    v = os.environ.get(name, "").strip()
    if not v:
        return default
    try:
        return int(v)
    except ValueError:
        raise SystemExit("adapter: %s=%r is not an integer" % (name, v))


class Task:
    """What rexmle asks of the agent, from arguments with environment fallbacks."""

    def __init__(self, ns):
        self.__dict__.update(vars(ns))

    @property
    def deadline_reserve(self):
        """Seconds kept at the end to stop the agent and copy its outputs."""
        if self.copy_reserve is not None:
            return self.copy_reserve
        return max(5, min(300, self.time_limit // 20))

    @property
    def agent_budget(self):
        """Seconds the agent is told it has: the limit less the reserve."""
        return max(1, self.time_limit - self.deadline_reserve)


def parse(argv=None, agent="agent", steps=0, step_timeout=0):
    p = argparse.ArgumentParser(prog=agent + "-adapter", description="rexmle adapter for " + agent)
    e = os.environ.get
    p.add_argument("--data", default=e("REXMLE_DATA", "/data"), help="public data folder (read-only)")
    p.add_argument("--submission", default=e("REXMLE_SUBMISSION", "/submission"), help="where the best submission goes")
    p.add_argument("--logs", default=e("REXMLE_LOGS", "/logs"), help="where the agent's logs go")
    p.add_argument("--workspace", default=e("REXMLE_WORKSPACE", "/workspace"), help="scratch space for the agent")
    p.add_argument("--challenge", default=e("REXMLE_CHALLENGE", ""), help="challenge id")
    p.add_argument("--time-limit", type=int, default=_env_int("REXMLE_TIME_LIMIT", 86400), help="wall-clock seconds")
    p.add_argument("--steps", type=int, default=_env_int("REXMLE_STEPS", steps), help="step budget")
    p.add_argument("--step-timeout", type=int, default=_env_int("REXMLE_STEP_TIMEOUT", step_timeout), help="seconds per program run")
    p.add_argument("--copy-reserve", type=int, default=_env_int("REXMLE_COPY_RESERVE", -1), help="seconds kept to copy outputs")
    p.add_argument("--gpus", default=e("CUDA_VISIBLE_DEVICES", ""), help="GPU indices as the agent sees them")
    p.add_argument("--hardware", default=e("REXMLE_HARDWARE", ""), help="hardware notes (detected when empty)")
    p.add_argument("--validate-socket", default=e("REXMLE_VALIDATE_SOCKET", ""), help="rexmle validation Unix socket")
    p.add_argument("--validate-url", default=e("REXMLE_VALIDATE_URL", ""), help="rexmle validation HTTP base URL")
    p.add_argument("--backend", default=e("REXMLE_BACKEND", ""), help="backend label, e.g. gpt-5")
    p.add_argument("--model", default=e("REXMLE_MODEL", ""), help="model or deployment name")
    p.add_argument("--endpoint", default=e("REXMLE_ENDPOINT", "openai"),
                   choices=["openai", "azure", "anthropic", "gemini", "openrouter", "openai-compatible"],
                   help="kind of LLM endpoint")
    p.add_argument("--api-key-env", default=e("REXMLE_API_KEY_ENV", ""), help="name of the variable holding the API key")
    p.add_argument("--base-url-env", default=e("REXMLE_BASE_URL_ENV", ""), help="name of the variable holding the endpoint URL")
    p.add_argument("--api-version-env", default=e("REXMLE_API_VERSION_ENV", ""), help="name of the variable holding the API version (Azure)")
    p.add_argument("--dry-run", action="store_true", help="print the command and environment names as JSON, run nothing")
    ns = p.parse_args(argv)
    if ns.copy_reserve < 0:
        ns.copy_reserve = None
    if ns.time_limit <= 0:
        p.error("--time-limit must be positive, got %d" % ns.time_limit)
    return Task(ns)


def detect_hardware(task):
    if task.hardware:
        return task.hardware
    parts = []
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        names = [l.strip() for l in out.stdout.splitlines() if l.strip()] if out.returncode == 0 else []
        if names:
            counts = {}
            for n in names:
                counts[n] = counts.get(n, 0) + 1
            parts.append(", ".join("%d x %s" % (c, n) for n, c in sorted(counts.items())))
    except (OSError, subprocess.SubprocessError):
        pass
    if not parts:
        parts.append("no GPU")
    parts.append("%d CPU cores" % (os.cpu_count() or 1))
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    parts.append("%d GiB RAM" % (int(line.split()[1]) // (1024 * 1024)))
                    break
    except OSError:
        pass
    return ", ".join(parts)


def instructions(task, validate_hint, hardware=None):
    """The full task text: benchmark instructions, agent notes, description."""
    desc_path = os.path.join(task.data, "description.md")
    try:
        with open(desc_path, encoding="utf-8") as f:
            desc = f.read()
    except OSError as err:
        raise SystemExit("adapter: read the task description %s: %s" % (desc_path, err))
    step_timeout = task.step_timeout or task.time_limit
    text = BENCHMARK_INSTRUCTIONS.format(data=task.data, validate_hint=validate_hint)
    text += "\n" + AGENT_NOTES.format(hardware=hardware or detect_hardware(task), time_text=fmt_duration(task.time_limit),
                                      step_timeout_text=fmt_duration(step_timeout), steps=task.steps or "unlimited")
    text += "\nTASK DESCRIPTION\n----------------\n\n" + desc
    return text


def write_text(path, text):
    """Atomic write: temp file and rename."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    tmp = path + ".tmp-%d" % os.getpid()
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def log(msg, *args):
    sys.stderr.write("[adapter] " + (msg % args if args else msg) + "\n")
    sys.stderr.flush()


# --- LLM endpoint ------------------------------------------------------------

def secret(task):
    """The API key's value (from the variable named by --api-key-env)."""
    if not task.api_key_env:
        return ""
    return os.environ.get(task.api_key_env, "")


def base_url(task):
    if not task.base_url_env:
        return ""
    return os.environ.get(task.base_url_env, "").strip()


def azure_v1_url(endpoint):
    """Azure OpenAI's OpenAI-compatible (v1) base URL for a resource endpoint."""
    endpoint = endpoint.rstrip("/")
    if endpoint.endswith("/openai/v1"):
        return endpoint + "/"
    return endpoint + "/openai/v1/"


# --- plan, dry run, run --------------------------------------------------------

class Plan:
    """What the adapter runs: argv, extra environment, working folder, and
    secret_names: the environment names whose values must never be shown."""

    def __init__(self, argv, env, cwd, secret_names=(), notes=None):
        self.argv = list(argv)
        self.env = dict(env)
        self.cwd = cwd
        self.secret_names = set(secret_names)
        self.notes = notes or {}

    def dry_run_json(self, agent, task):
        out = {
            "agent": agent,
            "argv": self.argv,
            "cwd": self.cwd,
            "env": sorted(self.env),
            "values": {k: v for k, v in sorted(self.env.items()) if k not in self.secret_names},
            "time_limit": task.time_limit,
            "deadline_reserve": task.deadline_reserve,
            "notes": self.notes,
        }
        return json.dumps(out, indent=2, sort_keys=True)


def _safe_collect(collect):
    try:
        return collect()
    except Exception as err:  # a failed copy must not hide the agent's outcome
        log("collecting the outputs failed: %s: %s", type(err).__name__, err)
        return ""


def _kill_group(proc, sig):
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _exempt_from_proxy(env, port):
    """Lets the agent reach the adapter's own validation server directly
    when rexmle's NO_PROXY does not exempt all of loopback (it narrows it
    when the LLM endpoint itself is on the host's loopback, reachable only
    through the proxy)."""
    for k in ("NO_PROXY", "no_proxy"):
        cur = env.get(k)
        if cur is None:
            continue
        entries = [e.strip() for e in cur.split(",") if e.strip()]
        if "127.0.0.1" in entries:
            continue
        entries += ["127.0.0.1:%d" % port, "localhost:%d" % port]
        env[k] = ",".join(entries)


def run(agent, task, plan, collect, bridge=None, stop_wait=30):
    """Runs plan until it ends, the deadline passes or SIGTERM arrives; then
    collect() copies the outputs. Returns the exit status for the adapter."""
    if task.dry_run:
        print(plan.dry_run_json(agent, task))
        return 0
    stopping = {"why": ""}
    child = {}

    def on_signal(signum, _frame):
        if not stopping["why"]:
            stopping["why"] = "signal %d" % signum
            log("got signal %d: stopping the agent and collecting its outputs", signum)
            if "proc" in child:
                _kill_group(child["proc"], signal.SIGTERM)

    # before the agent starts, so that an early stop still collects
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    env = dict(os.environ)
    env.update(plan.env)
    home = env.get("HOME", "")
    if not home or not os.access(home, os.W_OK):
        # containers run as the host user, whose home does not exist there
        env["HOME"] = os.path.join(task.workspace, "home")
        os.makedirs(env["HOME"], exist_ok=True)
    if bridge:
        _exempt_from_proxy(env, bridge.port)
    os.makedirs(plan.cwd, exist_ok=True)
    log("%s: %s", agent, " ".join(plan.argv))
    try:
        proc = subprocess.Popen(plan.argv, cwd=plan.cwd, env=env, start_new_session=True)
    except OSError as err:
        log("cannot start %s: %s", plan.argv[0], err)
        _safe_collect(collect)
        if bridge:
            bridge.close()
        return 127
    child["proc"] = proc
    if stopping["why"]:
        _kill_group(proc, signal.SIGTERM)
    deadline = time.monotonic() + task.time_limit - task.deadline_reserve
    while True:
        try:
            rc = proc.wait(timeout=1)
            break
        except subprocess.TimeoutExpired:
            pass
        if stopping["why"]:
            break
        if time.monotonic() >= deadline:
            stopping["why"] = "deadline"
            log("time limit reached (%s kept for copying): stopping the agent", fmt_duration(task.deadline_reserve))
            _kill_group(proc, signal.SIGTERM)
            break
    if stopping["why"]:
        wait = min(stop_wait, max(1, task.deadline_reserve // 2))
        try:
            rc = proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            _kill_group(proc, signal.SIGKILL)
            rc = proc.wait()
    # whatever the agent left behind in its process group goes too
    _kill_group(proc, signal.SIGKILL)
    if bridge:
        bridge.close()
    got = _safe_collect(collect)
    log("agent exited with %s; submission collected: %s", rc, bool(got))
    if stopping["why"].startswith("signal"):
        return 143
    if stopping["why"] == "deadline":
        return 0 if got else 124
    return rc if rc >= 0 else 128 - rc


# --- copying outputs -----------------------------------------------------------

def clear_dir(d):
    os.makedirs(d, exist_ok=True)
    for name in os.listdir(d):
        p = os.path.join(d, name)
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p, ignore_errors=True)
        else:
            try:
                os.unlink(p)
            except OSError:
                pass


def copy_contents(src, dst, skip=()):
    """Copies the entries of folder src into dst (symlinks followed, so
    prediction files linked from elsewhere arrive as files). Each entry is
    copied under a temporary name and renamed into place."""
    if not os.path.isdir(src):
        return False
    os.makedirs(dst, exist_ok=True)
    n = 0
    for name in sorted(os.listdir(src)):
        if name in skip:
            continue
        s = os.path.join(src, name)
        tmp = os.path.join(dst, ".rexmle-partial-" + name)
        final = os.path.join(dst, name)
        try:
            if os.path.isdir(s):
                shutil.rmtree(tmp, ignore_errors=True)
                shutil.copytree(s, tmp, symlinks=False, ignore_dangling_symlinks=True)
                if os.path.isdir(final) and not os.path.islink(final):
                    shutil.rmtree(final)
                elif os.path.lexists(final):
                    os.unlink(final)
            elif os.path.isfile(s):
                shutil.copyfile(s, tmp)
            else:
                continue
            os.replace(tmp, final)
            n += 1
        except OSError as err:
            log("copy %s: %s", s, err)
    return n > 0


def collect_submission(candidates, dst):
    """Copies the first candidate folder holding a submission.csv into dst
    (cleared first). Returns the folder used, or ""."""
    for c in candidates:
        if c and os.path.isfile(os.path.join(c, "submission.csv")):
            clear_dir(dst)
            copy_contents(c, dst)
            log("submission copied from %s", c)
            return c
    log("no submission.csv in %s", ", ".join(c for c in candidates if c) or "(no candidates)")
    return ""


# --- validation: the paper's HTTP /validate and /health, bridged to rexmle ------

class _UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout=120):
        super().__init__("rexmle", timeout=timeout)
        self._path = path

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        s.connect(self._path)
        self.sock = s


def ask_rexmle(task, folder):
    """Asks rexmle's validation endpoint about a submission folder: (valid, reason)."""
    body = json.dumps({"dir": folder}).encode()
    hdr = {"Content-Type": "application/json"}
    try:
        if task.validate_url:
            u = urllib.parse.urlsplit(task.validate_url)
            conn = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=120)
            conn.request("POST", u.path.rstrip("/") + "/validate", body, hdr)
        elif task.validate_socket:
            conn = _UnixHTTPConnection(task.validate_socket)
            conn.request("POST", "/validate", body, hdr)
        else:
            return None, "no validation endpoint was given to this run"
        resp = conn.getresponse()
        data = json.loads(resp.read() or b"{}")
        conn.close()
        return bool(data.get("valid")), str(data.get("reason", ""))
    except (OSError, ValueError, http.client.HTTPException) as err:
        return None, "validation endpoint unreachable: %s" % err


def _link_or_copy(src, dst):
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)
    return dst


class Bridge:
    """A loopback HTTP server with the paper's validation API: GET /health;
    POST /validate with a multipart "file" (a submission.csv; the rest of the
    submission is taken from live_submission, a folder or a function giving
    one) or a JSON {"dir": folder}. Answers {"valid": bool, "is_valid": bool,
    "reason": str, "result": text}, never a score."""

    def __init__(self, task, live_submission, staging):
        self.task = task
        self.live_submission = live_submission
        self.staging = staging
        self.count = 0
        self.lock = threading.Lock()
        bridge = self

        class H(http.server.BaseHTTPRequestHandler):
            def log_message(self, fmt, *args):
                log("validate: " + fmt, *args)

            def _send(self, code, obj):
                b = json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(b)))
                self.end_headers()
                self.wfile.write(b)

            def do_GET(self):
                if self.path.rstrip("/") == "/health":
                    self._send(200, {"status": "running"})
                else:
                    self._send(404, {"error": "not found", "details": "use GET /health or POST /validate"})

            def do_POST(self):
                if self.path.rstrip("/") != "/validate":
                    self._send(404, {"error": "not found", "details": "use POST /validate"})
                    return
                n = int(self.headers.get("Content-Length") or 0)
                if n > 512 * 1024 * 1024:
                    self._send(413, {"error": "too large", "details": "submission.csv over 512 MiB"})
                    return
                body = self.rfile.read(n)
                try:
                    folder = bridge._folder(self.headers.get("Content-Type", ""), body)
                except ValueError as err:
                    self._send(400, {"error": "bad request", "details": str(err)})
                    return
                valid, reason = ask_rexmle(bridge.task, folder)
                if os.path.dirname(folder) == bridge.staging:
                    shutil.rmtree(folder, ignore_errors=True)
                if valid is None:
                    self._send(503, {"error": "validation unavailable", "details": reason})
                    return
                text = "Submission is valid." if valid else "Submission is invalid: " + reason
                # "is_valid" is the key the harness's server answers and its
                # validate_submission.sh greps for (grading_server_standalone.py), and ML-Master's
                # parse_exec_result reads (agent/mcts_agent.py, res['is_valid'])
                self._send(200, {"valid": valid, "is_valid": valid, "reason": reason, "result": text})

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.port = self.server.server_address[1]
        self.url = "http://127.0.0.1:%d" % self.port
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def _folder(self, ctype, body):
        if ctype.startswith("application/json"):
            try:
                d = json.loads(body)
            except ValueError as err:
                raise ValueError("want JSON {\"dir\": folder}: %s" % err)
            if not isinstance(d, dict) or not isinstance(d.get("dir"), str):
                raise ValueError("want JSON {\"dir\": folder}")
            return d["dir"]
        if not ctype.startswith("multipart/form-data"):
            raise ValueError("want multipart/form-data with a \"file\" field or JSON {\"dir\": folder}")
        msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + body)
        data = None
        for part in msg.iter_parts():
            if part.get_param("name", header="content-disposition") == "file":
                data = part.get_payload(decode=True)
        if data is None:
            raise ValueError("multipart body has no \"file\" field")
        with self.lock:
            self.count += 1
            n = self.count
        d = os.path.join(self.staging, str(n))
        clear_dir(d)
        with open(os.path.join(d, "submission.csv"), "wb") as f:
            f.write(data)
        live = self.live_submission() if callable(self.live_submission) else self.live_submission
        if live and os.path.isdir(live):
            # copies (hard links where possible), not symlinks: rexmle's
            # validator refuses links in a submission folder
            for name in os.listdir(live):
                if name == "submission.csv":
                    continue
                src, dst = os.path.join(live, name), os.path.join(d, name)
                try:
                    if os.path.isdir(src):
                        shutil.copytree(src, dst, copy_function=_link_or_copy, ignore_dangling_symlinks=True)
                    elif os.path.isfile(src):
                        _link_or_copy(src, dst)
                except OSError as err:
                    log("validate: stage %s: %s", src, err)
        return d

    def advertise(self, folder):
        """Writes .grading_port and validate_submission.sh where agents look."""
        os.makedirs(folder, exist_ok=True)
        write_text(os.path.join(folder, ".grading_port"), str(self.port))
        script = ("#!/bin/sh\n# Checks a submission's format with rexmle's validation service (never a score).\n"
                  "# usage: validate_submission.sh [SUBMISSION_FOLDER_OR_CSV]\n"
                  "f=\"${1:-submission/submission.csv}\"\n"
                  "exec python3 - \"$f\" %d <<'EOF'\n"
                  "import json, os, sys, urllib.request\n"
                  "f, port = sys.argv[1], sys.argv[2]\n"
                  "d = f if os.path.isdir(f) else os.path.dirname(os.path.abspath(f))\n"
                  "req = urllib.request.Request('http://127.0.0.1:%%s/validate' %% port, json.dumps({'dir': os.path.abspath(d)}).encode(), {'Content-Type': 'application/json'})\n"
                  "print(urllib.request.urlopen(req, timeout=300).read().decode())\n"
                  "EOF\n") % self.port
        p = os.path.join(folder, "validate_submission.sh")
        write_text(p, script)
        os.chmod(p, 0o755)

    def hint(self):
        return ("POST the folder as JSON {\"dir\": \"<folder>\"}, or a submission.csv as a multipart "
                "\"file\" field, to %s/validate (GET %s/health says whether it is up); "
                "validate_submission.sh in your working folder does it for you." % (self.url, self.url))

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def open_bridge(task, live_submission, advertise_in):
    b = Bridge(task, live_submission, os.path.join(task.workspace, ".rexmle-validate"))
    for d in advertise_in:
        b.advertise(d)
    return b


def dry_bridge_hint():
    return ("POST to http://127.0.0.1:<port>/validate (port in .grading_port); "
            "validate_submission.sh in your working folder does it for you.")

"""Records an agent's validation traffic for rexmle's recordings: put this
folder first on PYTHONPATH and name a JSONL file in REXMLE_RECORD_HTTP.
Every requests call to a /validate or /health URL is appended with what was
sent (method, URL, content type, multipart parts: field, filename, text or
sha256) and what came back (status, JSON). It only observes: the call and
its answer go through unchanged. Standard library plus requests."""
import os

_path = os.environ.get("REXMLE_RECORD_HTTP")
if _path:
    try:
        import email.parser
        import email.policy
        import hashlib
        import json
        import threading
        import time

        import requests.sessions

        _lock = threading.Lock()
        _send = requests.sessions.Session.send

        def _parts(req):
            ctype = req.headers.get("Content-Type", "")
            body = req.body if isinstance(req.body, bytes) else (req.body or "").encode()
            if not ctype.startswith("multipart/"):
                return ctype, body.decode("utf-8", "replace")[:2000], None
            msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
                b"Content-Type: " + ctype.encode() + b"\r\n\r\n" + body)
            files = []
            for p in msg.iter_parts():
                data = p.get_payload(decode=True) or b""
                try:
                    text = data.decode("utf-8")
                    if len(text) > 20000:
                        raise ValueError
                    content = {"text": text}
                except ValueError:
                    content = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
                files.append(dict(field=p.get_param("name", header="content-disposition"),
                                  filename=p.get_filename(), **content))
            return ctype.split(";")[0], None, files

        def send(self, request, **kw):
            url = request.url or ""
            watch = url.rstrip("/").endswith(("/validate", "/health"))
            t0 = time.time()
            try:
                resp = _send(self, request, **kw)
            except Exception as err:
                if watch:
                    _write({"t": t0, "method": request.method, "url": url, "error": type(err).__name__})
                raise
            if watch:
                ctype, body, files = _parts(request)
                try:
                    answer = resp.json()
                except ValueError:
                    answer = resp.text[:2000]
                _write({"t": t0, "method": request.method, "url": url, "content_type": ctype, "body": body,
                        "files": files, "headers": {k: v for k, v in request.headers.items() if k.lower() == "exp-id"},
                        "status": resp.status_code, "response": answer})
            return resp

        def _write(rec):
            with _lock:
                with open(_path, "a") as f:
                    f.write(json.dumps(rec) + "\n")

        requests.sessions.Session.send = send
    except Exception as err:  # recording must never stop the agent
        import sys
        sys.stderr.write("rexmle recorder off: %s\n" % err)

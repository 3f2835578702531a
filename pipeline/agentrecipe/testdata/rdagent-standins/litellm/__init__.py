"""Stand-in for litellm 1.80.0, used only to prove R&D-Agent's loop here.

litellm cannot run on this machine: its source repository is over the size
that can be fetched, there is no PyPI, and it imports tiktoken and tokenizers,
whose cores are Rust extensions Debian 12 does not package. This module gives
the names rdagent v0.8.0 imports from litellm (rdagent/oai/backend/litellm.py:5-14,
rdagent/oai/utils/embedding.py:7, rdagent/oai/backend/base.py:512-514) and
sends the same OpenAI-format requests LiteLLM sends for an "openai/..." or
plain model with OPENAI_API_BASE: POST {base}/chat/completions and
{base}/embeddings, through HTTP(S)_PROXY as urllib reads it from the environment.
drop_params: temperature is dropped for gpt-5 models unless it is 1, as
LiteLLM does with LITELLM_DROP_PARAMS=True (and refuses without it)."""

import json
import os
import urllib.request

import tiktoken

drop_params = os.environ.get("LITELLM_DROP_PARAMS", "").lower() in ("1", "true", "yes")
_ENC = tiktoken.get_encoding("cl100k_base")


class BadRequestError(Exception):
    def __init__(self, message="", model=None, llm_provider=None, **_kw):
        super().__init__(message)
        self.message, self.model, self.llm_provider = message, model, llm_provider


class ContentPolicyViolationError(BadRequestError):
    pass


class UnsupportedParamsError(BadRequestError):
    pass


def _base():
    return (os.environ.get("OPENAI_API_BASE") or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1").rstrip("/")


def _endpoint(model, op):
    """URL and headers as LiteLLM builds them: azure/<deployment> goes to
    {AZURE_API_BASE}/openai/deployments/<deployment>/<op>?api-version=V with
    an api-key header; other models to {OPENAI_API_BASE}/<op> with a bearer."""
    if model.startswith("azure/"):
        base = os.environ.get("AZURE_API_BASE", "").rstrip("/")
        url = "%s/openai/deployments/%s/%s?api-version=%s" % (base, model.split("/", 1)[1], op, os.environ.get("AZURE_API_VERSION", ""))
        return url, {"api-key": os.environ.get("AZURE_API_KEY", "")}
    return _base() + "/" + op, {"Authorization": "Bearer " + os.environ.get("OPENAI_API_KEY", "")}


def _post(model, op, body, stream=False):
    url, hdr = _endpoint(model, op)
    hdr["Content-Type"] = "application/json"
    req = urllib.request.Request(url, json.dumps(body).encode(), hdr)
    try:
        resp = urllib.request.urlopen(req, timeout=600)
    except urllib.error.HTTPError as err:
        raise BadRequestError("HTTP %d: %s" % (err.code, err.read()[:500].decode(errors="replace")))
    if not stream:
        with resp:
            return json.loads(resp.read())
    return _sse(resp)


def _sse(resp):
    """The chunks of a server-sent-events chat completion, as LiteLLM's
    CustomStreamWrapper yields them (dict-like, choices[0].delta.content)."""
    with resp:
        for raw in resp:
            line = raw.decode("utf-8").strip()
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                break
            yield _Obj(json.loads(data))


class _Obj(dict):
    """A dict whose keys read as attributes too (LiteLLM's ModelResponse does both)."""

    def __getattr__(self, k):
        try:
            v = self[k]
        except KeyError:
            raise AttributeError(k)
        return _wrap(v)

    def __getitem__(self, k):
        return _wrap(dict.__getitem__(self, k))


def _wrap(v):
    if isinstance(v, dict) and not isinstance(v, _Obj):
        return _Obj(v)
    if isinstance(v, list):
        return [_wrap(x) for x in v]
    return v


def _model(model):
    return model.split("/", 1)[1] if model.startswith(("openai/", "azure/")) else model


def completion(model, messages, stream=False, max_retries=0, temperature=None, max_tokens=None,
               reasoning_effort=None, response_format=None, **kw):
    body = {"model": _model(model), "messages": messages}
    if stream:
        body["stream"] = True
    if temperature is not None:
        if "gpt-5" in model and float(temperature) != 1.0:
            if not drop_params:
                raise UnsupportedParamsError("gpt-5 models don't support temperature=%s. Only temperature=1 is "
                                             "supported. To drop unsupported params set `litellm.drop_params = True`"
                                             % temperature, model=model, llm_provider="openai")
        else:
            body["temperature"] = temperature
    if max_tokens:
        body["max_tokens"] = max_tokens
    if reasoning_effort:
        body["reasoning_effort"] = reasoning_effort
    if isinstance(response_format, dict):
        body["response_format"] = response_format
    out = _post(model, "chat/completions", body, stream=bool(stream))
    return out if stream else _Obj(out)


def embedding(model, input, **kw):
    return _Obj(_post(model, "embeddings", {"model": _model(model), "input": input}))


def completion_cost(**_kw):
    return 0.0


def get_model_info(model, **_kw):
    return {"max_input_tokens": 272000, "max_output_tokens": 128000}


def get_max_tokens(model, **_kw):
    return 8191 if "embedding" in model else 128000


def supports_function_calling(model=None, **_kw):
    return False


def supports_response_schema(model=None, **_kw):
    return False


def encode(model=None, text="", **_kw):
    return _ENC.encode(text)


def decode(model=None, tokens=(), **_kw):
    return _ENC.decode(tokens)


def token_counter(model=None, messages=None, text=None, **_kw):
    if text is None:
        text = "".join(str(m.get("content", "")) for m in (messages or []))
    return len(_ENC.encode(text))


def get_valid_models(**_kw):
    return []

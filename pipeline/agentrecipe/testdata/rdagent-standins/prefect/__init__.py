def task(*a, **k):
    raise RuntimeError("prefect is not available on this machine")

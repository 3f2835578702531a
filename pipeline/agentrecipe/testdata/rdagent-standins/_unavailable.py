"""Names of packages that cannot be installed here (pydantic-ai-slim[mcp], prefect),
imported at module level by rdagent v0.8.0 but used only by its MCP documentation
agent (DS_ENABLE_MCP_DOCUMENTATION_SEARCH, off by default). Using one raises."""


def unavailable(pkg, name):
    class _U:
        def __init__(self, *a, **k):
            raise RuntimeError("%s.%s is not available on this machine" % (pkg, name))

        def __class_getitem__(cls, _item):
            return cls
    _U.__name__ = name
    return _U

from litellm import *  # noqa: F401,F403


class ModelResponse(dict):
    pass


def get_llm_provider(model, **_kw):
    return (model.split("/", 1)[-1], model.split("/", 1)[0] if "/" in model else "openai", None, None)

from _unavailable import unavailable
LiteLLMProvider = unavailable("pydantic_ai.providers.litellm", "LiteLLMProvider")

from _unavailable import unavailable
OpenAIChatModel = unavailable("pydantic_ai.models.openai", "OpenAIChatModel")
OpenAIChatModelSettings = dict

from _unavailable import unavailable
Agent = unavailable("pydantic_ai", "Agent")

from _unavailable import unavailable
MCPServerStreamableHTTP = unavailable("pydantic_ai.mcp", "MCPServerStreamableHTTP")

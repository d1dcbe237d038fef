"""The MCP server: the index resident in memory, its tools, the protocol wiring.

- ``resident``: an index loaded once, reloaded when a build replaces it;
- ``tools``: search, ask, lookup_symbol, read, validate_code, index_status as plain
  functions returning JSON-able results (no MCP, no LlamaIndex);
- ``app``: those tools as a Model Context Protocol server (``codecite mcp``).
"""

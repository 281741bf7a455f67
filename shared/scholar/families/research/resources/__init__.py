"""The caller's library and stored conversions as MCP resources: the actions the gateway invokes (``handlers``)."""

"""The edge: the MCP protocol layer (``mcp/``), the OAuth authorization server (``auth/``) and the token
contract both share (``bearer/``, below both). Only ``gateway/mcp`` imports the MCP SDK.
"""

"""The gateway's protocol layer: the only package that imports ``mcp`` (DESIGN §2)."""

"""The gateway's MCP server over stdio (``scholar mcp``): the same server as on HTTP, on the SDK's stdio transport.

The transport points fd 1 at stderr while it serves; what the caller enters around the session (``around``: this
machine's backend) is entered inside it, so whatever that prints on start never reaches the wire.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from mcp.server.stdio import stdio_server

from scholar.gateway.mcp.server import build_server
from scholar.gateway.mcp.stored_listing import StoredListings

__all__ = ["serve_stdio_session"]


async def serve_stdio_session(
    around: AbstractContextManager[Any], stored_listings: StoredListings | None = None
) -> None:
    """Serve one MCP session on stdin/stdout inside ``around`` until the client closes stdin.

    ``around`` is entered on the event loop (it blocks until it is up, which is what the client waits for anyway);
    ``stored_listings`` keeps tools/list answers across sessions (``scholar.gateway.mcp.stored_listing``).
    """
    server = build_server(stored_listings=stored_listings)
    async with stdio_server() as (read, write):
        with around:
            await server.run(read, write, server.create_initialization_options())

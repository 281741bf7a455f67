"""``scholar mcp``: the gateway's MCP server over stdio, as MCP clients start a local server.

The same server as on HTTP (``scholar.gateway.mcp.server.build_server``: every tool, resource, prompt and
completion, the task utility); with no HTTP request behind a message, the caller is ``local`` and the listing is
the one ``--profile`` / ``--toolsets`` choose, read as a pair in place of ``SCHOLAR_PROFILE`` / ``SCHOLAR_TOOLSETS``
exactly as a URL's ``?profile=`` / ``?toolsets=`` are on HTTP. stdout carries only MCP: the SDK's transport points
fd 1 at stderr while it serves, and the backend is entered inside it, so whatever starts it prints (moto, a
handler's log) goes to stderr too.
"""

from __future__ import annotations

import anyio

from scholar.core.config import PROFILE_ENV, TOOLSETS_ENV, set_environment
from scholar.local.backend import entry_backend

__all__ = ["serve_stdio"]


def serve_stdio(*, profile: str | None = None, toolsets: str | None = None) -> None:
    """Serve MCP on stdin/stdout until the client closes stdin.

    Args:
        profile: the profile tools/list shows (default ``SCHOLAR_PROFILE``, else ``default``).
        toolsets: only these families, comma-separated (default ``SCHOLAR_TOOLSETS``).
    """
    selection = {PROFILE_ENV: profile, TOOLSETS_ENV: toolsets} if profile or toolsets else None
    anyio.run(_serve, selection)


async def _serve(selection: dict[str, str | None] | None) -> None:
    from mcp.server.stdio import stdio_server  # noqa: PLC0415  # the SDK (~0.7 s): only when serving MCP

    from scholar.gateway.mcp.server import build_server  # noqa: PLC0415

    server = build_server()
    async with stdio_server() as (read, write):
        # Entered while the transport holds fd 1: nothing the backend prints on start reaches the wire. It blocks the
        # loop until it is up, which is what the client waits for anyway.
        with entry_backend():
            if selection is not None:  # as on a URL: naming either replaces the pair (after the stand-in's template)
                set_environment(selection)
            await server.run(read, write, server.create_initialization_options())

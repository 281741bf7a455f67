"""``scholar mcp``: the gateway's MCP server over stdio, as MCP clients start a local server.

The same server as on HTTP (``scholar.gateway.mcp.server.build_server``: every tool, resource, prompt and
completion, the task utility); with no HTTP request behind a message, the caller is ``local`` and the listing is
the one ``--profile`` / ``--toolsets`` choose, read as a pair in place of ``SCHOLAR_PROFILE`` / ``SCHOLAR_TOOLSETS``
exactly as a URL's ``?profile=`` / ``?toolsets=`` are on HTTP. stdout carries only MCP: the backend is entered
inside the stdio transport (``scholar.gateway.mcp.stdio``), which points fd 1 at stderr while it serves.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import anyio

from scholar.core.config import PROFILE_ENV, TOOLSETS_ENV, set_environment
from scholar.local.backend import entry_backend

__all__ = ["serve_stdio"]


@contextmanager
def _backend(selection: dict[str, str | None] | None) -> Iterator[None]:
    with entry_backend():
        if selection is not None:  # after the stand-in exported its template's settings, so the options win
            set_environment(selection)
        yield


def serve_stdio(*, profile: str | None = None, toolsets: str | None = None) -> None:
    """Serve MCP on stdin/stdout until the client closes stdin.

    Args:
        profile: the profile tools/list shows (default ``SCHOLAR_PROFILE``, else ``default``).
        toolsets: only these families, comma-separated (default ``SCHOLAR_TOOLSETS``).
    """
    from scholar.gateway.mcp.stdio import serve_stdio_session  # noqa: PLC0415  # the MCP SDK (~0.7 s): only here

    selection = {PROFILE_ENV: profile, TOOLSETS_ENV: toolsets} if profile or toolsets else None
    anyio.run(serve_stdio_session, _backend(selection))

"""``scholar mcp``: the gateway's MCP server over stdio, as MCP clients start a local server.

The same server as on HTTP (``scholar.gateway.mcp.server.build_server``: every tool, resource, prompt and
completion, the task utility); with no HTTP request behind a message, the caller is ``local`` and the listing is
the one ``--profile`` / ``--toolsets`` choose, read as a pair in place of ``SCHOLAR_PROFILE`` / ``SCHOLAR_TOOLSETS``
exactly as a URL's ``?profile=`` / ``?toolsets=`` are on HTTP. stdout carries only MCP: the backend is opened
inside the stdio transport (``scholar.gateway.mcp.stdio``), which points fd 1 at stderr while it serves, and each
request runs with it current; the local backend opens at the first request that needs it (not the handshake or
tools/list). The
tools/list answers are kept in the data folder (``LISTINGS_FOLDER``, ``scholar.gateway.mcp.stored_listing``): a
start after the first lists the tools without importing the families' specs or building their schemas.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import anyio

from scholar.core.backend import Backend
from scholar.core.config import PROFILE_ENV, TOOLSETS_ENV, set_environment
from scholar.local.backend import LOCAL, backend_name, opened_backend
from scholar.local.home import scholar_home

__all__ = ["LISTINGS_FOLDER", "serve_stdio"]

LISTINGS_FOLDER = Path("cache") / "tools-list"  # in the data folder: tools/list answers kept across starts


@contextmanager
def _backend(selection: dict[str, str | None] | None) -> Iterator[Backend | None]:
    with opened_backend() as backend:
        if selection is not None:  # after the stand-in exported its template's settings, so the options win
            set_environment(selection)
        yield backend


def serve_stdio(*, profile: str | None = None, toolsets: str | None = None) -> None:
    """Serve MCP on stdin/stdout until the client closes stdin.

    Args:
        profile: the profile tools/list shows (default ``SCHOLAR_PROFILE``, else ``default``).
        toolsets: only these families, comma-separated (default ``SCHOLAR_TOOLSETS``).
    """
    from scholar.gateway.mcp.stored_listing import StoredListings  # noqa: PLC0415  # this command only

    stored = StoredListings(scholar_home() / LISTINGS_FOLDER)  # hashes the code on a thread meanwhile
    from scholar.gateway.mcp.stdio import serve_stdio_session  # noqa: PLC0415  # the MCP SDK (~0.7 s): only here

    selection = {PROFILE_ENV: profile, TOOLSETS_ENV: toolsets} if profile or toolsets else None
    # The local backend exports nothing a listing reads: it opens when a request first needs it (a tool call, a
    # resource, a task), so the first tools/list waits neither for the store nor for interrupted work to resume.
    # The AWS stand-in exports its template's settings, which the options must override: it is entered first.
    on_first_need = backend_name() == LOCAL
    if on_first_need and selection is not None:
        set_environment(selection)
    around = _backend(None if on_first_need else selection)
    anyio.run(partial(serve_stdio_session, around, stored, on_first_need=on_first_need))

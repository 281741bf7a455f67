"""The gateway's MCP server over stdio (``scholar mcp``): the same server as on HTTP, on the SDK's stdio transport.

The transport points fd 1 at stderr while it serves; what the caller enters around the session (``around``: this
machine's backend) is entered inside it, so whatever that prints on start never reaches the wire. Entered
``on_first_need``, it waits for the first request that may touch it: the handshake and tools/list are answered
without it (they read the catalogue and the settings only), so a client's first listing does not wait for it.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, ExitStack
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.stdio import stdio_server

from scholar.gateway.mcp.server import build_server
from scholar.gateway.mcp.stored_listing import StoredListings

__all__ = ["WITHOUT_AROUND", "serve_stdio_session"]

# What is answered without ``around``: the handshake of either era (initialize; 2026's server/discover), a ping and
# tools/list (notifications, too, carry no work).
WITHOUT_AROUND = frozenset({"initialize", "server/discover", "ping", "tools/list"})


class _EnteredOnFirstNeed:
    """Middleware (outermost): enters ``around`` into ``stack`` before the first request outside ``WITHOUT_AROUND``.

    Entering blocks the event loop with no await inside, as entering it before the session did, so no other
    message is handled halfway through it and a request behind it finds it entered.
    """

    def __init__(self, stack: ExitStack, around: AbstractContextManager[Any]) -> None:
        self._stack = stack
        self._around: AbstractContextManager[Any] | None = around

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if self._around is not None and ctx.request_id is not None and ctx.method not in WITHOUT_AROUND:
            around, self._around = self._around, None
            self._stack.enter_context(around)
        return await call_next(ctx)


async def serve_stdio_session(
    around: AbstractContextManager[Any], stored_listings: StoredListings | None = None, *, on_first_need: bool = False
) -> None:
    """Serve one MCP session on stdin/stdout inside ``around`` until the client closes stdin.

    Args:
        around: entered on the event loop (it blocks until it is up) and left when the session ends.
        stored_listings: keeps tools/list answers across sessions (``scholar.gateway.mcp.stored_listing``).
        on_first_need: enter ``around`` at the first request outside ``WITHOUT_AROUND`` (else before the first).
    """
    server = build_server(stored_listings=stored_listings)
    async with stdio_server() as (read, write):
        with ExitStack() as stack:
            if on_first_need:
                server.middleware.insert(0, _EnteredOnFirstNeed(stack, around))
            else:
                stack.enter_context(around)
            await server.run(read, write, server.create_initialization_options())

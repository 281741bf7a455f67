"""The gateway's MCP server over stdio (``scholar mcp``): the same server as on HTTP, on the SDK's stdio transport.

The transport points fd 1 at stderr while it serves; the backend the caller opens (``around``: this machine's, which
yields the ``Backend`` every request runs on, or None where the process environment is the backend) is opened inside
it, so whatever that prints on start never reaches the wire. Each request that may touch it runs with it current (a
context variable: entered per request, since each request is a task of its own). Opened ``on_first_need``, it waits
for the first such request: the handshake and tools/list are answered without it (they read the catalogue and the
settings only), so a client's first listing does not wait for it.

A backend that cannot open (a corrupt database, a read-only data folder, a file where the folder should be) is
answered as the CLI types it: each tools/call gets the ``isError`` envelope of the store's own error (e.g.
``unavailable`` naming the data folder, retryable as the store says), any other request its JSON-RPC error; never
code 0, and never a later call run without a backend. Every line of stdin is checked as JSON-RPC first
(``scholar.gateway.mcp.stdio_lines``), so a malformed one is answered -32700 / -32600 instead of dropped.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, ExitStack
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.stdio import stdio_server

from scholar.core.backend import Backend, using
from scholar.core.errors import InternalError, ScholarError, UnavailableError
from scholar.gateway.mcp.server import build_server
from scholar.gateway.mcp.stdio_lines import CheckedLines, claimed_stdin
from scholar.gateway.mcp.stored_listing import StoredListings

__all__ = ["WITHOUT_AROUND", "serve_stdio_session"]

# What is answered without ``around``: the handshake of either era (initialize; 2026's server/discover), a ping and
# tools/list (notifications, too, carry no work).
WITHOUT_AROUND = frozenset({"initialize", "server/discover", "ping", "tools/list"})


class _OnBackend:
    """Middleware (outermost): every request outside ``WITHOUT_AROUND`` runs on the backend ``around`` opens, opened
    into ``stack`` at the first such request (or before the session: ``open_now``).

    Opening blocks the event loop with no await inside, as opening it before the session did, so no other message is
    handled halfway through it and a request behind it finds it open.
    """

    def __init__(self, stack: ExitStack, around: AbstractContextManager[Backend | None], *, open_now: bool) -> None:
        self._stack = stack
        self._around: AbstractContextManager[Backend | None] | None = around
        self._backend: Backend | None = None
        self._failure: ScholarError | None = None
        if open_now:
            self._open()

    def _open(self) -> None:
        around, self._around = self._around, None
        if around is None:
            return
        try:
            self._backend = self._stack.enter_context(around)
        except ScholarError as exc:
            self._failure = exc
        except OSError as exc:
            where = f" {exc.filename}" if exc.filename else ""
            self._failure = UnavailableError(f"the data folder could not be opened:{where} {exc.strerror or exc}",
                                             reason="data_folder", hint="Check SCHOLAR_HOME and run `scholar doctor`.")
        except Exception as exc:  # noqa: BLE001  # any other failure to open is still answered, typed, every time
            self._failure = InternalError(f"the backend could not be opened: {type(exc).__name__}: {exc}")

    def _refuse(self, ctx: ServerRequestContext[Any, Any], failure: ScholarError) -> HandlerResult:
        # Only after a failure to open: the error shapes of tools/call and of the other requests.
        from scholar.gateway.mcp.actions import protocol_error  # noqa: PLC0415  # only when the store failed
        from scholar.gateway.mcp.dispatch import error_result  # noqa: PLC0415  # only when the store failed

        if ctx.method == "tools/call":
            return error_result(failure)
        raise protocol_error(failure.envelope_body())

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.request_id is None or ctx.method in WITHOUT_AROUND:
            return await call_next(ctx)
        self._open()
        if self._failure is not None:
            return self._refuse(ctx, self._failure)
        if self._backend is None:
            return await call_next(ctx)
        with using(self._backend):
            return await call_next(ctx)


async def serve_stdio_session(
    around: AbstractContextManager[Backend | None], stored_listings: StoredListings | None = None, *,
    on_first_need: bool = False,
) -> None:
    """Serve one MCP session on stdin/stdout inside ``around`` until the client closes stdin.

    Args:
        around: opens the backend on the event loop (it blocks until it is up), closed when the session ends.
        stored_listings: keeps tools/list answers across sessions (``scholar.gateway.mcp.stored_listing``).
        on_first_need: enter ``around`` at the first request outside ``WITHOUT_AROUND`` (else before the first).
    """
    server = build_server(stored_listings=stored_listings)
    with claimed_stdin() as stdin:
        lines = CheckedLines(stdin)
        async with stdio_server(stdin=lines) as (read, write):  # type: ignore[arg-type]  # only iterated, by line
            lines.attach(write)
            with ExitStack() as stack:
                server.middleware.insert(0, _OnBackend(stack, around, open_now=not on_first_need))
                await server.run(read, write, server.create_initialization_options())

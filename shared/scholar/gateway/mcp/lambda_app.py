"""The gateway under Mangum: lifespan off, the SDK session manager entered once per environment.

Mangum runs every invocation on the thread's event loop and would enter the ASGI lifespan each time;
the SDK's session manager can start only once. So at cold start we park a task on a loop of our own
that enters ``session_manager.run()`` and stays there, wait until it is ready (PLATFORM_NOTES), and
make that loop the thread's current one before every invocation.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from functools import cache
from typing import Any

from mangum import Mangum

from scholar.families import all_tools
from scholar.gateway.mcp.app import create_app
from scholar.gateway.mcp.tools import wire_tools
from scholar.runtime.observability import get_tracer
from scholar.store import aws


@dataclass(frozen=True)
class _Gateway:
    handler: Mangum
    loop: asyncio.AbstractEventLoop


@cache
def _gateway() -> _Gateway:
    app = create_app()
    # Mangum runs on the thread's current loop; set one explicitly (implicit creation is deprecated).
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    handler = Mangum(app, lifespan="off", api_gateway_base_path="/")
    ready = asyncio.Event()

    async def hold_session_manager() -> None:
        async with app.state.session_manager.run():
            ready.set()
            await asyncio.Event().wait()  # parked for the life of the environment

    app.state.session_task = loop.create_task(hold_session_manager())
    loop.run_until_complete(ready.wait())
    return _Gateway(handler, loop)


def prime() -> None:
    """Do now what the first request would (SnapStart's before-snapshot hook); opens no connection.

    Builds the app and parks the session manager, every tool's wire form (schemas), the modules a first request
    imports (``_import_deferred_modules``), the tracer where tracing is on (X-Ray SDK import and patching; its UDP
    emitter is connectionless), and the Lambda client, so boto3 is imported (the client itself is forgotten after
    restore).
    """
    _gateway()
    wire_tools(all_tools().values())
    _import_deferred_modules()
    get_tracer()
    aws.client("lambda")


def _import_deferred_modules() -> None:
    """Import what the server leaves to a request's first need (so that ``scholar mcp`` answers its handshake and
    tools/list without it): resources, prompts and completions, the task store and the tool-call path."""
    from scholar.core import validation  # noqa: F401, PLC0415  # scholar.runtime.calls.run_tool
    from scholar.gateway.mcp import completions, resources  # noqa: F401, PLC0415  # scholar.gateway.mcp.server
    from scholar.runtime import cancel, invocation, invoke, queue, reconcile  # noqa: F401, PLC0415  # task_protocol
    from scholar.store import tasks  # noqa: F401, PLC0415  # scholar.gateway.mcp.task_protocol.shared


def handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Answer one API Gateway event (REST v1 or HTTP v2)."""
    gateway = _gateway()
    # Something else on this thread (a test's anyio.run) may have replaced the current loop.
    asyncio.set_event_loop(gateway.loop)
    return gateway.handler(event, context)

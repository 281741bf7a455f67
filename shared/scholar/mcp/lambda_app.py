"""The gateway under Mangum: lifespan off, the SDK session manager entered once per environment.

Mangum runs every invocation on the thread's event loop and would enter the ASGI lifespan each time;
the SDK's session manager can start only once. So at cold start we park a task on Mangum's loop that
enters ``session_manager.run()`` and stays there, and wait until it is ready (PLATFORM_NOTES).
"""

from __future__ import annotations

import asyncio
from functools import cache
from typing import Any

from mangum import Mangum

from scholar.mcp.app import create_app


@cache
def get_handler() -> Mangum:
    """The Mangum handler of this execution environment (built on first use)."""
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
    return handler


def handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return get_handler()(event, context)

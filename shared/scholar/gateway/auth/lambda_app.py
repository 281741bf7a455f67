"""The authorization server under Mangum: one app and one event loop per execution environment, lifespan off."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from functools import cache
from typing import Any

from mangum import Mangum

from scholar.gateway.auth.app import create_auth_app


@dataclass(frozen=True)
class _Server:
    handler: Mangum
    loop: asyncio.AbstractEventLoop


@cache
def _server() -> _Server:
    loop = asyncio.new_event_loop()  # Mangum runs on the thread's current loop; make one explicitly
    asyncio.set_event_loop(loop)
    return _Server(Mangum(create_auth_app(), lifespan="off", api_gateway_base_path="/"), loop)


def handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Answer one API Gateway event (REST v1 or HTTP v2)."""
    server = _server()
    asyncio.set_event_loop(server.loop)
    return server.handler(event, context)

"""The gateway's ASGI app: request guards in front of the SDK's stateless JSON Streamable HTTP app.

Guards answer before the SDK: ``GET /mcp`` (a stateless server has no stream to offer, and on a
buffered Lambda it would hang until timeout), ``subscriptions/listen`` (same), anything but
``POST /mcp`` exactly (``/mcp/`` would 307-redirect and lose the API Gateway stage prefix), and
bodies over the cap. Serves 2025-11-25 (initialize) and 2026-07-28 (stateless) clients alike.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette

from scholar.mcp import landing
from scholar.mcp.listing import ListingMemo
from scholar.mcp.server import build_server

MCP_PATH = "/mcp"
MAX_BODY_BYTES = 4 * 1024 * 1024

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


async def _reply(send: Send, status: int, body: dict[str, Any], extra: list[tuple[bytes, bytes]] | None = None) -> None:
    payload = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers + (extra or [])})
    await send({"type": "http.response.body", "body": payload})


def _jsonrpc_error(code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}


class RequestGuard:
    """ASGI middleware: refuse what the SDK would hang on or mishandle, then pass the request through."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.listing = ListingMemo()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        if path == landing.LANDING_PATH and scope["method"] in ("GET", "HEAD"):  # a person in a browser
            await landing.respond(scope, send)
            return
        if path != MCP_PATH:
            await _reply(send, 404, _jsonrpc_error(-32600, f"not found: the MCP endpoint is POST {MCP_PATH}"))
            return
        if scope["method"] != "POST":
            await _reply(
                send,
                405,
                _jsonrpc_error(-32600, "method not allowed: this server is stateless; use POST"),
                [(b"allow", b"POST")],
            )
            return
        headers = dict(scope.get("headers") or [])
        if headers.get(b"mcp-method") == b"subscriptions/listen":
            await _reply(send, 405, _jsonrpc_error(-32601, "subscriptions/listen is not offered by this server"))
            return
        body, too_large = await _read_body(receive)
        if too_large:
            await _reply(send, 413, _jsonrpc_error(-32600, f"request body over {MAX_BODY_BYTES} bytes"))
            return
        message = _message_of(body)
        if message.get("method") == "subscriptions/listen":
            await _reply(send, 405, _jsonrpc_error(-32601, "subscriptions/listen is not offered by this server"))
            return
        key = ListingMemo.key(scope, message)
        if key is not None:
            if await self.listing.replay(key, message["id"], send):
                return
            send = self.listing.recording(key, send)
        await self.app(scope, _replay(body), send)


async def _read_body(receive: Receive) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return b"", True
        chunks.append(chunk)
        if not message.get("more_body"):
            break
    return b"".join(chunks), False


def _replay(body: bytes) -> Receive:
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    return receive


def _message_of(body: bytes) -> dict[str, Any]:
    """The JSON-RPC message, or {} for anything else (batches, invalid JSON: the SDK answers those)."""
    try:
        message = json.loads(body)
    except ValueError:
        return {}
    return message if isinstance(message, dict) else {}


LOCAL_SECURITY = TransportSecuritySettings(
    enable_dns_rebinding_protection=True,
    allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
    allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
)
# Host-header (DNS-rebinding) protection guards browsers reaching a server on localhost. Behind API
# Gateway the Host is the API's own domain and callers are authenticated there, so it is off; the SDK
# default (host 127.0.0.1) would answer 421 to every deployed request.
DEPLOYED_SECURITY = TransportSecuritySettings(enable_dns_rebinding_protection=False)


def create_app(*, local: bool = False) -> Starlette:
    """The gateway app. Its lifespan runs the SDK session manager (Lambda enters it once; see lambda_app).

    Args:
        local: serving on this machine (``make serve``): keep DNS-rebinding protection on.
    """
    server = build_server()
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        json_response=True,
        max_request_body_size=MAX_BODY_BYTES,
        transport_security=LOCAL_SECURITY if local else DEPLOYED_SECURITY,
    )
    app.add_middleware(RequestGuard)
    app.state.session_manager = server.session_manager
    return app

"""The gateway's ASGI app: request guards in front of the SDK's stateless JSON Streamable HTTP app.

Guards answer before the SDK: on the local server a Host or Origin that is not exactly this server's
(DNS rebinding; every path, the landing page too), ``GET /mcp`` (a stateless server has no stream to
offer, and on a buffered Lambda it would hang until timeout), ``subscriptions/listen`` (same), anything
but ``POST /mcp`` exactly (``/mcp/`` would 307-redirect and lose the API Gateway stage prefix), a deployed
request without an authenticated identity (401, unless AuthMode=None; in OAuth mode the bearer token or API
key is checked here, ``scholar.gateway.mcp.access``, and a tool needing a scope the token lacks is 403), bodies over
the cap (a declared one before it is read), malformed JSON-RPC envelopes and 2026-07-28 routing headers that
do not mirror the body (``scholar.gateway.mcp.checks``). The tools/list memo replays only after all of these and the
SDK's transport checks pass. Serves 2025-11-25 (initialize) and 2026-07-28 (stateless) clients alike.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette

from scholar.core.config import get_settings
from scholar.gateway.mcp import access as bearer
from scholar.gateway.mcp import checks, landing
from scholar.gateway.mcp.listing import ListingMemo
from scholar.gateway.mcp.principal import authenticated_identity, is_deployed
from scholar.gateway.mcp.server import build_server

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


def _jsonrpc_error(code: int, message: str, request_id: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


async def _refuse(send: Send, refusal: checks.Refusal) -> None:
    await _reply(send, refusal.status, _jsonrpc_error(refusal.code, refusal.message, refusal.request_id))


async def _challenge(send: Send, refusal: bearer.Challenge) -> None:
    await _reply(send, refusal.status, _jsonrpc_error(-32600, refusal.message),
                 [(b"www-authenticate", refusal.www_authenticate.encode("latin-1"))])


class RequestGuard:
    """ASGI middleware: refuse what the SDK would hang on or mishandle, then pass the request through.

    Args:
        app: the SDK's Starlette app.
        security: the transport security the SDK was given (the memo checks requests against it).
        exact_hosts: refuse a Host or Origin that is not exactly this server's (the local server; behind
            API Gateway the Host is the API's own and callers are authenticated there).
    """

    def __init__(self, app: Any, security: TransportSecuritySettings | None = None, *,
                 exact_hosts: bool = False) -> None:
        self.app = app
        self.security = security or DEPLOYED_SECURITY
        self.exact_hosts = exact_hosts
        self.listing = ListingMemo()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.exact_hosts and (rebinding := checks.rebinding_refusal(scope)) is not None:
            await _refuse(send, rebinding)
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
        settings = get_settings()
        headers = dict(scope.get("headers") or [])
        oauth = settings.auth_mode == bearer.OAUTH_MODE
        if oauth:
            # OAuth mode: /mcp has no API Gateway authentication; the bearer token (or API key) is checked here.
            caller = await bearer.authenticate(scope, headers)
            if isinstance(caller, bearer.Challenge):
                await _challenge(send, caller)
                return
            bearer.bind(scope, caller)
        elif is_deployed(scope) and authenticated_identity(scope) is None and not settings.shared_principal:
            # API Gateway authenticates (API key or JWT); a request it let through without an identity must
            # not fall back to a principal shared with others (docs/security.md).
            await _reply(send, 401, _jsonrpc_error(-32600, "unauthorized: this server requires an API key or token"))
            return
        if headers.get(b"mcp-method") == b"subscriptions/listen":
            await _reply(send, 405, _jsonrpc_error(-32601, "subscriptions/listen is not offered by this server"))
            return
        body = await checks.read_body(receive, headers, MAX_BODY_BYTES)
        if body.too_large:
            await _reply(send, 413, _jsonrpc_error(-32600, f"request body over {MAX_BODY_BYTES} bytes"),
                         [(b"connection", b"close")])
            await checks.drain(receive)  # after the answer: a client still sending hears it rather than a reset
            return
        message, refusal = checks.parse_message(body.data)
        refusal = refusal or checks.envelope_refusal(message)
        if refusal is not None:
            await _refuse(send, refusal)
            return
        denied = bearer.missing_scope(scope, message) if oauth else None  # before a batch is left to the SDK
        message = message if isinstance(message, dict) else {}
        if denied is not None:
            await _challenge(send, denied)
            return
        if message.get("method") == "subscriptions/listen":
            await _reply(send, 405, _jsonrpc_error(-32601, "subscriptions/listen is not offered by this server"))
            return
        if (mismatch := checks.routing_refusal(scope, message)) is not None:
            await _refuse(send, mismatch)
            return
        key = ListingMemo.key(scope, message)
        # The memo answers for the SDK, so it first passes the SDK's transport checks (PLATFORM_NOTES).
        if key is not None and await checks.passes_transport_checks(scope, self.security):
            if await self.listing.replay(key, message["id"], send):
                return
            send = self.listing.recording(key, send)
        await self.app(scope, _replay(body.data), send)


def _replay(body: bytes) -> Receive:
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    return receive


# The SDK's own check, kept as a second layer; its ``:*`` patterns match by prefix, so the guard's exact
# check (checks.rebinding_refusal) runs first.
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
    security = LOCAL_SECURITY if local else DEPLOYED_SECURITY
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        json_response=True,
        max_request_body_size=MAX_BODY_BYTES,
        transport_security=security,
    )
    app.add_middleware(RequestGuard, security=security, exact_hosts=local)
    app.state.session_manager = server.session_manager
    return app

"""``scholar serve`` (and ``make serve``): the gateway's HTTP app on this machine's backend.

The app and its Host/Origin rules are the local server's (``scholar.local.server``). On loopback one person uses it
and every caller without a key is ``local``. Bound to any other interface, callers must be told apart: with
``SCHOLAR_AUTH_MODE=OAuth`` the gateway's bearer check does it, otherwise ``KeyGuard`` admits only the keys made with
``scholar keys add`` (a request with no key or an unknown one is answered 401 before the app sees it) and binds
the caller as ``key:<NAME>`` — the local server's own habit of taking any ``x-api-key`` as a new caller stays on
loopback only. ``SCHOLAR_BACKEND=aws`` runs today's embedded stand-in server unchanged (``scholar.local.server``).
"""

from __future__ import annotations

import ipaddress
import json
import logging
from typing import Any

from scholar.core.config import get_settings, set_environment
from scholar.core.errors import ForbiddenError
from scholar.local import keys
from scholar.local.backend import AWS, backend_name, entry_backend
from scholar.store.pdf_uploads import serve_uploads_at

logger = logging.getLogger(__name__)

__all__ = ["KeyGuard", "is_loopback", "serve_http"]

OAUTH_MODE = "OAuth"
API_KEY_HEADER = b"x-api-key"
PRINCIPAL_SCOPE_KEY = "scholar.principal"  # scholar.gateway.mcp.principal.BOUND_PRINCIPAL


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback interface (``localhost``, 127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class KeyGuard:
    """ASGI: HTTP requests must carry a key ``scholar keys add`` made; the caller becomes ``key:<NAME>``."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = next((value for name, value in scope.get("headers") or [] if name == API_KEY_HEADER), b"")
        principal = keys.principal_of(given.decode("latin-1")) if given else None
        if principal is None:
            await _refuse(send, "missing x-api-key" if not given else "unknown x-api-key")
            return
        await self.app({**scope, PRINCIPAL_SCOPE_KEY: principal}, receive, send)


async def _refuse(send: Any, why: str) -> None:
    body = json.dumps({"error": {"code": "forbidden", "message": f"{why}: this server admits the keys its owner made "
                                 "(scholar keys add NAME)"}}).encode()
    headers = [(b"content-type", b"application/json"), (b"www-authenticate", b'ApiKey header="x-api-key"')]
    await send({"type": "http.response.start", "status": 401, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def serve_http(*, host: str | None = None, port: int | None = None) -> None:
    """Serve POST /mcp until interrupted.

    Raises:
        ForbiddenError: bound beyond loopback with neither OAuth nor a single key to admit.
        SystemExit: the port is taken.
    """
    import uvicorn  # noqa: PLC0415  # the HTTP server: only this command

    from scholar.local.http_app import gateway_app, listening_socket  # noqa: PLC0415  # the mcp SDK: only here

    settings = get_settings()
    host, port = host or settings.host, port or settings.port
    guarded = not is_loopback(host) and settings.auth_mode != OAUTH_MODE
    if guarded and not keys.key_names():
        raise ForbiddenError(f"{host} is not loopback and no key exists: anyone who reaches it would be served",
                             hint="Make a key per person with `scholar keys add NAME` (or set SCHOLAR_AUTH_MODE=OAuth),"
                                  " or bind 127.0.0.1.")
    if backend_name() == AWS:
        from scholar.local import server  # noqa: PLC0415  # moto + template.yaml: the stand-in only

        server.serve(host, port)
        return
    sock = listening_socket(host, port)
    if settings.auth_mode == OAUTH_MODE and not settings.oauth.oidc_issuer:
        # No sign-in provider configured: the local OpenID stand-in signs the person at this machine in, as on the
        # AWS stand-in (scholar.local.server).
        from scholar.local.http_app import oauth_settings  # noqa: PLC0415  # OAuth mode only

        set_environment(oauth_settings(settings.oauth.public_url or f"http://{host}:{port}")[0])
    with sock, entry_backend():  # uvicorn runs its loop in this thread: its requests see the backend entered here
        serve_uploads_at(settings.oauth.public_url or f"http://{host}:{port}")  # upload_pdf's links
        app = gateway_app()
        print(f"Scholar MCP at http://{host}:{port}/mcp (local backend; "
              f"{'keys required' if guarded else 'loopback'})", flush=True)
        uvicorn.Server(uvicorn.Config(KeyGuard(app) if guarded else app, log_level="info")).run(sockets=[sock])

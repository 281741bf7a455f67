"""The gateway's HTTP app as this machine serves it, and the socket it listens on: what ``scholar serve`` runs.

No moto and no boto3 here (``scholar serve`` on the local backend runs from a plain install); the embedded AWS
stand-in's server (``scholar.local.server``) serves the same app. With ``SCHOLAR_AUTH_MODE=OAuth`` the
authorization server and an OpenID stand-in sit beside the gateway on the same port (``PathRouter``).
"""

from __future__ import annotations

import json
import secrets
import socket
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from scholar.core.config import ENV_PREFIX, OIDC_CLIENT_ID_ENV, OIDC_ISSUER_ENV, PUBLIC_URL_ENV, get_settings
from scholar.local.uploads import UPLOADS_PATH, upload_app

__all__ = ["LOCAL_OIDC_CLIENT", "LOCAL_OIDC_PATH", "OAUTH_MODE", "PathRouter", "default_template", "gateway_app",
           "listening_socket", "oauth_settings"]

Guard = Callable[[dict[str, Any]], Any]  # a scope → a refusal (with .status and .message), or None
OAUTH_MODE = "OAuth"
LOCAL_OIDC_PATH = "/local-oidc"
LOCAL_OIDC_CLIENT = "scholar-local"


def default_template() -> Path:
    """template.yaml of this checkout: the working directory's, else the one beside shared/.

    Raises:
        FileNotFoundError: neither exists (an installed package without its repository).
    """
    for candidate in (Path.cwd() / "template.yaml", Path(__file__).resolve().parents[3] / "template.yaml"):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError("template.yaml not found: run from the repository root or pass --template")


def gateway_app() -> Any:
    """The gateway app; with ``SCHOLAR_AUTH_MODE=OAuth`` the authorization server and the OpenID stand-in beside it.

    On the local backend ``/uploads/`` takes upload_pdf's uploads (``scholar.local.uploads``).
    """
    from scholar.gateway.mcp.app import create_app  # noqa: PLC0415  # imports mcp (~0.7 s): only when serving

    gateway = create_app(local=True)
    settings = get_settings()
    uploads = {UPLOADS_PATH: upload_app} if settings.backend == "local" else {}
    if settings.auth_mode != OAUTH_MODE:
        return PathRouter(gateway, uploads) if uploads else gateway
    from scholar.gateway.auth.app import create_auth_app  # noqa: PLC0415  # OAuth mode only
    from scholar.gateway.auth.metadata import CALLBACK_PATH  # noqa: PLC0415  # OAuth mode only
    from scholar.gateway.mcp.checks import rebinding_refusal  # noqa: PLC0415  # with the gateway (imports mcp)
    from scholar.local.oidc import LocalOidcProvider  # noqa: PLC0415  # OAuth mode only

    base = settings.oauth.public_url or f"http://{settings.host}:{settings.port}"
    secret = settings.secrets.get("oidc_client_secret")
    provider = LocalOidcProvider(issuer=settings.oauth.oidc_issuer or f"{base}{LOCAL_OIDC_PATH}",
                                 client_id=settings.oauth.oidc_client_id or LOCAL_OIDC_CLIENT,
                                 client_secret=secret.get_secret_value() if secret else "",
                                 redirect_uri=f"{base}{CALLBACK_PATH}")
    return PathRouter(gateway, {"/.well-known/": create_auth_app(local=True), "/oauth/": create_auth_app(local=True),
                                f"{LOCAL_OIDC_PATH}/": provider.app(), **uploads}, guard=rebinding_refusal)


class PathRouter:
    """An ASGI app that sends HTTP requests by path prefix, and everything else (lifespan) to the gateway.

    Locally one server stands in for API Gateway's routes: ``/.well-known/*`` and ``/oauth/*`` to the
    authorization server, ``/local-oidc/*`` to the OpenID stand-in, the rest to the gateway. ``guard`` (the
    gateway's exact Host/Origin check, ``scholar.gateway.mcp.checks.rebinding_refusal``) runs before every
    prefixed app, as the gateway runs it before its own paths: one guard on every path of the local server.
    """

    def __init__(self, default: Any, prefixes: Mapping[str, Any], *, guard: Guard | None = None) -> None:
        self.default = default
        self.prefixes = dict(prefixes)
        self.guard = guard

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            for prefix, app in self.prefixes.items():
                if scope["path"].startswith(prefix):
                    if self.guard is not None and (refusal := self.guard(scope)) is not None:
                        await _refuse(send, refusal.status, refusal.message)
                        return
                    await app(scope, receive, send)
                    return
        await self.default(scope, receive, send)


async def _refuse(send: Any, status: int, message: str) -> None:
    """OAuth's error shape (these paths speak OAuth, not JSON-RPC), with the guard's status (421 or 403)."""
    body = json.dumps({"error": "invalid_request", "error_description": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"cache-control", b"no-store")]})
    await send({"type": "http.response.body", "body": body})


def oauth_settings(public_url: str) -> tuple[dict[str, str], dict[str, str]]:
    """The environment and template parameters of the local OAuth mode: the stand-in is the OpenID provider.

    Returns:
        ``(environment, parameters)`` for ``LocalStack.configure``.
    """
    issuer = f"{public_url}{LOCAL_OIDC_PATH}"
    env = {PUBLIC_URL_ENV: public_url, OIDC_ISSUER_ENV: issuer, OIDC_CLIENT_ID_ENV: LOCAL_OIDC_CLIENT,
           f"{ENV_PREFIX}OIDC_CLIENT_SECRET": secrets.token_urlsafe(24)}
    return env, {"AuthMode": OAUTH_MODE, "OidcIssuerUrl": issuer, "OidcClientId": LOCAL_OIDC_CLIENT}


def listening_socket(host: str, port: int) -> socket.socket:
    """A bound TCP socket for uvicorn, with Nagle off on the connections it accepts.

    uvicorn writes a response's head and body separately; with Nagle on, a small body waits for the
    client's delayed ACK (~40 ms on Linux). Linux hands TCP_NODELAY from the listening socket to the
    accepted ones.

    It listens at once: the banner saying where the server is may be printed before uvicorn's loop starts, and a
    client that connects then is queued, not refused.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.listen(2048)  # uvicorn's backlog
    return sock

"""The local MCP server: LocalStack (moto + template.yaml) behind the gateway's ASGI app on uvicorn.

``serve`` is ``make serve``; ``LocalServer`` runs the same thing on a free loopback port in a
background thread for tests. The app comes from ``scholar.gateway.mcp.app.create_app(local=True)``
unless a test passes its own factory.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import secrets
import socket
import threading
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from pathlib import Path
from types import TracebackType
from typing import Any

import uvicorn

from scholar.core.config import (
    AUTH_MODE_ENV,
    BACKEND_ENV,
    ENV_PREFIX,
    HOME_ENV,
    OIDC_CLIENT_ID_ENV,
    OIDC_ISSUER_ENV,
    PUBLIC_URL_ENV,
    get_environ,
    get_settings,
    set_environment,
)
from scholar.local.invoke import Handler
from scholar.local.stack import LocalStack

logger = logging.getLogger(__name__)

__all__ = ["LocalServer", "MachineStack", "PathRouter", "default_template", "listening_socket", "oauth_settings",
           "serve"]

AppFactory = Callable[[], Any]
Guard = Callable[[dict[str, Any]], Any]  # a scope → a refusal (with .status and .message), or None
STARTUP_TIMEOUT_S = 30.0
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


def _gateway_app() -> Any:
    """The gateway app; with ``SCHOLAR_AUTH_MODE=OAuth`` the authorization server and the OpenID stand-in beside it."""
    from scholar.gateway.mcp.app import create_app  # noqa: PLC0415  # imports mcp (~0.7 s): only when serving

    gateway = create_app(local=True)
    settings = get_settings()
    if settings.auth_mode != OAUTH_MODE:
        return gateway
    from scholar.gateway.auth.app import create_auth_app  # noqa: PLC0415  # OAuth mode only
    from scholar.gateway.auth.metadata import CALLBACK_PATH  # noqa: PLC0415
    from scholar.gateway.mcp.checks import rebinding_refusal  # noqa: PLC0415  # with the gateway (imports mcp)
    from scholar.local.oidc import LocalOidcProvider  # noqa: PLC0415

    base = settings.oauth.public_url or f"http://{settings.host}:{settings.port}"
    secret = settings.secrets.get("oidc_client_secret")
    provider = LocalOidcProvider(issuer=settings.oauth.oidc_issuer or f"{base}{LOCAL_OIDC_PATH}",
                                 client_id=settings.oauth.oidc_client_id or LOCAL_OIDC_CLIENT,
                                 client_secret=secret.get_secret_value() if secret else "",
                                 redirect_uri=f"{base}{CALLBACK_PATH}")
    return PathRouter(gateway, {"/.well-known/": create_auth_app(local=True), "/oauth/": create_auth_app(local=True),
                                f"{LOCAL_OIDC_PATH}/": provider.app()}, guard=rebinding_refusal)


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


def _wants_oauth(extra_env: Mapping[str, str] | None) -> bool:
    return (dict(extra_env or {}).get(AUTH_MODE_ENV) or os.environ.get(AUTH_MODE_ENV)) == OAUTH_MODE


def serve(host: str, port: int, *, template: Path | None = None) -> None:
    """Run the local server in the foreground until interrupted (``make serve``).

    Args:
        host: interface to bind (127.0.0.1 unless you mean to expose it).
        port: TCP port.
        template: the SAM template; defaults to ``default_template()``.

    Raises:
        SystemExit: the port is taken (the message names the setting that picks another).
    """
    # Bind first: a busy port fails at once, before the stack starts and before any banner claims the URL.
    try:
        sock = listening_socket(host, port)
    except OSError as exc:
        if exc.errno not in (errno.EADDRINUSE, errno.EACCES):
            raise
        raise SystemExit(
            f"cannot listen on {host}:{port} ({exc.strerror}); pick another port with SCHOLAR_PORT=<port> "
            f"(and the interface with SCHOLAR_HOST), e.g. SCHOLAR_PORT={port + 1} make serve"
        ) from exc
    with sock:
        stack = LocalStack(template=template or default_template())
        if _wants_oauth(None):
            stack.configure(*oauth_settings(os.environ.get(PUBLIC_URL_ENV) or f"http://{host}:{port}"))
        with stack:
            logger.info("AWS stand-in ready in %.2f s (%s)", stack.startup_s, stack.endpoint_url)
            print(f"Scholar MCP at http://{host}:{port}/mcp (AWS stand-in: moto at {stack.endpoint_url})", flush=True)
            uvicorn.Server(uvicorn.Config(_gateway_app(), log_level="info")).run(sockets=[sock])


def listening_socket(host: str, port: int) -> socket.socket:
    """A bound TCP socket for uvicorn, with Nagle off on the connections it accepts.

    uvicorn writes a response's head and body separately; with Nagle on, a small body waits for the
    client's delayed ACK (~40 ms on Linux). Linux hands TCP_NODELAY from the listening socket to the
    accepted ones.
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
    return sock


class MachineStack:
    """The local backend (``scholar.local.machine``: SQLite and files under ``home``, executions on threads) in the
    place of ``LocalStack``: what ``scholar serve`` runs, for a ``LocalServer`` in tests.

    ``start`` exports ``extra_env`` and enters ``local_backend(home)``, the backend ``scholar serve`` enters on
    ``SCHOLAR_BACKEND=local``; ``close`` leaves it and puts every variable back.

    Attributes (after start):
        env: the variables exported to this process (``extra_env``, the backend and its folder).
    """

    def __init__(self, home: Path, *, extra_env: Mapping[str, str] | None = None) -> None:
        self.home = Path(home)
        self.env = {**dict(extra_env or {}), BACKEND_ENV: "local", HOME_ENV: str(self.home)}
        self._saved: dict[str, str | None] = {}
        self._entered: ExitStack | None = None

    def configure(self, extra_env: Mapping[str, str], parameters: Mapping[str, str]) -> None:
        """Add variables before ``start`` (the local server's OAuth mode); the local backend has no template, so
        ``parameters`` (the template's names for the same settings) are not read."""
        self.env.update(extra_env)

    def start(self) -> None:
        from scholar.local.machine import local_backend  # noqa: PLC0415  # the chosen backend only

        self._saved = {name: get_environ(name) for name in self.env}
        set_environment(self.env)
        self._entered = ExitStack()
        try:
            self._entered.enter_context(local_backend(self.home))
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Leave the backend (a step under way finishes first) and restore the environment; idempotent."""
        if self._entered is not None:
            self._entered.close()
            self._entered = None
        if self._saved:
            set_environment(self._saved)
            self._saved = {}


class LocalServer:
    """LocalStack (or another stand-in: ``stack``) + the gateway app on uvicorn in a background thread, for tests.

    Args:
        template: the SAM template; defaults to ``default_template()``.
        extra_env, handlers_override, parameters: passed to ``LocalStack``.
        app_factory: builds the ASGI app after the stack is up (default: the gateway's).
        stack: the backend to serve instead of a ``LocalStack`` (a ``MachineStack``); the three above are then unused.

    Attributes (after start):
        url: ``http://127.0.0.1:<port>/mcp``.
        stack: the running LocalStack.
    """

    def __init__(self, *, template: Path | None = None, extra_env: Mapping[str, str] | None = None,
                 handlers_override: Mapping[str, Handler] | None = None,
                 parameters: Mapping[str, str] | None = None, app_factory: AppFactory | None = None,
                 stack: MachineStack | None = None) -> None:
        self.stack: LocalStack | MachineStack = stack or LocalStack(
            template=template or default_template(), extra_env=extra_env, handlers_override=handlers_override,
            parameters=parameters)
        self.url = ""
        self._oauth = _wants_oauth(stack.env if stack else extra_env)
        self._app_factory = app_factory or _gateway_app
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

    def __enter__(self) -> LocalServer:
        self.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def start(self) -> None:
        """Deploy the stack, then serve the app until it accepts connections.

        Raises:
            RuntimeError: uvicorn did not start within ``STARTUP_TIMEOUT_S``.
        """
        # Bind first (port 0 → a free port) and hand the socket to uvicorn: no race for the port. The URL is known
        # before the stack starts, so OAuth mode can name its issuer.
        self._socket = sock = listening_socket("127.0.0.1", 0)
        port = sock.getsockname()[1]
        if self._oauth:
            self.stack.configure(*oauth_settings(f"http://127.0.0.1:{port}"))
        try:
            self.stack.start()
            config = uvicorn.Config(self._app_factory(), log_level="warning", lifespan="on")
            self._server = uvicorn.Server(config)
            self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]},
                                            name="scholar-local-server", daemon=True)
            self._thread.start()
            ready = threading.Event()
            deadline_checks = int(STARTUP_TIMEOUT_S / 0.02)
            for _ in range(deadline_checks):
                if self._server.started or not self._thread.is_alive():
                    break
                ready.wait(0.02)
            if not self._server.started:
                raise RuntimeError(f"the local server did not start within {STARTUP_TIMEOUT_S:.0f} s")
            self.url = f"http://127.0.0.1:{port}/mcp"
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Stop uvicorn, then the stack; idempotent."""
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout=STARTUP_TIMEOUT_S)
        self._server = None
        self._thread = None
        if self._socket is not None:
            self._socket.close()
            self._socket = None
        self.stack.close()

"""The AWS stand-in's MCP server: LocalStack (moto + template.yaml) behind the gateway's ASGI app on uvicorn.

``serve`` is ``SCHOLAR_BACKEND=aws make serve``; ``LocalServer`` runs the same thing (or the local backend:
``MachineStack``) on a free loopback port in a background thread for tests. The app comes from
``scholar.local.http_app.gateway_app`` (what ``scholar serve`` runs) unless a test passes its own factory.
"""

from __future__ import annotations

import contextvars
import errno
import logging
import os
import socket
import threading
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from pathlib import Path
from types import TracebackType
from typing import Any

import uvicorn

from scholar.core.config import AUTH_MODE_ENV, BACKEND_ENV, HOME_ENV, PUBLIC_URL_ENV, get_environ, set_environment
from scholar.local.http_app import (
    OAUTH_MODE,
    PathRouter,
    default_template,
    gateway_app,
    listening_socket,
    oauth_settings,
)
from scholar.local.invoke import Handler
from scholar.local.stack import LocalStack
from scholar.store.pdf_uploads import serve_uploads_at

logger = logging.getLogger(__name__)

__all__ = ["LocalServer", "MachineStack", "PathRouter", "default_template", "listening_socket", "oauth_settings",
           "serve"]

AppFactory = Callable[[], Any]
STARTUP_TIMEOUT_S = 30.0


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
            uvicorn.Server(uvicorn.Config(gateway_app(), log_level="info")).run(sockets=[sock])


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
        self._app_factory = app_factory or gateway_app
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
            if isinstance(self.stack, MachineStack):  # the local backend's upload_pdf links (scholar.local.uploads)
                serve_uploads_at(f"http://127.0.0.1:{port}")
            config = uvicorn.Config(self._app_factory(), log_level="warning", lifespan="on")
            self._server = uvicorn.Server(config)
            context = contextvars.copy_context()  # the server's thread runs on the backend entered here
            self._thread = threading.Thread(target=context.run, args=(self._server.run,), kwargs={"sockets": [sock]},
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

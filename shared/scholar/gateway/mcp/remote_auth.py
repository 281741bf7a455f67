"""Signing in to another deployment with OAuth, as a native app (RFC 8252): the SDK's ``OAuthClientProvider`` with
the sign-in kept in one file per server, a browser, and a one-shot loopback listener for the redirect.

The non-obvious constraint: our authorization server matches redirect URIs exactly, port included, and the listener's
port is whatever the OS gives. So the listener first asks for the port of the saved registration, and a saved
registration whose redirect URI is not this run's is not offered to the SDK (it registers anew); the saved tokens
stay usable either way, so a second run signs in again only when its refresh token is refused.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import webbrowser
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio
from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from scholar.core.errors import ForbiddenError, WorkTimeoutError
from scholar.gateway.bearer.scopes import DEFAULT as SCOPES

__all__ = ["Browser", "LoopbackCallback", "SignInFile", "oauth_flow", "open_in_browser"]

Browser = Callable[[str], Awaitable[None]]  # opens the authorization URL (a person signs in there)
CALLBACK_PATH = "/callback"
SIGN_IN_TIMEOUT_S = 300.0
CLIENT_NAME = "scholar library push/pull"
_PAGE = b"<!doctype html><title>Scholar</title><p>%s You may close this tab.</p>"


async def open_in_browser(url: str) -> None:
    """The default browser step: open ``url`` in the system browser and print it on stderr (a headless machine)."""
    sys.stderr.write(f"Sign in at: {url}\n")
    sys.stderr.flush()
    webbrowser.open(url)


class SignInFile:
    """The SDK's ``TokenStorage`` in one JSON file (mode 0600): the tokens and client registration for one server."""

    def __init__(self, path: Path, redirect_uri: str = "") -> None:
        self.path = path
        self.redirect_uri = redirect_uri  # this run's: a registration made for another is not offered

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # none yet, or unreadable: the SDK signs in and this file is written anew
        return data if isinstance(data, dict) else {}

    def _write(self, **changes: Any) -> None:
        data = self._read() | changes
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        temporary = self.path.with_name(self.path.name + ".tmp")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            json.dump(data, out)
        os.replace(temporary, self.path)  # whole or not at all; a token never lies in a file others can read

    def saved_port(self) -> int:
        """The loopback port of the saved registration's redirect URI (0: none)."""
        uris = (self._read().get("client_info") or {}).get("redirect_uris") or []
        return urlsplit(str(uris[0])).port or 0 if uris else 0

    async def get_tokens(self) -> OAuthToken | None:
        tokens = self._read().get("tokens")
        return OAuthToken.model_validate(tokens) if isinstance(tokens, dict) else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self._write(tokens=tokens.model_dump(mode="json", exclude_none=True))

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        info = self._read().get("client_info")
        if not isinstance(info, dict) or self.redirect_uri not in [str(u) for u in info.get("redirect_uris") or []]:
            return None
        return OAuthClientInformationFull.model_validate(info)

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._write(client_info=client_info.model_dump(mode="json", exclude_none=True))


class LoopbackCallback:
    """A listener on 127.0.0.1 that takes one authorization response (``code`` + ``state``, or ``error``) and stops.

    It serves from its own thread from the start: a browser (or a test's) may arrive before ``wait`` is awaited.
    """

    def __init__(self, port: int = 0) -> None:
        self._result: dict[str, str] | None = None
        self._done = threading.Event()
        try:
            self._server = HTTPServer(("127.0.0.1", port), self._handler())
        except OSError:
            self._server = HTTPServer(("127.0.0.1", 0), self._handler())  # the saved port is taken: a new one
        self.redirect_uri = f"http://127.0.0.1:{self._server.server_address[1]}{CALLBACK_PATH}"
        self._thread = threading.Thread(target=self._server.serve_forever, name="scholar-sign-in", daemon=True)
        self._thread.start()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # the name http.server calls
                parts = urlsplit(self.path)
                params = {k: v[0] for k, v in parse_qs(parts.query).items()}
                taken = parts.path == CALLBACK_PATH and ("code" in params or "error" in params) and not owner.done
                message = b"Signed in to Scholar." if taken and "code" in params else b"Nothing to do here."
                if taken and "error" in params:
                    message = b"The sign-in was refused."
                body = _PAGE % message
                self.send_response(200 if taken else 404)
                self.send_header("content-type", "text/html; charset=utf-8")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                if taken:
                    owner._take(params)

            def log_message(self, *args: Any) -> None:
                return  # the request line carries the code: never logged

        return Handler

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def _take(self, params: dict[str, str]) -> None:
        self._result = params
        self._done.set()

    async def wait(self, timeout_s: float = SIGN_IN_TIMEOUT_S) -> AuthorizationCodeResult:
        """The code the browser brought back.

        Raises:
            ForbiddenError: the authorization server answered an error (the person declined, a bad client).
            WorkTimeoutError: nobody signed in within ``timeout_s``.
        """
        if not await anyio.to_thread.run_sync(self._done.wait, timeout_s):
            raise WorkTimeoutError(f"no sign-in came back within {timeout_s:.0f} s", reason="sign_in_timeout",
                                   hint="Run the command again and finish signing in in the browser, or use --api-key.")
        result = self._result or {}
        if "error" in result:
            raise ForbiddenError(f"the sign-in was refused: {result['error']} {result.get('error_description', '')}"
                                 .strip(), reason="remote_sign_in")
        return AuthorizationCodeResult(code=result["code"], state=result.get("state"), iss=result.get("iss"))

    def close(self) -> None:
        """Stop listening (idempotent)."""
        self._server.shutdown()
        self._server.server_close()


@contextmanager
def oauth_flow(url: str, sign_in: Path, browser: Browser = open_in_browser) -> Iterator[OAuthClientProvider]:
    """The SDK's OAuth flow for ``url`` (discovery from the 401, registration, PKCE, refresh) as a native public
    client, its sign-in kept in the file ``sign_in``; the loopback listener lives for the block.

    Args:
        url: the deployment's MCP endpoint.
        sign_in: the file of this server's tokens and registration (created 0600).
        browser: opens the authorization URL (default: the system browser, the URL printed on stderr too).
    """
    storage = SignInFile(sign_in)
    callback = LoopbackCallback(storage.saved_port())
    storage.redirect_uri = callback.redirect_uri
    metadata = OAuthClientMetadata(redirect_uris=[callback.redirect_uri], client_name=CLIENT_NAME, scope=SCOPES,
                                   grant_types=["authorization_code", "refresh_token"],
                                   token_endpoint_auth_method="none")
    try:
        yield OAuthClientProvider(url, metadata, storage, redirect_handler=browser, callback_handler=callback.wait)
    finally:
        callback.close()

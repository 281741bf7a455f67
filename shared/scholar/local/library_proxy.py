"""``scholar library proxy login`` / ``logout``: this machine's library proxy session, kept in the OS keyring.

Two ways to sign in, both without the password or the cookie passing through a model or a shell history:

    --user NAME   the proxy's own sign-in form (EZproxy's ``user``/``pass``), the password read from the terminal
                  (or stdin with --password-stdin); the session cookie it sets and the password are kept in the
                  keyring, so an expired session is renewed by the next fetch;
    (no --user)   a browser: the proxy's sign-in page opens (single sign-on, MFA), then a one-shot page on this
                  machine's loopback, where the session cookie (``ezproxy=…``) is pasted; the page works once, for
                  ``PASTE_TIMEOUT_S``, and the small server stops after one answer.

What a fetch then uses: scholar.services.fulltext.licensed (for the machine's own caller only). The commands'
parsers: scholar.local.library_proxy_cli.
"""

from __future__ import annotations

import html
import json
import secrets
import threading
import webbrowser
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any
from urllib.parse import parse_qs

from pydantic import SecretStr

from scholar.core import aio
from scholar.core.config import LIBRARY_PROXY_ENV, get_settings
from scholar.core.errors import InvalidArgumentError, WorkTimeoutError
from scholar.core.library_proxy import LibraryProxy, parse_proxy
from scholar.gateway.auth.connect_proxy import sealed_session
from scholar.services.fulltext.licensed import (
    KEYRING_SERVICE,
    PROXY_ENTRY,
    SESSION_ENTRY,
    USER_ENTRY,
    save_machine_session,
)
from scholar.store.machine_keyring import delete_entry, get_entry, set_entry
from scholar.web.fetch import web_access
from scholar.web.proxy_fetch import ProxySignIn, open_session

__all__ = ["PASTE_TIMEOUT_S", "login", "logout"]

PASTE_TIMEOUT_S = 300.0
Browser = Callable[[str], Any]
PASTE_PAGE = (
    '<!DOCTYPE html><html><head><meta charset="utf-8"><title>Scholar MCP: library proxy</title></head>'
    '<body><h1>Library proxy session</h1><p>Sign in at <a href="{login}">{login}</a>, then copy the value '
    "of its session cookie (<code>ezproxy</code>) from your browser's developer tools and paste it here. "
    'It is kept in this machine\'s keyring.</p><form method="post"><input name="cookie" type="password" '
    'size="60" required><button>Keep</button></form></body></html>'
)


def _proxy(written: str | None) -> LibraryProxy:
    text = written or get_settings().library_proxy or get_entry(KEYRING_SERVICE, PROXY_ENTRY)
    if not text:
        raise InvalidArgumentError(f"no library proxy: pass --proxy or set {LIBRARY_PROXY_ENV}", field="proxy")
    try:
        return parse_proxy(text)
    except ValueError as exc:
        raise InvalidArgumentError(str(exc), field="proxy") from exc


def login(
    written: str | None = None,
    *,
    user: str | None = None,
    password: str | None = None,
    browser: Browser | None = None,
    timeout_s: float = PASTE_TIMEOUT_S,
) -> dict[str, Any]:
    """Sign in to the library proxy and keep the session (and, with ``user``, the password) in the keyring.

    Raises:
        InvalidArgumentError: no proxy, or not one; a pasted cookie that is not one.
        ForbiddenError: the proxy refused the sign-in.
        WorkTimeoutError: nothing was pasted in time.
    """
    proxy = _proxy(written)
    settings = get_settings()
    if user:
        sign_in = ProxySignIn(user, SecretStr(password or ""))
        web = web_access()
        cookies = aio.run(
            open_session(
                proxy,
                sign_in,
                timeout_s=settings.pdf_timeout_s,
                resolver=web.resolver,
                transport=web.transport() if web.transport else None,
                allow_hosts=settings.test_allow_hosts,
                user_agent=settings.user_agent,
            )
        )
        set_entry(KEYRING_SERVICE, user, password or "")
        set_entry(KEYRING_SERVICE, USER_ENTRY, user)
        how = "sign-in form"
    else:
        cookies = _pasted(proxy, browser or webbrowser.open, timeout_s)
        how = "browser"
    set_entry(KEYRING_SERVICE, PROXY_ENTRY, proxy.template)
    save_machine_session(cookies)
    return {"proxy": proxy.template, "signed_in": True, "how": how, "kept_in": f"keyring ({KEYRING_SERVICE})"}


def logout() -> dict[str, Any]:
    """Forget this machine's proxy session, sign-in name and password (the setting, if any, stays)."""
    user = get_entry(KEYRING_SERVICE, USER_ENTRY)
    removed = [
        entry
        for entry in (SESSION_ENTRY, USER_ENTRY, PROXY_ENTRY, user)
        if entry and delete_entry(KEYRING_SERVICE, entry)
    ]
    return {"removed": len(removed)}


def _pasted(proxy: LibraryProxy, browser: Browser, timeout_s: float) -> dict[str, str]:
    """The session cookie pasted on a one-shot loopback page (the proxy's sign-in opened in the browser first)."""
    secret_path = "/" + secrets.token_urlsafe(16)
    got: dict[str, str] = {}

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # http.server's name
            self._answer(
                200 if self.path == secret_path else 404, PASTE_PAGE.format(login=html.escape(proxy.login_url))
            )

        def do_POST(self) -> None:  # http.server's name
            if self.path != secret_path:
                self._answer(404, "")
                return
            size = min(int(self.headers.get("Content-Length") or 0), 4096)
            typed = parse_qs(self.rfile.read(size).decode("utf-8", "replace")).get("cookie", [""])[0].strip()
            got["cookie"] = typed
            self._answer(200, "<!DOCTYPE html><p>Kept. You can close this page.</p>")

        def _answer(self, status: int, body: str) -> None:
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # http.server's signature
            return  # nothing of the request (the cookie) is logged

    server = HTTPServer(("127.0.0.1", 0), Page)
    server.timeout = min(1.0, timeout_s)  # how long one wait for the page blocks before the deadline is looked at
    deadline = threading.Event()
    timer = threading.Timer(timeout_s, deadline.set)
    timer.start()
    try:
        browser(proxy.login_url)
        browser(f"http://127.0.0.1:{server.server_port}{secret_path}")
        while "cookie" not in got and not deadline.is_set():
            server.handle_request()
    finally:
        timer.cancel()
        server.server_close()
    if "cookie" not in got:
        raise WorkTimeoutError(f"no session cookie was pasted within {timeout_s:g} s", retryable=True)
    sealed = sealed_session("", "", got["cookie"])
    if sealed is None:
        raise InvalidArgumentError("the pasted text is not a session cookie (ezproxy=… or its value)", field="cookie")
    return {k: str(v) for k, v in json.loads(sealed).items()}

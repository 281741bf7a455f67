"""The hosted connect page of the library proxy (``/connect/proxy``): a caller's proxy and sign-in, sealed for them.

The same one-time link as the connectors' pages (scholar.gateway.auth.connect: issued by library_connections with
``connect: proxy``, checked, then taken once for its own target). What is typed: the proxy (an EZproxy-style prefix
with ``{url}`` or a proxy-by-hostname name, scholar.core.library_proxy) and either a sign-in name and password or the
session cookie a browser holds after signing in. The non-obvious constraint: a licence is one person's, so this is
sealed per principal (KMS, the principal in the encryption context) and only that principal's fetches use it
(scholar.services.fulltext.licensed); the password or cookie is never logged, echoed or shown again.
"""

from __future__ import annotations

import json
import re

from pydantic import SecretStr
from starlette.requests import Request
from starlette.responses import Response

from scholar.core import redaction
from scholar.core.aio import off_loop
from scholar.core.library_proxy import parse_proxy
from scholar.gateway.auth.connect import EXPIRED, TOKEN
from scholar.gateway.auth.pages import error_page, page
from scholar.store.connections import ConnectionStore, connect_path

__all__ = ["PROXY_PATH", "proxy_form", "proxy_submit", "sealed_session"]

TARGET = "proxy"
PROXY_PATH = connect_path(TARGET)
DEFAULT_COOKIE = "ezproxy"
_COOKIE = re.compile(r"^(?:([A-Za-z0-9_.-]{1,64})=)?([\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]{8,1900})$")
_REFUSAL = (
    "Not a library proxy and sign-in",
    "The proxy is its link prefix with {url} (for example "
    "https://login.ezproxy.example.edu/login?url={url}) or its name (ezproxy.example.edu); then either a "
    "sign-in name and password, or the session cookie (ezproxy=…). Go back and correct it.",
)


def sealed_session(user: str, password: str, cookie: str) -> str | None:
    """What is sealed for the caller: ``{"user", "password"}`` or ``{<cookie name>: <value>}`` as JSON; else None."""
    if user and password and len(user) <= 200 and len(password) <= 500:
        return json.dumps({"user": user, "password": password})
    match = _COOKIE.fullmatch(cookie) if cookie else None
    if match is None:
        return None
    return json.dumps({match.group(1) or DEFAULT_COOKIE: match.group(2)})


async def proxy_form(request: Request) -> Response:
    """GET: the form, for a well-formed token (whether it is still valid is checked when the form is posted)."""
    token = request.query_params.get("t", "")
    if not TOKEN.fullmatch(token):
        return error_page(*EXPIRED, status=400)
    return page("connect_proxy.html", action=str(request.url.path), token=token)


async def proxy_submit(request: Request) -> Response:
    """POST: check the proxy and the sign-in, take the token once (for this target), seal them for its principal."""
    form = await request.form()
    token, typed, user, password, cookie = (
        str(form.get(name, "")).strip() for name in ("t", "library", "user", "password", "cookie")
    )
    for secret in (password, cookie):
        if secret:
            redaction.remember(secret)
    if not TOKEN.fullmatch(token):
        return error_page(*EXPIRED, status=400)
    try:
        proxy = parse_proxy(typed)
    except ValueError:
        proxy = None
    session = sealed_session(user, password, cookie)
    if proxy is None or session is None:  # checked before the token is taken: a typo does not use up the link
        return error_page(*_REFUSAL, status=400)
    principal = await off_loop(ConnectionStore.redeem_link, token, TARGET)
    if principal is None:
        return error_page(*EXPIRED, status=400)
    await ConnectionStore(principal).aconnect(TARGET, proxy.template, SecretStr(session))
    return page("connected.html", name="Library proxy", noun="proxy", place=proxy.template)

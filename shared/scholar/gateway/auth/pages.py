"""The pages a person sees during sign-in: the consent page, error pages, the local stand-in's sign-in form.

Jinja2 with autoescape on and StrictUndefined: everything a client or person chose (the client's name, its
redirect host, a login name) is escaped. No JavaScript: the Content-Security-Policy allows none, the pages
cannot be framed (clickjacking), and forms may post only to us and, after a redirect, to the client's origin.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.responses import HTMLResponse

from scholar.gateway.auth.wire import NO_STORE

TEMPLATES = Path(__file__).resolve().parent / "templates"
SCOPE_TEXT = {
    "scholar:read": "search and read papers, books, patents and standards; see your library and tasks",
    "scholar:write": "change your library (add, update, remove, import) and start downloads kept for you",
}


def _csp(form_targets: tuple[str, ...] = ()) -> str:
    targets = " ".join(("'self'", *form_targets))
    return ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
            f"form-action {targets}; frame-ancestors 'none'")


def redirect_origin(uri: str) -> str:
    """What a redirect URI's origin is for CSP (``https://host:port`` or a private scheme ``cursor:``)."""
    parts = urlsplit(uri)
    if parts.scheme in ("http", "https") and parts.netloc:
        return f"{parts.scheme}://{parts.netloc}"
    return f"{parts.scheme}:" if parts.scheme else ""


def redirect_host(uri: str) -> str:
    """The host a redirect URI sends the person to, as the consent page names it."""
    parts = urlsplit(uri)
    return parts.hostname or f"{parts.scheme}:"


@cache
def _environment() -> Any:
    import jinja2  # noqa: PLC0415  # only when a page is shown

    return jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, trim_blocks=True,
                              lstrip_blocks=True, undefined=jinja2.StrictUndefined)


def page(template: str, *, status: int = 200, form_targets: tuple[str, ...] = (), **values: Any) -> HTMLResponse:
    """Render ``template`` with the headers every sign-in page carries."""
    html = _environment().get_template(template).render(**values)
    headers = {**NO_STORE, "content-security-policy": _csp(form_targets), "x-content-type-options": "nosniff",
               "referrer-policy": "no-referrer", "x-frame-options": "DENY"}
    return HTMLResponse(html, status_code=status, headers=headers)


def consent_page(*, action: str, consent_id: str, client_name: str, client_kind: str, redirect_uri: str,
                 scopes: list[str], user: str) -> HTMLResponse:
    """The consent page: who asks (name, kind, redirect host), for what (each scope), as whom."""
    return page("consent.html", action=action, consent_id=consent_id, client_name=client_name, client_kind=client_kind,
                redirect_host=redirect_host(redirect_uri),
                scopes=[(scope, SCOPE_TEXT.get(scope, scope)) for scope in scopes], user=user,
                form_targets=(redirect_origin(redirect_uri),))


def error_page(title: str, message: str, status: int = 400) -> HTMLResponse:
    """An error shown to the person instead of redirecting (an unknown client or redirect URI)."""
    return page("error.html", status=status, title=title, message=message)

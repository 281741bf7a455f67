"""The hosted connect page: a signed-in caller gives us a connector key without it passing through the model.

One page per target whose registry row has ``connect_page`` (``FORMS``: Zotero's library and API key, Notion's
database and integration token), at ``/connect/<target>``. How the page knows who is connecting:
``library_connections``, called over the MCP URL (behind the OAuth sign-in), hands the caller a one-time link for
one target (``/connect/<target>?t=…``, ten minutes; only its hash is stored, with the target, scholar.store
.connections). The form posts the token back with the place and key, checked here first (a typo does not use up the
link); the token is then taken by a conditional delete naming the target, so a link works once, only for the
principal it was issued to and only on its own target's page. The key goes straight into
``ConnectionStore.connect`` (sealed with KMS) and is never logged, echoed or shown again.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from pydantic import SecretStr
from starlette.requests import Request
from starlette.responses import Response

from scholar.core import redaction
from scholar.core.aio import off_loop
from scholar.core.config import NOTION_DATABASE_PATTERN, ZOTERO_LIBRARY_PATTERN
from scholar.gateway.auth.pages import error_page, page
from scholar.store.connections import ConnectionStore, connect_path

__all__ = ["EXPIRED", "FORMS", "TOKEN", "ConnectForm", "connect_form", "connect_path", "connect_submit",
           "notion_database"]

TOKEN = re.compile(r"^[A-Za-z0-9_-]{20,100}$")
_PLACE_MAX = 500  # the longest place (a Notion link) looked at
EXPIRED = ("This link does not work", "The link is unknown, expired, was used already or is for another "
            "service. Ask your assistant for your connections (library_connections) to get a new one.")
_ZOTERO_LIBRARY = re.compile(ZOTERO_LIBRARY_PATTERN)
_NOTION_ID = re.compile(NOTION_DATABASE_PATTERN)
_NOTION_HOSTS = frozenset({"notion.so", "www.notion.so"})


def _zotero_library(typed: str) -> str | None:
    return typed if _ZOTERO_LIBRARY.fullmatch(typed) else None


def notion_database(typed: str) -> str | None:
    """The database id in what was typed (its id, with or without dashes, or its notion.so link), dashed; else None.

    In a link the id ends the last path segment (``/<workspace>/<Title>-<id>?v=<view id>``): what follows ``?v=`` is
    the view's id, never taken (Notion's reference, "Retrieve a database").
    """
    typed = typed.strip()
    if "/" in typed:
        parts = urlsplit(typed)
        if parts.scheme != "https" or parts.hostname not in _NOTION_HOSTS:
            return None
        typed = parts.path.rstrip("/").rsplit("/", 1)[-1].rsplit("-", 1)[-1]
    typed = typed.lower()
    return str(uuid.UUID(typed)) if _NOTION_ID.fullmatch(typed) else None


@dataclass(frozen=True)
class ConnectForm:
    """One target's page: its template, its name and what its place is, the place typed (as stored, else None), the
    key's form, and the page a person sees when either is malformed (its title and what they look like)."""

    template: str
    name: str
    noun: str
    place: Callable[[str], str | None]
    key: re.Pattern[str]
    refusal: tuple[str, str]


FORMS: dict[str, ConnectForm] = {
    "zotero": ConnectForm(
        "connect_zotero.html", "Zotero", "library", _zotero_library, re.compile(r"^[A-Za-z0-9]{16,64}$"),
        ("Not a Zotero library and key", "The library is users/<id> or groups/<id>; the key is the one "
         "zotero.org/settings/keys shows (letters and digits).")),
    # An internal integration's secret starts ntn_ (current) or secret_ (older ones), then letters and digits;
    # Notion publishes no length, so the bound is wide.
    "notion": ConnectForm(
        "connect_notion.html", "Notion", "database", notion_database,
        re.compile(r"^(?:ntn|secret)_[A-Za-z0-9]{20,100}$"),
        ("Not a Notion database and token", "The database is its link (notion.so/…) or its id, the 32 hex digits "
         "before ?v=; the token is the integration's secret (it starts ntn_ or secret_).")),
}


async def connect_form(request: Request, *, target: str) -> Response:
    """GET: the form, for a well-formed token (whether it is still valid is checked when the form is posted)."""
    token = request.query_params.get("t", "")
    if not TOKEN.fullmatch(token):
        return error_page(*EXPIRED, status=400)
    return page(FORMS[target].template, action=str(request.url.path), token=token)


async def connect_submit(request: Request, *, target: str) -> Response:
    """POST: check the place and key, take the token once (for this target), seal the key for its principal."""
    spec = FORMS[target]
    form = await request.form()
    token, typed, key = (str(form.get(name, "")).strip() for name in ("t", "library", "key"))
    if key:
        redaction.remember(key)
    if not TOKEN.fullmatch(token):
        return error_page(*EXPIRED, status=400)
    place = spec.place(typed) if len(typed) <= _PLACE_MAX else None
    if place is None or not spec.key.fullmatch(key):
        # Checked before the token is taken: a typo does not use up the link.
        title, text = spec.refusal
        return error_page(title, f"{text} Go back and correct it.", status=400)
    principal = await off_loop(ConnectionStore.redeem_link, token, target)
    if principal is None:
        return error_page(*EXPIRED, status=400)
    await ConnectionStore(principal).aconnect(target, place, SecretStr(key))
    return page("connected.html", name=spec.name, noun=spec.noun, place=place)

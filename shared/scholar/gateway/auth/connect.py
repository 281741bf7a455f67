"""The hosted connect page: a signed-in caller gives us a Zotero key without it passing through the model.

How the page knows who is connecting: ``library_connections``, called over the MCP URL (behind the OAuth sign-in),
hands the caller a one-time link (``/connect/zotero?t=…``, ten minutes; only its hash is stored,
scholar.store.connections). The form posts the token back with the key; the token is taken by a conditional
delete, so a link works once and only for the principal it was issued to. The key goes straight into
``ConnectionStore.connect`` (sealed with KMS) and is never logged, echoed or shown again.
"""

from __future__ import annotations

import re

from pydantic import SecretStr
from starlette.requests import Request
from starlette.responses import Response

from scholar.core import redaction
from scholar.core.aio import off_loop
from scholar.gateway.auth.pages import error_page, page
from scholar.store.connections import CONNECT_PATH, ConnectionStore

__all__ = ["CONNECT_PATH", "connect_form", "connect_submit"]

_LIBRARY = re.compile(r"^(users|groups)/[0-9]{1,12}$")
_KEY = re.compile(r"^[A-Za-z0-9]{16,64}$")
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{20,100}$")
_EXPIRED = ("This link does not work", "The link is unknown, expired or was used already. Ask your assistant for "
            "your connections (library_connections) to get a new one.")


async def connect_form(request: Request) -> Response:
    """GET: the form, for a well-formed token (whether it is still valid is checked when the form is posted)."""
    token = request.query_params.get("t", "")
    if not _TOKEN.fullmatch(token):
        return error_page(*_EXPIRED, status=400)
    return page("connect.html", action=str(request.url.path), token=token)


async def connect_submit(request: Request) -> Response:
    """POST: take the token once, then seal and store the key for the principal it was issued to."""
    form = await request.form()
    token, library, key = (str(form.get(name, "")).strip() for name in ("t", "library", "key"))
    if key:
        redaction.remember(key)
    if not _TOKEN.fullmatch(token):
        return error_page(*_EXPIRED, status=400)
    if not _LIBRARY.fullmatch(library) or not _KEY.fullmatch(key):
        # Checked before the token is taken: a typo does not use up the link.
        return error_page("Not a Zotero library and key", "The library is users/<id> or groups/<id>; the key is "
                          "the one zotero.org/settings/keys shows (letters and digits). Go back and correct it.",
                          status=400)
    principal = await off_loop(ConnectionStore.redeem_link, token)
    if principal is None:
        return error_page(*_EXPIRED, status=400)
    await ConnectionStore(principal).aconnect("zotero", library, SecretStr(key))
    return page("connected.html", library=library)

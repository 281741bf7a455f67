"""Which place and key a keyed connector's sync uses, and from where; the key is never stored in our library.

    where                 place (Zotero library, Notion database)     key
    one machine           its setting, else the OS keyring            its secret setting, else the OS keyring
    hosted (in Lambda)    the caller's connection                     the caller's connection (KMS-encrypted)

A ``KeyPlace`` names the setting and keyring entries of one connector (``ZOTERO``, ``NOTION`` below). The OS
keyring holds, under the connector's service (``scholar-mcp/zotero``), the place under the user ``place_entry``
and the key under ``key_entry`` (for Zotero, the library itself: one key per library).

The non-obvious constraint: the machine's own key (environment or keyring) is one person's, so it is used only
off Lambda; a hosted call uses the calling principal's connection and nothing else, so one caller's key can never
serve another. Every key found is remembered by ``scholar.core.redaction`` so error text is scrubbed of it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pydantic import SecretStr

from scholar.core import redaction
from scholar.core.aio import off_loop
from scholar.core.config import NOTION_DATABASE_ENV, ZOTERO_LIBRARY_ENV, Settings, get_settings
from scholar.core.errors import ForbiddenError
from scholar.store.connections import ConnectionStore
from scholar.store.machine_keyring import get_entry as _keyring_get

__all__ = ["NOTION", "ZOTERO", "KeyPlace", "credentials", "machine_source"]

MISSING = "connection_missing"


@dataclass(frozen=True)
class KeyPlace:
    """Where one keyed connector's place and key are found on one machine, and what to tell a caller without."""

    target: str
    service: str
    secret: str
    place: Callable[[Settings], str | None]
    place_entry: str
    key_entry: str | None  # None: the key is stored under the place itself
    missing: str
    hint: str  # where the key goes on one machine: the environment variables and the keyring command


ZOTERO = KeyPlace(
    "zotero", "scholar-mcp/zotero", "zotero_api_key", lambda s: s.zotero_library, "library", None,
    "no Zotero library is connected",
    f"Set {ZOTERO_LIBRARY_ENV} (users/<id> or groups/<id>) and SCHOLAR_ZOTERO_API_KEY, or store them in the OS "
    "keyring: keyring set scholar-mcp/zotero library (the library), then keyring set scholar-mcp/zotero <library> "
    "(its key).")
NOTION = KeyPlace(
    "notion", "scholar-mcp/notion", "notion_token", lambda s: s.notion_database, "database", "token",
    "no Notion database and integration token are set up",
    f"Set SCHOLAR_NOTION_TOKEN (the integration's secret) and {NOTION_DATABASE_ENV} (the database id), or store "
    "them in the OS keyring: keyring set scholar-mcp/notion token (and keyring set scholar-mcp/notion database).")


async def _machine_place(spec: KeyPlace) -> str | None:
    return spec.place(get_settings()) or await off_loop(_keyring_get, spec.service, spec.place_entry)


async def _machine_key(spec: KeyPlace, place: str) -> SecretStr | None:
    key = get_settings().secrets.values.get(spec.secret)
    if key is None:
        stored = await off_loop(_keyring_get, spec.service, spec.key_entry or place)
        key = SecretStr(stored) if stored else None
    return key


async def machine_source(spec: KeyPlace = ZOTERO) -> str | None:
    """Where this machine's key for ``spec`` comes from (``environment`` | ``keyring``), or None: never the key."""
    if get_settings().secrets.has(spec.secret):
        return "environment"
    entry = spec.key_entry or await _machine_place(spec)
    if entry and await off_loop(_keyring_get, spec.service, entry):
        return "keyring"
    return None


async def credentials(principal: str, spec: KeyPlace) -> tuple[str, SecretStr]:
    """The place and key a sync of ``principal`` with ``spec``'s connector uses.

    Raises:
        ForbiddenError: no key (reason ``connection_missing``, the hint naming the settings and the keyring entry
        on one machine), a revoked connection (``connection_revoked``).
    """
    settings = get_settings()
    if not settings.in_lambda:
        place = await _machine_place(spec)
        key = await _machine_key(spec, place) if place else None
        if place and key is not None:
            redaction.remember(key)
            return place, key
    if not settings.resources.connections_table:
        raise ForbiddenError(spec.missing, source=spec.target, reason=MISSING, hint=spec.hint)
    try:
        place, key = await ConnectionStore(principal).acredentials(spec.target)
    except ForbiddenError as exc:
        if exc.reason != MISSING or settings.in_lambda:
            raise  # hosted: its hint names the connect page (library_connections with connect)
        raise ForbiddenError(spec.missing, source=spec.target, reason=MISSING, hint=spec.hint) from exc
    redaction.remember(key)
    return place, key

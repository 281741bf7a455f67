"""Which Zotero library and key a caller's sync uses, and from where; the key is never stored in our library.

    where                      library                                  key
    the desktop (zotero_local) SCHOLAR_ZOTERO_LIBRARY, else users/0     none (the local API takes no key)
    one machine                SCHOLAR_ZOTERO_LIBRARY, else the keyring SCHOLAR_ZOTERO_API_KEY, else the OS keyring
    hosted (in Lambda)         the caller's connection                  the caller's connection (KMS-encrypted)

The non-obvious constraint: the machine's own key (environment or keyring) is one person's, so it is used only
off Lambda; a hosted call uses the calling principal's connection and nothing else, so one caller's key can never
serve another. Every key found is remembered by ``scholar.core.redaction`` so error text is scrubbed of it.
"""

from __future__ import annotations

from pydantic import SecretStr

from scholar.core import redaction
from scholar.core.aio import off_loop
from scholar.core.config import get_settings
from scholar.core.errors import ForbiddenError
from scholar.sources.zotero import LOCAL, WEB, ZoteroLibrary
from scholar.store.connections import ConnectionStore

__all__ = ["KEYRING_SERVICE", "machine_source", "zotero_library"]

# The OS keyring entry: service "scholar-mcp/zotero", user "library" → users/<id>, user <library> → its key.
KEYRING_SERVICE = "scholar-mcp/zotero"
_LIBRARY_ENTRY = "library"


def _keyring_get(user: str) -> str | None:
    try:
        import keyring  # noqa: PLC0415  # one machine only: the Lambda layer does not ship it
        from keyring.errors import KeyringError  # noqa: PLC0415  # with the package above
    except ImportError:
        return None
    try:
        return keyring.get_password(KEYRING_SERVICE, user)
    except KeyringError:
        return None  # no usable keyring backend on this machine: as if nothing were stored


async def _machine_library() -> ZoteroLibrary | None:
    settings = get_settings()
    library = settings.zotero_library or await off_loop(_keyring_get, _LIBRARY_ENTRY)
    if not library:
        return None
    key = settings.secrets.values.get("zotero_api_key")
    if key is None:
        stored = await off_loop(_keyring_get, library)
        key = SecretStr(stored) if stored else None
    return ZoteroLibrary(WEB, library, key) if key is not None else None


async def machine_source() -> str | None:
    """Where this machine's Zotero key comes from (``environment`` | ``keyring``), or None: never the key."""
    settings = get_settings()
    if settings.secrets.has("zotero_api_key"):
        return "environment"
    library = settings.zotero_library or await off_loop(_keyring_get, _LIBRARY_ENTRY)
    if library and await off_loop(_keyring_get, library):
        return "keyring"
    return None


async def zotero_library(principal: str, target: str) -> ZoteroLibrary:
    """The library and key a sync of ``principal`` with ``target`` (``zotero`` | ``zotero_local``) uses.

    Raises:
        ForbiddenError: no connection (reason ``connection_missing``), a revoked one (``connection_revoked``).
    """
    settings = get_settings()
    if target == LOCAL:
        return ZoteroLibrary(LOCAL, settings.zotero_library or "users/0")
    if not settings.in_lambda:
        machine = await _machine_library()
        if machine is not None:
            if machine.key is not None:
                redaction.remember(machine.key)
            return machine
    if not settings.resources.connections_table:
        raise ForbiddenError("no Zotero library is connected", source=WEB, reason="connection_missing",
                             hint="Set SCHOLAR_ZOTERO_LIBRARY (users/<id> or groups/<id>) and SCHOLAR_ZOTERO_API_KEY, "
                                  "or store the key in the OS keyring (service scholar-mcp/zotero).")
    library, key = await ConnectionStore(principal).acredentials(WEB)
    redaction.remember(key)
    return ZoteroLibrary(WEB, library, key)

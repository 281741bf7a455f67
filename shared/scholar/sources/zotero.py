"""Zotero's Web API v3 (api.zotero.org) and the desktop's local API (127.0.0.1:23119/api), on our HTTP layer.

Why not pyzotero (the reference client): it sends through its own synchronous ``httpx2.Client`` and waits out
Backoff with ``time.sleep`` (both would hold the event loop), its uploads post through a fresh module-level
client, and none of it goes through ``scholar.sources.http`` (the proxy base that points tests at the fake, the
path check, pacing, usage records and secret scrubbing). The protocol we need is small: paged reads, versioned
batch writes with a write token, collections and the three-step file upload.

The one non-obvious constraint: Zotero slows clients down two ways and both are obeyed here, not in the caller:
a 429/503 answer carries ``Retry-After`` (wait, then send the same request again), and any answer may carry
``Backoff`` (send nothing to this library before that many seconds). Every wait goes through ``_sleep``.
The API key travels in the ``Zotero-API-Key`` header only, never in a URL, a message or a log line.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
from pydantic import SecretStr

from scholar.core import redaction
from scholar.core.errors import ForbiddenError, UpstreamError
from scholar.core.urlpath import segment
from scholar.sources import http, retry
from scholar.sources.registry import SOURCES

__all__ = ["BATCH", "WEB", "LOCAL", "STORAGE", "WriteOutcome", "ZoteroClient", "ZoteroLibrary"]

WEB = "zotero"
LOCAL = "zotero_local"
STORAGE = "zotero_storage"
# Zotero's limit for one write request (Web API v3, "Write Requests": up to 50 objects).
BATCH = 50
PAGE = 100
_LIBRARY = re.compile(r"^(users|groups)/[0-9]{1,12}$")
_LINK_NEXT = re.compile(r'<([^>]+)>;\s*rel="next"')
_sleep = asyncio.sleep  # tests replace it to see the waits without waiting


@dataclass(frozen=True)
class ZoteroLibrary:
    """Where to write: the web API (``zotero``) or the desktop (``zotero_local``), a library and its key."""

    source: str
    library: str
    key: SecretStr | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not _LIBRARY.fullmatch(self.library):
            raise ValueError("a Zotero library is users/<id> or groups/<id>")


@dataclass(frozen=True)
class _Service:
    """What differs between the web API and the desktop: the path prefix and what a 403 means."""

    source: str
    prefix: str
    refusal: str
    reason: str
    hint: str

    def refused(self) -> ForbiddenError:
        return ForbiddenError(self.refusal, source=self.source, status=403, reason=self.reason, hint=self.hint)


_SERVICES = {s.source: s for s in (
    _Service(WEB, "", "Zotero refused the API key for this library (HTTP 403)", "zotero_key_refused",
             "Create a key with write access to this library at zotero.org/settings/keys and connect it again."),
    # The desktop serves the same paths under /api (Zotero 7 local API); user id 0 means "this desktop".
    _Service(LOCAL, "/api", "Zotero desktop refused the request: its local API is not enabled",
             "local_api_disabled", "In Zotero 7: Settings → Advanced → 'Allow other applications on this computer "
             "to communicate with Zotero', then try again."),
)}


@dataclass
class WriteOutcome:
    """Zotero's answer to one batch write, by position in the batch."""

    successful: dict[int, dict[str, Any]] = field(default_factory=dict)
    unchanged: dict[int, str] = field(default_factory=dict)
    failed: dict[int, dict[str, Any]] = field(default_factory=dict)


class ZoteroClient:
    """One library of the web API or the desktop; ``requests`` counts what was sent (the figures read it)."""

    def __init__(self, target: ZoteroLibrary) -> None:
        self.target = target
        self.requests = 0
        self._quiet_until = 0.0
        if target.key is not None:
            redaction.remember(target.key)

    @property
    def _service(self) -> _Service:
        return _SERVICES[self.target.source]

    @property
    def _prefix(self) -> str:
        return self._service.prefix + "/" + self.target.library

    def _headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        headers = {"Zotero-API-Version": "3"}
        if self.target.key is not None:
            headers["Zotero-API-Key"] = self.target.key.get_secret_value()
        return headers | (extra or {})

    async def send(self, method: str, path: str, *, params: dict[str, Any] | None = None, json_body: Any = None,
                   headers: dict[str, str] | None = None, content: bytes | None = None,
                   source: str | None = None) -> httpx.Response:
        """One request, after any Backoff, sent again after 429/503 as Retry-After says (a few times at most).

        Raises:
            ForbiddenError: the key is refused (403), or the desktop's local API is off.
            RateLimitedError: still throttled after the attempts.
            UpstreamError: the service failed (5xx) after the attempts, or could not be reached.
        """
        source = source or self.target.source

        async def before() -> None:
            await self._wait_backoff()
            self.requests += 1

        response = await retry.send(source, method, path, sleep=_sleep, before=before, params=params,
                                    json_body=json_body, content=content,
                                    headers=self._headers(headers) if source != STORAGE else headers)
        self._note_backoff(response)
        if response.status_code == 403:
            raise self._service.refused()
        return response

    def _note_backoff(self, response: httpx.Response) -> None:
        raw = response.headers.get("Backoff")
        if raw:
            try:
                self._quiet_until = max(self._quiet_until, time.monotonic() + min(retry.MAX_WAIT_S, float(raw)))
            except ValueError:
                return

    async def _wait_backoff(self) -> None:
        remaining = self._quiet_until - time.monotonic()
        if remaining > 0:
            self._quiet_until = 0.0
            await _sleep(remaining)

    async def _json(self, path: str, params: dict[str, Any] | None = None, *, what: str) -> tuple[Any, httpx.Response]:
        response = await self.send("GET", path, params=params)
        http.raise_for_status(self.target.source, response, what=what)
        return http.parse_json(self.target.source, response), response

    async def _paged(self, path: str, params: dict[str, Any], *, what: str) -> list[dict[str, Any]]:
        """Every object of a list, following ``Link: rel="next"`` (Total-Results says how many there are)."""
        found: list[dict[str, Any]] = []
        start = 0
        while True:
            page, response = await self._json(path, params | {"limit": PAGE, "start": start}, what=what)
            found.extend(page)
            total = int(response.headers.get("Total-Results") or len(found))
            if not page or not _LINK_NEXT.search(response.headers.get("Link", "")) or len(found) >= total:
                return found
            start += len(page)

    async def collections(self) -> list[dict[str, Any]]:
        """Every collection of the library (each ``{key, version, data: {name, parentCollection}}``)."""
        return await self._paged(f"{self._prefix}/collections", {}, what="collections")

    async def create_collection(self, name: str) -> str:
        """Create a top-level collection; returns its key.

        Raises:
            UpstreamError: Zotero refused it (its code and message).
        """
        outcome = await self.write("collections", [{"name": name}])
        if outcome.failed:
            failure = outcome.failed[0]
            raise UpstreamError(f"Zotero refused the collection: {failure.get('message')}", source=self.target.source,
                                status=failure.get("code"))
        return outcome.successful[0]["key"]

    async def versions(self, collection: str | None) -> dict[str, int]:
        """Key → version of every item (top-level and children) in a collection, or the whole library."""
        path = f"{self._prefix}/collections/{segment(collection)}/items" if collection else f"{self._prefix}/items"
        body, _ = await self._json(path, {"format": "versions"}, what="item versions")
        return {str(k): int(v) for k, v in body.items()}

    async def items(self, collection: str | None = None, keys: list[str] | None = None) -> list[dict[str, Any]]:
        """Items in full (``{key, version, data}``): a collection's, the library's, or the given keys (50 a request)."""
        if keys is None:
            path = f"{self._prefix}/collections/{segment(collection)}/items" if collection else f"{self._prefix}/items"
            return await self._paged(path, {}, what="items")
        found: list[dict[str, Any]] = []
        for start in range(0, len(keys), BATCH):
            chunk = ",".join(keys[start:start + BATCH])
            found += await self._paged(f"{self._prefix}/items", {"itemKey": chunk}, what="items")
        return found

    async def write(self, kind: str, objects: list[dict[str, Any]]) -> WriteOutcome:
        """POST up to 50 objects (``items`` or ``collections``) with a fresh write token; per-object results.

        An object that carries ``key`` and ``version`` is updated only if Zotero still has that version (else
        it fails with 412 and the caller re-reads it); one without is created.

        Raises:
            UpstreamError: the whole request failed (its status and Zotero's message).
        """
        if len(objects) > BATCH:
            raise ValueError(f"at most {BATCH} objects per write")
        # A write token makes a retried POST (after a lost answer) a no-op instead of a second copy.
        token = secrets.token_hex(16)
        response = await self.send("POST", f"{self._prefix}/{kind}", json_body=objects,
                                   headers={"Zotero-Write-Token": token})
        http.raise_for_status(self.target.source, response, what=kind)
        body = http.parse_json(self.target.source, response)
        return WriteOutcome(
            successful={int(i): v for i, v in (body.get("successful") or {}).items()},
            unchanged={int(i): v for i, v in (body.get("unchanged") or {}).items()},
            failed={int(i): v for i, v in (body.get("failed") or {}).items()},
        )

    async def upload(self, item_key: str, *, filename: str, data: bytes, md5: str, mtime_ms: int) -> str:
        """The three-step file upload of an attachment item; ``"exists"`` when Zotero already has the file.

        Raises:
            UpstreamError: a step failed (its status).
        """
        path = f"{self._prefix}/items/{segment(item_key)}/file"
        form = {"Content-Type": "application/x-www-form-urlencoded", "If-None-Match": "*"}
        body = f"md5={md5}&filename={httpx.QueryParams({'f': filename})['f']}&filesize={len(data)}&mtime={mtime_ms}"
        response = await self.send("POST", path, headers=form, content=body.encode())
        http.raise_for_status(self.target.source, response, what="an upload authorization")
        grant = http.parse_json(self.target.source, response)
        if grant.get("exists"):
            return "exists"
        storage_path = _storage_path(grant["url"])
        sent = await self.send("POST", storage_path, source=STORAGE, headers={"Content-Type": grant["contentType"]},
                               content=grant["prefix"].encode() + data + grant["suffix"].encode())
        http.raise_for_status(STORAGE, sent, what="the file upload")
        done = await self.send("POST", path, headers=form, content=f"upload={grant['uploadKey']}".encode())
        http.raise_for_status(self.target.source, done, what="the upload registration")
        return "uploaded"


def _storage_path(url: str) -> str:
    """The path of Zotero's upload URL on its storage host (any other host is refused)."""
    base = SOURCES[STORAGE].default_base or ""
    if not url.startswith(base + "/"):
        raise UpstreamError("Zotero gave an upload URL on an unexpected host", source=WEB)
    return url[len(base):]



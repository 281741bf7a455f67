"""Notion's public API (api.notion.com) on our HTTP layer: one database, its pages and their blocks.

Why not the notion-client SDK: it opens an httpx client of its own (bypassing ``scholar.sources.http``: the proxy
base that points tests at the fake, the path check, pacing, usage records, secret scrubbing) and leaves 429 to
the caller. What a sync needs is small: read a database's schema, add properties to it, query it (paginated),
create and update pages, list a page's blocks (paginated) and replace them.

Why ``Notion-Version: 2022-06-28``: the last version in which a database is queried at
``/v1/databases/{id}/query`` with the database id a user copies from its link; 2025-09-03 splits a database into
data sources (queried by data source id), which this client does not speak.

The non-obvious constraints: Notion paginates every list with ``start_cursor`` / ``has_more`` / ``next_cursor``,
at most 100 a page, and appends at most 100 blocks a request; a query answers pages with their properties but
never their content (blocks are listed separately). It throttles at an average of three requests a second with
429 and ``Retry-After`` (waited out in ``scholar.sources.retry``, every wait through ``_sleep``). The token travels
in the ``Authorization`` header only, never in a URL, a message or a log line.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

import httpx
from pydantic import SecretStr

from scholar.core import redaction
from scholar.core.errors import ForbiddenError, NotFoundError, UpstreamError
from scholar.core.urlpath import segment
from scholar.sources import http, retry

__all__ = ["NOTION", "NOTION_VERSION", "PAGE", "TEXT_MAX", "NotionClient", "NotionDatabase"]

NOTION = "notion"
NOTION_VERSION = "2022-06-28"
# Notion's maximum page_size, and the most block children one request may append.
PAGE = 100
# The most characters one rich text object may carry (Notion's size limits).
TEXT_MAX = 2000
_sleep = asyncio.sleep  # tests replace it to see the waits without waiting


@dataclass(frozen=True)
class NotionDatabase:
    """Where to sync: a database (its id, with or without dashes) and the integration token that may reach it."""

    database_id: str
    token: SecretStr = field(repr=False)


class NotionClient:
    """One database of one integration; ``requests`` counts what was sent (the report says it)."""

    def __init__(self, target: NotionDatabase) -> None:
        self.target = target
        self.requests = 0
        redaction.remember(target.token)

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.target.token.get_secret_value()}", "Notion-Version": NOTION_VERSION}

    async def _call(self, method: str, path: str, *, what: str, body: Any = None,
                    params: dict[str, Any] | None = None) -> dict[str, Any]:
        async def count() -> None:
            self.requests += 1

        response = await retry.send(NOTION, method, path, sleep=_sleep, before=count, params=params, json_body=body,
                                    headers=self._headers())
        _raise_for_status(response, what=what)
        return http.parse_json(NOTION, response)

    async def _listed(self, method: str, path: str, *, what: str, body: dict[str, Any] | None = None) -> list[dict]:
        """Every result of a paginated list, 100 a request, following ``next_cursor`` while ``has_more``."""
        found: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            page_of = {"page_size": PAGE} | ({"start_cursor": cursor} if cursor else {})
            if method == "GET":
                answer = await self._call(method, path, what=what, params=page_of)
            else:
                answer = await self._call(method, path, what=what, body=(body or {}) | page_of)
            found += answer.get("results") or []
            cursor = answer.get("next_cursor")
            if not answer.get("has_more") or not cursor:
                return found

    @property
    def _database_path(self) -> str:
        return f"/v1/databases/{segment(self.target.database_id)}"

    async def database(self) -> dict[str, Any]:
        """The database object: its title and its properties' schema (name → {id, name, type, …})."""
        return await self._call("GET", self._database_path, what="the database")

    async def add_properties(self, properties: dict[str, Any]) -> dict[str, Any]:
        """Add properties (name → schema, e.g. ``{"Year": {"number": {}}}``) to the database; its new object."""
        return await self._call("PATCH", self._database_path, what="the database's properties",
                                body={"properties": properties})

    async def query(self, query_filter: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Every page of the database passing ``query_filter`` (properties only, never content)."""
        body = {"filter": query_filter} if query_filter else {}
        return await self._listed("POST", f"{self._database_path}/query", what="the database's pages", body=body)

    async def create_page(self, properties: dict[str, Any], children: list[dict[str, Any]]) -> dict[str, Any]:
        """A new page of the database with ``properties`` and its first 100 blocks; the rest appended after."""
        page = await self._call("POST", "/v1/pages", what="a new page", body={
            "parent": {"database_id": self.target.database_id}, "properties": properties, "children": children[:PAGE]})
        await self.append(page["id"], children[PAGE:])
        return page

    async def update_page(self, page_id: str, properties: dict[str, Any]) -> dict[str, Any]:
        """Change the given properties of a page (the others stay); the page as it is now."""
        return await self._call("PATCH", f"/v1/pages/{segment(page_id)}", what="a page",
                                body={"properties": properties})

    async def blocks(self, block_id: str) -> list[dict[str, Any]]:
        """The child blocks of a page (or block), in order; nested children are not read."""
        return await self._listed("GET", f"/v1/blocks/{segment(block_id)}/children", what="a page's content")

    async def append(self, block_id: str, children: list[dict[str, Any]]) -> int:
        """Append blocks at the end of a page, 100 a request; how many Notion added."""
        added = 0
        for start in range(0, len(children), PAGE):
            answer = await self._call("PATCH", f"/v1/blocks/{segment(block_id)}/children", what="a page's content",
                                      body={"children": children[start:start + PAGE]})
            added += len(answer.get("results") or [])
        return added

    async def delete_block(self, block_id: str) -> None:
        """Move a block to the trash (Notion's delete)."""
        await self._call("DELETE", f"/v1/blocks/{segment(block_id)}", what="a block")


def _raise_for_status(response: httpx.Response, *, what: str) -> None:
    """Translate Notion's error object (``{object: "error", status, code, message}``) into ours, once.

    Raises:
        ForbiddenError: 401 (the token is refused) or 403 (the integration lacks a capability).
        NotFoundError: 404: no such object, or not shared with the integration.
        UpstreamError: any other 4xx (Notion's code and message; 409 ``conflict_error`` is retryable).
    """
    status = response.status_code
    if status < 400:
        return
    code, message = _error(response)
    if status == 401:
        raise ForbiddenError("Notion refused the integration token (HTTP 401)", source=NOTION, status=401,
                             reason="notion_token_refused",
                             hint="Copy the internal integration's secret from notion.so/my-integrations into "
                                  "SCHOLAR_NOTION_TOKEN (or the keyring), then sync again.")
    if status == 403:
        raise ForbiddenError(f"Notion refused {what} (HTTP 403 {code}): {message}", source=NOTION, status=403,
                             reason="notion_capability_missing",
                             hint="Give the integration the read, update and insert content capabilities.")
    if status == 404:
        raise NotFoundError(f"Notion has no {what} this integration can see ({code})", source=NOTION, status=404,
                            reason="notion_object_not_found",
                            hint="Check the database id, and share the database with the integration (⋯ → "
                                 "Connections in Notion).")
    retryable = code == "conflict_error"
    raise UpstreamError(f"Notion refused the request for {what} (HTTP {status} {code}): {message}", source=NOTION,
                        status=status, retryable=retryable,
                        hint=None if retryable else "Notion refused this request; sending it unchanged will not help.")


def _error(response: httpx.Response) -> tuple[str, str]:
    """Notion's error code and message, trimmed and scrubbed of secrets."""
    try:
        body = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        return "unknown", http.excerpt(response)
    if not isinstance(body, dict):
        return "unknown", http.excerpt(response)
    return str(body.get("code") or "unknown"), http.scrub(str(body.get("message") or ""))[:200]

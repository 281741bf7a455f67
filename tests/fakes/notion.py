"""A fake Notion: the public API (``Notion-Version: 2022-06-28``) for one integration, in process, with state.

There are no recorded Notion responses, so this follows Notion's API reference (developers.notion.com/reference):
the database starts as ``synthetic_notion_database.json`` (the documented "Database object": a title property
"Name" and a user's own "Status" select), and every answer has the documented shape:

- ``GET``/``PATCH /v1/databases/{id}``: the database object; a PATCH adds properties (``{"Year": {"number": {}}}``).
- ``POST /v1/databases/{id}/query``: ``{object: "list", results, next_cursor, has_more}``; ``filter`` (the
  conditions a sync sends: rich_text ``equals`` / ``is_not_empty``, select ``equals``, ``and`` / ``or``),
  ``start_cursor``, ``page_size`` (at most 100). Results are page objects: properties, never content.
- ``POST /v1/pages``, ``PATCH /v1/pages/{id}``: page objects. Properties must exist in the database with the type
  sent (else 400 ``validation_error``); a select or multi-select option not there yet is created.
- ``GET``/``PATCH /v1/blocks/{id}/children`` (at most 100 a page, at most 100 appended a request),
  ``DELETE /v1/blocks/{id}``: block objects, listed apart from their page and paginated.
- The error object ``{object: "error", status, code, message}``: 401 ``unauthorized`` (a missing or wrong bearer
  token), 400 ``missing_version`` (no Notion-Version header), 400 ``validation_error`` (an unknown property, a
  rich text over 2,000 characters, more than 100 items), 404 ``object_not_found`` (an id it does not know),
  429 ``rate_limited`` with ``Retry-After`` when a test queues one (``throttles``).
- ``last_edited_time`` is rounded down to the minute, as Notion's is (``later`` moves this Notion's clock on).

Test hooks: ``throttles`` (the next answers are 429), ``refuse`` (titles a page create is refused for), ``edit``,
``type_notes`` and ``make_page`` (what a person does in Notion), ``log`` (every request with its headers and body).

What it does not do: relations, rollups, formulas, people, files, dates; nested blocks; sorts (results come in
creation order); the 2025-09-03 data sources; workspace search; anything a sync does not send.

Served through ``scholar.sources.http``'s transport factory (no socket): ``install()`` routes the source ``notion``
here; paths may carry the proxy base's ``/notion`` prefix.
"""

from __future__ import annotations

import copy
import json
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from scholar.sources import http

TOKEN = "ntn_fake0integration0secret0FAKE0123456789abcdef"
DATABASE = json.loads((Path(__file__).parent / "synthetic_notion_database.json").read_text())
DATABASE_ID = DATABASE["id"]
PAGE_MAX = 100
TEXT_MAX = 2000
_TEXT = ("title", "rich_text")
_ANNOTATIONS = {"bold": False, "italic": False, "strikethrough": False, "underline": False, "code": False,
                "color": "default"}


@dataclass
class Sent:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


class Refused(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def _id(value: str) -> str:
    return str(uuid.UUID(value))  # Notion takes an id with or without dashes


def rich(text: str) -> list[dict[str, Any]]:
    """Rich text objects as Notion answers them."""
    return [{"type": "text", "text": {"content": text, "link": None}, "annotations": dict(_ANNOTATIONS),
             "plain_text": text, "href": None}] if text else []


@dataclass
class FakeNotion:
    """The fake service. Tests read ``log``, edit ``pages`` and ``blocks`` as a user would, and queue faults."""

    token: str = TOKEN
    log: list[Sent] = field(default_factory=list)
    throttles: list[str] = field(default_factory=list)  # Retry-After values of the next 429 answers
    refuse: set[str] = field(default_factory=set)  # titles a page create answers 400 validation_error for
    databases: dict[str, dict[str, Any]] = field(default_factory=lambda: {DATABASE_ID: copy.deepcopy(DATABASE)})
    pages: dict[str, dict[str, Any]] = field(default_factory=dict)
    blocks: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # parent id → its child blocks
    later: timedelta = timedelta()  # how far this Notion's clock is ahead (a test's "ten minutes later")

    def _now(self) -> str:
        minute = (datetime.now(UTC) + self.later).replace(second=0, microsecond=0)
        return minute.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def install(self) -> None:
        """Route the source ``notion`` of ``scholar.sources.http`` here (undo: ``set_transport_factory(None)``)."""
        def factory(source: str) -> httpx.AsyncBaseTransport | None:
            return httpx.MockTransport(self.handle) if source == "notion" else None
        http.set_transport_factory(factory)

    def writes(self) -> list[Sent]:
        return [s for s in self.log if s.method != "GET" and not s.path.endswith("/query")]

    # ------------------------------------------------------------------ what a user does in Notion
    def page_of(self, scholar_id: str) -> dict[str, Any]:
        return next(p for p in self.pages.values() if "".join(
            t["plain_text"] for t in p["properties"].get("Scholar ID", {}).get("rich_text", [])) == scholar_id)

    def edit(self, page_id: str, properties: dict[str, Any]) -> None:
        """Change properties as a person would (request-shaped values, as the API takes them)."""
        self._set_properties(self.pages[page_id], properties)

    def make_page(self, properties: dict[str, Any]) -> dict[str, Any]:
        """A page made by hand in the database (request-shaped properties)."""
        return self._create({"parent": {"database_id": DATABASE_ID}, "properties": properties})

    def type_notes(self, page_id: str, *paragraphs: str) -> None:
        """Replace the page's content with these paragraphs, as a person typing."""
        self.blocks[page_id] = [self._block(page_id, {"type": "paragraph", "paragraph": {"rich_text": [
            {"type": "text", "text": {"content": p}}]}}) for p in paragraphs]
        self.pages[page_id]["last_edited_time"] = self._now()

    def text_of(self, page_id: str) -> list[str]:
        return ["".join(t["plain_text"] for t in b[b["type"]]["rich_text"]) for b in self.blocks.get(page_id, [])]

    # ------------------------------------------------------------------ the API
    async def handle(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path.removeprefix("/notion")
        body = json.loads(request.content) if request.content else None
        self.log.append(Sent(request.method, path, dict(request.headers), body))
        try:
            if request.headers.get("Authorization") != f"Bearer {self.token}":
                raise Refused(401, "unauthorized", "API token is invalid.")
            if not request.headers.get("Notion-Version"):
                raise Refused(400, "missing_version", "Notion-Version header failed validation: Notion-Version "
                                                      "header should be defined, instead was `undefined`.")
            if self.throttles:
                return httpx.Response(429, headers={"Retry-After": self.throttles.pop(0)}, json=_error(
                    429, "rate_limited", "You have been rate limited. Please try again in a few minutes."))
            return httpx.Response(200, json=self._route(request.method, path.strip("/").split("/")[1:], body or {},
                                                        dict(request.url.params)))
        except Refused as refused:
            return httpx.Response(refused.status, json=_error(refused.status, refused.code, refused.message))

    def _route(self, method: str, parts: list[str], body: dict[str, Any], params: dict[str, str]) -> Any:
        match method, parts:
            case "GET", ["databases", database]:
                return self._database(database)
            case "PATCH", ["databases", database]:
                return self._add_properties(self._database(database), body.get("properties") or {})
            case "POST", ["databases", database, "query"]:
                return self._query(self._database(database), body)
            case "POST", ["pages"]:
                return self._create(body)
            case "PATCH", ["pages", page]:
                return self._set_properties(self._page(page), body.get("properties") or {})
            case "GET", ["blocks", parent, "children"]:
                return _listed(self.blocks.get(self._page(parent)["id"], []), params, "block")
            case "PATCH", ["blocks", parent, "children"]:
                return self._append(self._page(parent)["id"], body.get("children") or [])
            case "DELETE", ["blocks", block]:
                return self._delete(block)
        raise Refused(400, "invalid_request_url", "Invalid request URL.")

    def _database(self, database: str) -> dict[str, Any]:
        found = self.databases.get(_id(database))
        if found is None:
            raise Refused(404, "object_not_found", f"Could not find database with ID: {database}.")
        return found

    def _page(self, page: str) -> dict[str, Any]:
        found = self.pages.get(_id(page))
        if found is None or found["archived"]:
            raise Refused(404, "object_not_found", f"Could not find page with ID: {page}.")
        return found

    def _add_properties(self, database: dict[str, Any], properties: dict[str, Any]) -> dict[str, Any]:
        for name, schema in properties.items():
            kind = next(iter(schema))
            config = {"options": []} if kind in ("select", "multi_select") else dict(schema[kind])
            database["properties"][name] = {"id": uuid.uuid4().hex[:4], "name": name, "type": kind, kind: config}
        database["last_edited_time"] = self._now()
        return database

    def _query(self, database: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        found = [p for p in self.pages.values() if p["parent"]["database_id"] == database["id"] and not p["archived"]
                 and _passes(p, body.get("filter"))]
        return _listed(found, body, "page_or_database")

    def _create(self, body: dict[str, Any]) -> dict[str, Any]:
        database = self._database((body.get("parent") or {}).get("database_id", ""))
        now = self._now()
        page_id = str(uuid.uuid4())
        page = {"object": "page", "id": page_id, "created_time": now, "last_edited_time": now,
                "created_by": {"object": "user", "id": "bot"}, "last_edited_by": {"object": "user", "id": "bot"},
                "cover": None, "icon": None, "parent": {"type": "database_id", "database_id": database["id"]},
                "archived": False, "in_trash": False,
                "properties": {name: _empty(schema) for name, schema in database["properties"].items()},
                "url": f"https://www.notion.so/{page_id.replace('-', '')}", "public_url": None}
        self._check_properties(database, body.get("properties") or {})
        title = next((v for v in (body.get("properties") or {}).values() if "title" in v), {"title": []})["title"]
        if "".join(t["text"]["content"] for t in title) in self.refuse:
            raise Refused(400, "validation_error", "body failed validation: this page is refused by the test.")
        children = body.get("children") or []
        _check_count(children, "body.children")
        self.pages[page_id] = page
        self._set_properties(page, body.get("properties") or {})
        self.blocks[page_id] = [self._block(page_id, b) for b in children]
        return copy.deepcopy(page)

    def _check_properties(self, database: dict[str, Any], properties: dict[str, Any]) -> None:
        for name, value in properties.items():
            schema = database["properties"].get(name)
            if schema is None:
                raise Refused(400, "validation_error", f"{name} is not a property that exists.")
            if schema["type"] not in value:
                raise Refused(400, "validation_error", f"{name} is expected to be {schema['type']}.")
            for part in value[schema["type"]] if schema["type"] in _TEXT else []:
                if len(part["text"]["content"]) > TEXT_MAX:
                    raise Refused(400, "validation_error", f"body.properties.{name}.{schema['type']}[0].text.content"
                                  f".length should be ≤ `{TEXT_MAX}`, instead was `{len(part['text']['content'])}`.")
            if isinstance(value[schema["type"]], list):
                _check_count(value[schema["type"]], f"body.properties.{name}")

    def _set_properties(self, page: dict[str, Any], properties: dict[str, Any]) -> dict[str, Any]:
        database = self.databases[page["parent"]["database_id"]]
        self._check_properties(database, properties)
        for name, value in properties.items():
            schema = database["properties"][name]
            kind = schema["type"]
            page["properties"][name] = {"id": schema["id"], "type": kind, kind: _stored(schema, value[kind])}
        page["last_edited_time"] = self._now()
        return copy.deepcopy(page)

    def _block(self, parent: str, block: dict[str, Any]) -> dict[str, Any]:
        kind = block["type"]
        for part in block[kind].get("rich_text", []):
            if len(part["text"]["content"]) > TEXT_MAX:
                raise Refused(400, "validation_error", f"body.children[0].{kind}.rich_text[0].text.content.length "
                                                       f"should be ≤ `{TEXT_MAX}`.")
        now = self._now()
        return {"object": "block", "id": str(uuid.uuid4()), "parent": {"type": "page_id", "page_id": parent},
                "created_time": now, "last_edited_time": now, "has_children": False, "archived": False,
                "in_trash": False, "type": kind,
                kind: {"rich_text": [rich(p["text"]["content"])[0] for p in block[kind].get("rich_text", [])],
                       "color": "default"}}

    def _append(self, parent: str, children: list[dict[str, Any]]) -> dict[str, Any]:
        _check_count(children, "body.children")
        new = [self._block(parent, b) for b in children]
        self.blocks.setdefault(parent, []).extend(new)
        self.pages[parent]["last_edited_time"] = self._now()
        return {"object": "list", "results": copy.deepcopy(new), "next_cursor": None, "has_more": False,
                "type": "block", "block": {}}

    def _delete(self, block_id: str) -> dict[str, Any]:
        for parent, children in self.blocks.items():
            for block in children:
                if block["id"] == _id(block_id):
                    children.remove(block)
                    self.pages[parent]["last_edited_time"] = self._now()
                    return block | {"archived": True, "in_trash": True}
        raise Refused(404, "object_not_found", f"Could not find block with ID: {block_id}.")


def _error(status: int, code: str, message: str) -> dict[str, Any]:
    return {"object": "error", "status": status, "code": code, "message": message,
            "request_id": str(uuid.uuid4())}


def _check_count(items: list[Any], where: str) -> None:
    if len(items) > PAGE_MAX:
        raise Refused(400, "validation_error", f"{where}.length should be ≤ `{PAGE_MAX}`, instead was `{len(items)}`.")


def _listed(items: list[dict[str, Any]], args: dict[str, Any], kind: str) -> dict[str, Any]:
    size = int(args.get("page_size") or PAGE_MAX)
    if size > PAGE_MAX:
        raise Refused(400, "validation_error", f"body.page_size should be ≤ `{PAGE_MAX}`, instead was `{size}`.")
    ids = [i["id"] for i in items]
    start = ids.index(args["start_cursor"]) if args.get("start_cursor") in ids else 0
    chunk = items[start:start + size]
    more = start + size < len(items)
    return {"object": "list", "results": copy.deepcopy(chunk), "next_cursor": ids[start + size] if more else None,
            "has_more": more, "type": kind, kind: {}}


def _empty(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema["type"]
    value: Any = [] if kind in (*_TEXT, "multi_select") else None
    return {"id": schema["id"], "type": kind, kind: value}


def _stored(schema: dict[str, Any], value: Any) -> Any:
    """A property value as Notion answers it: rich text filled in, select options looked up or created."""
    kind = schema["type"]
    if kind in _TEXT:
        return [rich(part["text"]["content"])[0] for part in value if part["text"]["content"]]
    if kind in ("select", "multi_select"):
        options = schema[kind]["options"]

        def option(name: str) -> dict[str, Any]:
            found = next((o for o in options if o["name"] == name), None)
            if found is None:
                found = {"id": uuid.uuid4().hex[:8], "name": name, "color": "default"}
                options.append(found)
            return dict(found)

        if kind == "select":
            return option(value["name"]) if value else None
        return [option(v["name"]) for v in value]
    return value


def _passes(page: dict[str, Any], condition: dict[str, Any] | None) -> bool:
    if not condition:
        return True
    if "and" in condition:
        return all(_passes(page, c) for c in condition["and"])
    if "or" in condition:
        return any(_passes(page, c) for c in condition["or"])
    value = page["properties"].get(condition["property"], {})
    if "rich_text" in condition:
        text = "".join(t["plain_text"] for t in value.get("rich_text", []))
        test = condition["rich_text"]
        return text == test["equals"] if "equals" in test else bool(text) == test.get("is_not_empty", False)
    if "select" in condition:
        return (value.get("select") or {}).get("name") == condition["select"]["equals"]
    raise Refused(400, "validation_error", "This fake filters on rich_text and select only.")

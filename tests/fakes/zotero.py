"""A fake Zotero: the Web API v3 (with its file storage) and the desktop's local API, in process, with state.

Built on the real shapes: the library starts as the recorded public library ("Z public library", user 475425:
``../shared/fixtures/zotero/items_doc.json`` and ``collections_doc.json``, PROVENANCE there) and the item types
it accepts are the recorded ``item_types.json``. What the recordings do not hold follows the Web API
documentation: ``Last-Modified-Version``, ``Total-Results`` and ``Link`` headers, the write answer
(``successful`` / ``success`` / ``unchanged`` / ``failed`` by position), versions and 412 on a stale one, the
write token, 429 with ``Retry-After``, the ``Backoff`` header, and the three-step upload (authorization,
the storage POST of prefix + file + suffix, registration; ``{"exists": 1}`` for a file already there).

Served through ``scholar.sources.http``'s transport factory (no socket): ``install()`` routes the sources
``zotero``, ``zotero_storage`` and ``zotero_local`` here; paths may carry the proxy base's ``/<source>`` prefix.
"""

from __future__ import annotations

import asyncio
import copy
import json
import secrets
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

import httpx

from scholar.sources import http
from tests.fixtures_dir import fixtures_dir

PUBLIC_LIBRARY = "users/475425"
STORAGE_URL = "https://zoterofilestorage.s3.amazonaws.com/"
_KEY_ALPHABET = "23456789ABCDEFGHIJKLMNPQRSTUVWXYZ"


def _recorded(name: str) -> Any:
    return json.loads((fixtures_dir() / "zotero" / name).read_text())


@dataclass
class Library:
    version: int = 1
    items: dict[str, dict[str, Any]] = field(default_factory=dict)
    collections: dict[str, dict[str, Any]] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)  # item key → md5 of its stored file


@dataclass
class Sent:
    source: str
    method: str
    path: str
    headers: dict[str, str]


class FakeZotero:
    """The fake service. Tests read ``log``, edit ``libraries`` as a user would, and queue faults."""

    def __init__(self, *, api_key: str = "fake-zotero-key-0123456789", delay_s: float = 0.0) -> None:
        self.api_key = api_key
        self.delay_s = delay_s
        self.local_enabled = True
        self.log: list[Sent] = []
        self.throttles: list[dict[str, str]] = []  # headers of the next 429 answers
        self.backoffs: list[str] = []  # Backoff header values for the next successful answers
        self.refuse: dict[str, tuple[int, str]] = {}  # title → (code, message) for a failed object
        self._tokens: set[str] = set()
        self._uploads: dict[str, tuple[str, str, bytes, bytes]] = {}
        self.libraries: dict[str, Library] = {PUBLIC_LIBRARY: self._public_library()}

    @staticmethod
    def _public_library() -> Library:
        library = Library()
        for obj in _recorded("items_doc.json"):
            library.items[obj["key"]] = {"key": obj["key"], "version": obj["version"], "data": obj["data"]}
        for obj in _recorded("collections_doc.json"):
            library.collections[obj["key"]] = {"key": obj["key"], "version": obj["version"], "data": obj["data"]}
        library.version = max([1, *(o["version"] for o in [*library.items.values(), *library.collections.values()])])
        return library

    def install(self) -> None:
        """Route the Zotero sources of ``scholar.sources.http`` to this fake (undo: ``set_transport_factory(None)``)."""
        def factory(source: str) -> httpx.AsyncBaseTransport | None:
            if source in ("zotero", "zotero_storage", "zotero_local"):
                return httpx.MockTransport(lambda request: self.handle(source, request))
            return None
        http.set_transport_factory(factory)

    def writes(self) -> list[Sent]:
        return [s for s in self.log if s.method != "GET"]

    def edit(self, key: str, library: str = PUBLIC_LIBRARY, **data: Any) -> None:
        """Change an item as its owner would in Zotero (a new library version)."""
        lib = self.libraries[library]
        lib.version += 1
        lib.items[key]["data"].update(data)
        lib.items[key]["version"] = lib.items[key]["data"]["version"] = lib.version

    async def handle(self, source: str, request: httpx.Request) -> httpx.Response:
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        path = request.url.path
        if path.startswith(f"/{source}/"):
            path = path[len(source) + 1:]
        self.log.append(Sent(source, request.method, path, dict(request.headers)))
        if source == "zotero_storage":
            return self._store_file(request)
        if source == "zotero_local":
            if not self.local_enabled:
                return httpx.Response(403, text="Local API is not enabled")
            path = path.removeprefix("/api")
        elif request.headers.get("Zotero-API-Key") != self.api_key:
            return httpx.Response(403, text="Forbidden")
        if self.throttles:
            return httpx.Response(429, headers=self.throttles.pop(0), text="Too Many Requests")
        response = self._route(request, path)
        if self.backoffs and response.status_code < 400:
            response.headers["Backoff"] = self.backoffs.pop(0)
        return response

    def _route(self, request: httpx.Request, path: str) -> httpx.Response:
        parts = path.strip("/").split("/")
        library = self.libraries.setdefault("/".join(parts[:2]), Library())
        rest = parts[2:]
        params = dict(request.url.params)
        if request.method == "GET" and rest == ["collections"]:
            return self._page(library, list(library.collections.values()), params)
        if request.method == "GET" and rest == ["items"]:
            return self._list(library, list(library.items.values()), params)
        if request.method == "GET" and len(rest) == 3 and rest[0] == "collections" and rest[2] == "items":
            members = {k for k, o in library.items.items() if rest[1] in o["data"].get("collections", [])}
            chosen = [o for k, o in library.items.items() if k in members or o["data"].get("parentItem") in members]
            return self._list(library, chosen, params)
        if request.method == "POST" and rest in (["items"], ["collections"]):
            return self._write(library, rest[0], request)
        if request.method == "POST" and len(rest) == 3 and rest[0] == "items" and rest[2] == "file":
            return self._file(library, rest[1], request)
        return httpx.Response(404, text="Not found")

    def _list(self, library: Library, objects: list[dict[str, Any]], params: dict[str, str]) -> httpx.Response:
        if "itemKey" in params:
            wanted = set(params["itemKey"].split(","))
            objects = [o for o in objects if o["key"] in wanted]
        if params.get("format") == "versions":
            return _json({o["key"]: o["version"] for o in objects}, library)
        return self._page(library, objects, params)

    def _page(self, library: Library, objects: list[dict[str, Any]], params: dict[str, str]) -> httpx.Response:
        start, limit = int(params.get("start", 0)), min(100, int(params.get("limit", 25)))
        page = objects[start:start + limit]
        response = _json([copy.deepcopy(o) for o in page], library)
        response.headers["Total-Results"] = str(len(objects))
        if start + limit < len(objects):
            response.headers["Link"] = f'<https://api.zotero.org/?start={start + limit}&limit={limit}>; rel="next"'
        return response

    def _write(self, library: Library, kind: str, request: httpx.Request) -> httpx.Response:
        token = request.headers.get("Zotero-Write-Token")
        if token in self._tokens:
            return httpx.Response(412, text="Write token already used")
        if token:
            self._tokens.add(token)
        objects = json.loads(request.content)
        if len(objects) > 50:
            return httpx.Response(413, text="Only 50 objects can be written at a time")
        store = library.items if kind == "items" else library.collections
        library.version += 1
        answer: dict[str, dict[str, Any]] = {"successful": {}, "success": {}, "unchanged": {}, "failed": {}}
        for position, obj in enumerate(objects):
            index = str(position)
            key = obj.get("key") or "".join(secrets.choice(_KEY_ALPHABET) for _ in range(8))
            old = store.get(key)
            if obj.get("title") in self.refuse:
                code, message = self.refuse[obj["title"]]
                answer["failed"][index] = {"key": key, "code": code, "message": message}
            elif old is not None and "version" in obj and obj["version"] != old["version"]:
                answer["failed"][index] = {"key": key, "code": 412, "message": (
                    f"Item has been modified since specified version (expected {obj['version']}, "
                    f"found {old['version']})")}
            elif kind == "items" and obj.get("itemType") not in _item_types():
                answer["failed"][index] = {"key": key, "code": 400, "message": f"'{obj.get('itemType')}' is not a "
                                                                               "valid itemType"}
            elif old is not None and _same(old["data"], obj):
                answer["unchanged"][index] = key
            else:
                data = (copy.deepcopy(old["data"]) if old else {}) | {k: v for k, v in obj.items() if k != "version"}
                data |= {"key": key, "version": library.version}
                store[key] = {"key": key, "version": library.version, "data": data}
                answer["successful"][index] = copy.deepcopy(store[key])
                answer["success"][index] = key
        return _json(answer, library)

    def _file(self, library: Library, key: str, request: httpx.Request) -> httpx.Response:
        form = {k: v[0] for k, v in parse_qs(request.content.decode()).items()}
        if "upload" in form:
            pending = self._uploads.pop(form["upload"], None)
            if pending is None or pending[0] != key:
                return httpx.Response(400, text="Upload key not found")
            library.files[key] = pending[1]
            library.version += 1
            return httpx.Response(204, headers={"Last-Modified-Version": str(library.version)})
        if library.files.get(key) == form.get("md5"):
            return _json({"exists": 1}, library)
        upload_key = secrets.token_hex(16)
        prefix, suffix = secrets.token_hex(8), secrets.token_hex(8)
        self._uploads[upload_key] = (key, form["md5"], prefix.encode(), suffix.encode())
        return _json({"url": STORAGE_URL, "contentType": "multipart/form-data; boundary=fake", "prefix": prefix,
                      "suffix": suffix, "uploadKey": upload_key}, library)

    def _store_file(self, request: httpx.Request) -> httpx.Response:
        body = request.content
        for _key, _md5, prefix, suffix in self._uploads.values():
            if body.startswith(prefix) and body.endswith(suffix):
                return httpx.Response(201)
        return httpx.Response(400, text="The upload does not match an authorization")


def _item_types() -> frozenset[str]:
    return frozenset(t["itemType"] for t in _recorded("item_types.json")) | {"preprint", "standard", "attachment",
                                                                             "note"}


def _same(old: dict[str, Any], new: dict[str, Any]) -> bool:
    return all(old.get(k) == v for k, v in new.items() if k not in ("key", "version"))


def _json(body: Any, library: Library) -> httpx.Response:
    return httpx.Response(200, json=body, headers={"Last-Modified-Version": str(library.version)})

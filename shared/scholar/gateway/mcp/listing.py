"""A memo of tools/list answers: the SDK's own response, replayed with the request's id.

tools/list depends only on this environment's settings (fixed for its life), the toolsets query, the
protocol version and the request's params (2026 clients repeat the same ``_meta``), never on the caller.
Building it means validating and serialising ~30 tool schemas per call (~180 KB), which dominates the
gateway's warm cost; the first answer for each key is kept and replayed byte for byte but for the id.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from scholar.core.config import get_settings

Send = Callable[[dict[str, Any]], Awaitable[None]]
MAX_ENTRIES = 32
_SKIPPED_HEADERS = {b"content-length", b"date"}


class ListingMemo:
    """Keyed tools/list responses (headers and the serialised ``result``)."""

    def __init__(self) -> None:
        self._entries: OrderedDict[str, tuple[list[tuple[bytes, bytes]], bytes]] = OrderedDict()

    @staticmethod
    def key(scope: dict[str, Any], message: dict[str, Any]) -> str | None:
        """The memo key of a tools/list request, or None when it must go to the SDK (paging, not a request)."""
        if message.get("method") != "tools/list" or "id" not in message:
            return None
        params = message.get("params") or {}
        if not isinstance(params, dict) or params.get("cursor"):
            return None
        headers = dict(scope.get("headers") or [])
        if headers.get(b"mcp-method", b"tools/list") != b"tools/list":
            return None  # the SDK refuses a routing header that contradicts the body
        version = headers.get(b"mcp-protocol-version", b"").decode("latin-1")
        query = scope.get("query_string", b"").decode("latin-1")
        # Settings are read once per environment; a re-read (tests) is a new object and a new key.
        settings = id(get_settings())
        return json.dumps([settings, version, query, params], sort_keys=True, separators=(",", ":"))

    async def replay(self, key: str, request_id: Any, send: Send) -> bool:
        entry = self._entries.get(key)
        if entry is None:
            return False
        headers, result = entry
        body = b'{"jsonrpc":"2.0","id":' + json.dumps(request_id).encode() + b',"result":' + result + b"}"
        await send({"type": "http.response.start", "status": 200,
                    "headers": [*headers, (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
        return True

    def recording(self, key: str, send: Send) -> Send:
        """Wrap ``send`` so that a successful JSON answer is remembered under ``key``."""
        start: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def wrapped(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body"):
                    self._remember(key, start, b"".join(chunks))
            await send(message)

        return wrapped

    def _remember(self, key: str, start: dict[str, Any], body: bytes) -> None:
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() not in _SKIPPED_HEADERS]
        if start.get("status") != 200 or not any(v.startswith(b"application/json") for k, v in headers
                                                   if k.lower() == b"content-type"):
            return
        try:
            answer = json.loads(body)
        except ValueError:
            return
        if not isinstance(answer, dict) or "result" not in answer or "error" in answer:
            return
        self._entries[key] = (headers, json.dumps(answer["result"], separators=(",", ":")).encode())
        while len(self._entries) > MAX_ENTRIES:
            self._entries.popitem(last=False)

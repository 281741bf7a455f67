"""One side of a transfer held in memory, for the flow's tests without a server: a ``transfer.Library`` whose tools
answer as the real ones do (library_export: ``to_jsonl``; library_import: the real ``parse_snapshot`` and
``import_items``, so a refused line is named as the tool names it) over tests.library.corpus.MemoryLibrary;
download_paper, when offered, is the test's own stand-in."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from unittest.mock import patch

from scholar.local import transfer
from scholar.services.library.export import to_jsonl
from scholar.services.library.snapshot import import_items, parse_snapshot
from scholar.store.library import bounds
from tests.library.corpus import MemoryLibrary


def memory_library(store: MemoryLibrary, tools: tuple[str, ...] = transfer.WRITING_TOOLS,
                   limits: dict[str, int] | None = None,
                   download: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]] | None = None) -> transfer.Library:
    """``limits``: this side's own bounds (store/library/bounds.py LIMITS) where they differ, for its import;
    ``download``: answers download_paper (offered then) with its arguments."""
    shelves: list[str] = []

    async def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        held = list(store.iter_items())
        if name == "library_export":
            return {"format": "jsonl", "count": len(held), "content": to_jsonl(held)}
        if name == "library_import":
            with patch.dict(bounds.LIMITS, limits or {}):
                summary = import_items(store, parse_snapshot(arguments["jsonl"]).items)
            return {"items": len(summary.added) + len(summary.updated) + len(summary.skipped)}
        if name == transfer.KEEP_TOOL and download is not None:
            return await download(arguments)
        if arguments["action"] == "create":
            shelves.append(arguments["name"])
            return {"name": arguments["name"]}
        return {"collections": [{"name": shelf} for shelf in dict.fromkeys([*shelves, *(i.collection for i in held)])]}

    async def never(result: dict[str, Any]) -> str:
        raise AssertionError("a library in memory answers its export inline")

    offered = (*tools, transfer.KEEP_TOOL) if download is not None else tools
    return transfer.Library("memory", call, never, frozenset(offered))

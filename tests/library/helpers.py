"""Library items built from real recorded Semantic Scholar records (never invented papers)."""

from __future__ import annotations

import json
from functools import cache

from scholar.core.paper_mapping import from_s2
from scholar.store.library.models import LibraryItem, item_id_for
from tests.fixtures_dir import fixtures_dir

# 100 real records (paperId, title) of S2's /paper/search?query=turing (PROVENANCE-papers.md).
TURING_SEARCH = "upstream/semantic_scholar/search_paper_turing.json"
NOW = "2026-12-01T12:00:00Z"


@cache
def _records() -> tuple[dict, ...]:
    return tuple(json.loads((fixtures_dir() / TURING_SEARCH).read_text())["data"])


def recorded_item(n: int, *, collection: str = "inbox", tags: tuple[str, ...] = ()) -> LibraryItem:
    """The library item of the n-th recorded search result."""
    record = _records()[n]
    paper = from_s2(record, ("paperId", "title"))
    return LibraryItem(
        item_id=item_id_for(f"s2:{record['paperId']}"),
        collection=collection,
        ids=[record["paperId"]],
        paper=paper.model_dump(mode="json"),
        tags=list(tags),
        added_at=NOW,
        updated_at=NOW,
    )

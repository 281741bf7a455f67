"""Upstream payloads → ``Paper`` records (one function per upstream shape)."""

from __future__ import annotations

from typing import Any

# The upstream mappings are core (scholar.core.paper_mapping): the research family maps the same payloads.
from scholar.core.paper_mapping import from_crossref, from_openalex, from_s2
from scholar.core.records import Paper
from scholar.families.papers.fields import LIST_ABSTRACT_CHARS, LIST_AUTHORS

__all__ = ["from_crossref", "from_openalex", "from_s2", "shorten_for_list"]


def shorten_for_list(paper: Paper) -> Paper:
    """Compact form for lists: abstract and author list cut, with the cut stated."""
    update: dict[str, Any] = {}
    if paper.abstract and len(paper.abstract) > LIST_ABSTRACT_CHARS:
        update["abstract"] = paper.abstract[:LIST_ABSTRACT_CHARS].rstrip() + "…"
        update["abstractTruncated"] = True
    if paper.authors and len(paper.authors) > LIST_AUTHORS:
        update["authors"] = paper.authors[:LIST_AUTHORS]
        update["authorCount"] = len(paper.authors)
    return paper.model_copy(update=update) if update else paper

"""The size budget of an answer (DESIGN §4): how many leading items of a list fit it, measured as sent.

A tool that advertises ``max_result_chars`` (``_meta["anthropic/maxResultSizeChars"]``) cuts its lists here and
says so in its answer (``truncated``, ``next_offset``, ``omitted``); ``runtime.results.enforce_cap`` refuses
whatever still passes the advertised size, so the number a client reads is a cap the code keeps.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, Self, TypeVar

from pydantic import BaseModel

from scholar.core.catalogue import MAX_RESULT_CHARS

# Room left for the answer's other fields (paging, counts, notes) beside its list.
RESERVE = 2_000
# In lists, and in a record too long for the budget, long abstracts and author lists are shortened.
LIST_ABSTRACT_CHARS = 500
LIST_AUTHORS = 5
T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)


class ListedPaper(Protocol):
    """A paper record with ``authors``, ``authorCount``, ``abstract`` and ``abstractTruncated``: Paper, or arXiv's."""

    @property
    def abstract(self) -> str | None: ...

    @property
    def authors(self) -> Sequence[object] | None: ...

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self: ...


P = TypeVar("P", bound=ListedPaper)


def json_chars(value: Any) -> int:
    """Characters of ``value`` (a model or plain JSON data) as the gateway's text block writes it."""
    if isinstance(value, BaseModel):
        return len(value.model_dump_json())
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def fit(items: Sequence[T], reserve: int = RESERVE) -> tuple[list[T], bool]:
    """The leading items whose JSON fits the size budget less ``reserve``, and whether any were cut."""
    used = 0
    for position, item in enumerate(items):
        used += json_chars(item) + 1
        if used > MAX_RESULT_CHARS - reserve:
            return list(items[:position]), True
    return list(items), False


def fit_field(model: M, field: str, reserve: int = RESERVE, flag: str | None = None) -> tuple[M, bool]:
    """``model`` with its list ``field`` cut to the leading items that fit the budget beside the rest of the model
    (and its boolean ``flag`` set when they were cut), and whether any were."""
    items = getattr(model, field) or []
    kept, cut = fit(items, reserve=reserve + json_chars(model.model_copy(update={field: []})))
    if not cut:
        return model, False
    return model.model_copy(update={field: kept, **({flag: True} if flag else {})}), True


def shorten_for_list(paper: P) -> P:
    """Compact form for lists: abstract and author list cut to the caps above, with the cut stated."""
    update: dict[str, Any] = {}
    if paper.abstract and len(paper.abstract) > LIST_ABSTRACT_CHARS:
        update["abstract"] = paper.abstract[:LIST_ABSTRACT_CHARS].rstrip() + "…"
        update["abstractTruncated"] = True
    if paper.authors and len(paper.authors) > LIST_AUTHORS:
        update["authors"] = paper.authors[:LIST_AUTHORS]
        update["authorCount"] = len(paper.authors)
    return paper.model_copy(update=update) if update else paper


def fit_paper(paper: P, reserve: int = RESERVE) -> P:
    """``paper`` whole when it fits the budget, else shortened as in lists (authorCount, abstractTruncated say so).

    A collaboration of thousands of authors is a record of a few hundred thousand characters.
    """
    return paper if json_chars(paper) <= MAX_RESULT_CHARS - reserve else shorten_for_list(paper)


def fit_papers(papers: Sequence[P], reserve: int = RESERVE) -> tuple[list[P], bool]:
    """The leading papers that fit the budget, each first shortened (``fit_paper``) if alone it would not: a page
    is never empty because of one collaboration's record."""
    return fit([fit_paper(p, reserve) for p in papers], reserve)

"""Every bound of ``scholar.store.library.bounds.LIMITS`` is tested, generated from the table itself (issue #40
item 12): a rule added to the table is tested the day it is added, with no test to write.

For each entry, one real recorded item (tests/connectors/items.py) has that one field grown to exactly the limit
(accepted) and to one past it (``too_large`` naming that field and that limit). How a field is grown is read off
its name, the table's own notation: ``a.b`` a text (or, when the item holds a list or mapping there, that many
entries), ``x[]`` one entry of the list or mapping ``x`` that long, ``x[].y`` the text ``y`` of one entry of
``x``, and ``record`` the whole record (padded with an unknown key, which only that bound covers).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from scholar.core.errors import TooLargeError
from scholar.store.library.bounds import LIMITS, REASON, oversized
from scholar.store.library.models import LibraryItem
from tests.connectors.items import epmc_items, with_pdf


def _base() -> LibraryItem:
    (item,) = epmc_items(1)
    return with_pdf(item.model_copy(update={"notes": "n", "tags": ["t"]}), b"%PDF-1.7", "0" * 64)


def _entries(current: list[Any] | dict[str, Any], count: int) -> Any:
    """``count`` distinct entries in a container like ``current`` (a mapping, or a list like its first entry)."""
    if isinstance(current, dict):
        return {f"K{i}": "v" for i in range(count)}
    if isinstance(current[0], str):
        return [f"{current[0][:20]}{i}" for i in range(count)]
    return [current[0]] * count


def _get(item: LibraryItem, path: list[str]) -> Any:
    value: Any = item
    for name in path:
        value = value.get(name) if isinstance(value, dict) else getattr(value, name)
    return value


def _set(item: LibraryItem, path: list[str], value: Any) -> LibraryItem:
    if len(path) == 1:
        return item.model_copy(update={path[0]: value})  # no validation: the bound is what is tested
    top = copy.deepcopy(getattr(item, path[0]))
    holder = top
    for name in path[1:-1]:
        holder = holder[name]
    holder[path[-1]] = value
    return item.model_copy(update={path[0]: top})


def grown(item: LibraryItem, field: str, size: int) -> LibraryItem:
    """``item`` with ``field`` (named as LIMITS names it) grown to ``size``."""
    if field == "record":
        padded = _set(item, ["paper", "unbounded_extra"], "x" * 1_000_000)
        over = oversized(padded)
        assert over is not None and over.details["field"] == "record"
        return _set(item, ["paper", "unbounded_extra"], "x" * (size - (over.details["size"] - 1_000_000)))
    if "[]." in field:
        listed, inner = field.split("[].")
        entries = list(_get(item, listed.split(".")))
        first = entries[0]
        entries[0] = (
            first | {inner: "a" * size} if isinstance(first, dict) else first.model_copy(update={inner: "a" * size})
        )
        return _set(item, listed.split("."), entries)
    if field.endswith("[]"):
        path = field[:-2].split(".")
        current = _get(item, path)
        if isinstance(current, dict):
            return _set(item, path, {**current, "LONG": "a" * size})
        return _set(item, path, [*current[1:], "a" * size])
    path = field.split(".")
    current = _get(item, path)
    if isinstance(current, list | dict):
        return _set(item, path, _entries(current, size))
    return _set(item, path, "a" * size)


@pytest.mark.parametrize("field", sorted(LIMITS))
def test_each_bound_accepts_its_limit_and_refuses_one_past_it_naming_the_field(field):
    limit = LIMITS[field]
    assert oversized(grown(_base(), field, limit)) is None
    error = oversized(grown(_base(), field, limit + 1))
    assert isinstance(error, TooLargeError) and error.reason == REASON
    assert (error.details["field"], error.details["limit"], error.details["size"]) == (field, limit, limit + 1)


def test_no_bound_is_ever_dropped_from_the_table():
    # a floor: a new entry is tested by the generated test above the day it is added; removing one is red here
    assert set(LIMITS) >= {
        "paper.title",
        "paper.abstract",
        "paper.tldr",
        "paper.venue",
        "paper.authors",
        "paper.authors[].name",
        "ids",
        "ids[]",
        "paper.externalIds",
        "paper.externalIds[]",
        "notes",
        "tags",
        "pdfs",
        "pdfs[].source_url",
        "record",
    }

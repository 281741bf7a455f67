"""One package per tool family: its tools' spec (``spec.py``) and handlers (``handlers.py``); and the catalogue.

A family imports the floors below it and never another family; cross-family needs live in ``services/``.

The families are declared once, here (``FAMILIES``: a test checks it names every package with a ``spec.py``), and so
are the functions that read their specs: ``families``, ``all_tools``, ``get_tool``, ``family_tools``,
``result_size_hint``. A spec is imported on first use, never at import time: every family module imports this
package first, so it stays cheap; a family function asks only for its own (``family_tools``: cold start).
"""

from __future__ import annotations

import importlib
from functools import cache
from types import MappingProxyType, ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

    from scholar.core.catalogue import ToolSpec

__all__ = ["FAMILIES", "all_tools", "families", "family_tools", "get_tool", "result_size_hint"]

# Families with a Lambda function of their own, sorted: the order of every listing, page and error that names them.
FAMILIES: tuple[str, ...] = ("arxiv", "books", "papers", "patents", "pdf", "research", "standards", "tasks")


def families() -> tuple[str, ...]:
    """Every family (``FAMILIES``), sorted."""
    return FAMILIES


def _spec_module(family: str) -> ModuleType:
    return importlib.import_module(f"scholar.families.{family}.spec")


@cache
def all_tools() -> Mapping[str, ToolSpec]:
    """Every tool of every family, by name, sorted by name (read-only: the answer is cached, shared by every caller)."""
    specs: dict[str, ToolSpec] = {}
    for family in FAMILIES:
        for spec in _spec_module(family).TOOLS:
            if spec.name in specs:
                raise RuntimeError(f"tool {spec.name!r} is declared twice")
            specs[spec.name] = spec
    return MappingProxyType(dict(sorted(specs.items())))


def get_tool(name: str) -> ToolSpec | None:
    return all_tools().get(name)


@cache
def family_tools(family: str) -> Mapping[str, ToolSpec]:
    """One family's tools, read-only; imports only that family's spec (a family function never loads the others)."""
    specs = _spec_module(family).TOOLS
    return MappingProxyType({spec.name: spec for spec in sorted(specs, key=lambda s: s.name) if spec.family == family})


def result_size_hint(spec: ToolSpec) -> int | None:
    """The most characters of ``spec``'s answer, when it can be long (``_meta["anthropic/maxResultSizeChars"]``)."""
    if spec.relays_results:
        return max((s.max_result_chars or 0 for s in all_tools().values() if s.may_queue), default=0) or None
    return spec.max_result_chars

"""Every family's tools, found by name: the one module of the core that imports the families (their spec.py).

A family is a package of ``scholar.families`` with a ``spec.py``; its specs are imported on first use, never at
import time, and a family function asks only for its own (``family_tools``: cold start).
"""

from __future__ import annotations

import importlib
from functools import cache
from pathlib import Path
from types import ModuleType

from scholar.core.catalogue.spec import ToolSpec

_FAMILIES = Path(__file__).resolve().parents[2] / "families"


def families() -> tuple[str, ...]:
    """Families with a Lambda function of their own: every package of ``scholar.families`` that has a ``spec.py``."""
    return tuple(sorted(p.parent.name for p in _FAMILIES.glob("*/spec.py")))


def _spec_module(family: str) -> ModuleType:
    return importlib.import_module(f"scholar.families.{family}.spec")


@cache
def all_tools() -> dict[str, ToolSpec]:
    """Every tool of every family, by name, sorted by name."""
    specs: dict[str, ToolSpec] = {}
    for family in families():
        for spec in _spec_module(family).TOOLS:
            if spec.name in specs:
                raise RuntimeError(f"tool {spec.name!r} is declared twice")
            specs[spec.name] = spec
    return dict(sorted(specs.items()))


def get_tool(name: str) -> ToolSpec | None:
    return all_tools().get(name)


@cache
def family_tools(family: str) -> dict[str, ToolSpec]:
    """One family's tools; imports only that family's spec (a family function never loads the others)."""
    specs = _spec_module(family).TOOLS
    return {spec.name: spec for spec in sorted(specs, key=lambda s: s.name) if spec.family == family}


def result_size_hint(spec: ToolSpec) -> int | None:
    """The most characters of ``spec``'s answer, when it can be long (``_meta["anthropic/maxResultSizeChars"]``)."""
    if spec.relays_results:
        return max((s.max_result_chars or 0 for s in all_tools().values() if s.may_queue), default=0) or None
    return spec.max_result_chars

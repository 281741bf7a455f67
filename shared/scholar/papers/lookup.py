"""Resolving one paper by any identifier: the core's scholar.paper_lookup (the library resolves papers the same way)."""

from __future__ import annotations

from scholar.paper_lookup import get_paper, parse_identifier

__all__ = ["get_paper", "parse_identifier"]

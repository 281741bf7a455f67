"""Resolving one paper by any identifier: the core's scholar.paper_lookup (the library resolves papers the same way).

``s2_key`` is the Semantic Scholar form of an identifier the papers tools send to S2.
"""

from __future__ import annotations

from scholar.errors import InvalidArgumentError
from scholar.ids import InvalidIdError
from scholar.paper_lookup import get_paper, parse_identifier

__all__ = ["get_paper", "parse_identifier", "s2_key"]


def s2_key(raw: str, field: str) -> str:
    """The Semantic Scholar form of a paper identifier (``DOI:…``, ``ARXIV:…``, 40-hex …).

    Raises:
        InvalidArgumentError: not a paper identifier S2 can look up (names ``field``).
    """
    pid = parse_identifier(raw, field)
    try:
        return pid.s2_key()
    except InvalidIdError as exc:
        raise InvalidArgumentError(
            f"{raw!r} is an {pid.kind} id, which Semantic Scholar cannot look up; give a DOI, arXiv id or S2 id",
            field=field,
        ) from exc

"""Identifiers into URL paths: each value becomes exactly one percent-encoded path segment.

An identifier is data, never path (DESIGN §12, docs/security.md). ``/``, ``?``, ``#``, ``%`` and every
other reserved character of a value are percent-encoded, so a DOI such as ``10.1/../../recommendations``
stays inside the segment the source module meant, and a ``?`` is part of the identifier instead of
starting a query. The one non-obvious constraint: a segment that *is* ``.`` or ``..`` would still be
collapsed by the client (RFC 3986 dot-segment removal works on the encoded form), so those are refused.
``scholar.sources.http.request`` checks the result again before anything is sent.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from scholar.core.errors import InvalidArgumentError

__all__ = ["UNSAFE_PATH", "has_control_characters", "segment", "segments"]

UNSAFE_PATH = "unsafe_path"
# C0 controls, DEL and C1 controls: never part of an identifier, and refused by HTTP clients.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# Characters kept as they are: unreserved ones (quote's default) and ":" "@", which RFC 3986 allows in
# a segment and upstreams expect unencoded (``DOI:10.1/x``, ``CorpusId:123``).
_SAFE = ":@"


def has_control_characters(value: str) -> bool:
    """Tell whether ``value`` holds a control character (C0, DEL or C1)."""
    return _CONTROL.search(value) is not None


def segment(value: str | int, *, field: str = "identifier") -> str:
    """Return ``value`` as one percent-encoded path segment.

    Args:
        value: an identifier (or a number) to place in a URL path.
        field: the tool argument to name when the value is refused.

    Raises:
        InvalidArgumentError: empty, ``.`` or ``..``, or holding a control character (reason ``unsafe_path``).
    """
    text = str(value)
    if text in ("", ".", "..") or has_control_characters(text):
        raise InvalidArgumentError(
            f"{text!r} cannot be used as an identifier in a request path (empty, a dot segment or a control "
            "character)",
            field=field,
            reason=UNSAFE_PATH,
        )
    return quote(text, safe=_SAFE)


def segments(value: str, *, field: str = "identifier") -> str:
    """Return a ``/``-separated value (an arXiv legacy id, a data file path) as encoded segments.

    Only for values whose public URL form really spans segments and whose grammar was checked before;
    each part is encoded and refused as in ``segment``.

    Raises:
        InvalidArgumentError: an empty part, a dot segment or a control character.
    """
    return "/".join(segment(part, field=field) for part in value.split("/"))

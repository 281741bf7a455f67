"""Whole numbers read from text: ASCII digits only.

``str.isdigit()`` is true for ``"²"``, ``"①"`` and other characters ``int()`` refuses (a ValueError past the check,
a 500 or a JSON-RPC code 0 for the caller), and for ``"١٢"`` that ``int()`` reads as 12. A number we read from a
caller, a header or an upstream record is a run of ASCII digits, or it is not a number.
"""

from __future__ import annotations

__all__ = ["ascii_int"]


def ascii_int(text: str) -> int | None:
    """The value of ``text`` when it is one or more ASCII digits (no sign, no spaces), else None."""
    return int(text) if text.isascii() and text.isdigit() else None

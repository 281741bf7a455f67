"""Figure and table labels: "Figure 3", "Fig. 3", "Table 2", "table II" → one normalised ``Label`` (pure text).

A caption line starts with its label and a separator ("Figure 3:", "Table 2."); a line that starts with the label
and goes on with words ("Table 12 shows ...") is a reference to it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from scholar.services.pdftext.lines import TextLine

FigureKind = Literal["figure", "table"]

_LABEL = re.compile(r"^\s*(?P<kind>figure|fig\.?|table|tab\.?)\s*(?P<num>[A-Z]?\d{1,3}[a-z]?|[IVXLC]{1,6})\b",
                    re.IGNORECASE)
_SEPARATOR = re.compile(r"^\s*[:.|—–-]")


@dataclass(frozen=True)
class Label:
    """A figure or table label, normalised: ``Label("figure", "3")`` for "Fig. 3" and "figure 3"."""

    kind: FigureKind
    number: str

    @property
    def text(self) -> str:
        return f"{self.kind.capitalize()} {self.number}"


def parse_label(text: str, kind: FigureKind | None = None) -> Label | None:
    """The label in ``text`` ("Figure 3", "Fig. 3", "Table 2", "table II"), or None when it names none.

    Args:
        text: what the caller wrote.
        kind: the kind the caller asked for (a bare "3" is then that kind's number 3).
    """
    bare = re.fullmatch(r"\s*([A-Z]?\d{1,3}[a-z]?|[IVXLC]{1,6})\s*", text)
    if bare and kind is not None:
        return Label(kind, bare.group(1).upper())
    match = _LABEL.match(text)
    if match is None or text[match.end():].strip():
        return None
    found: FigureKind = "table" if match.group("kind").lower().startswith("tab") else "figure"
    return Label(found, match.group("num").upper())


def line_label(line: TextLine) -> tuple[Label, bool] | None:
    """The label a line starts with, and whether a separator follows it (a caption, not a reference)."""
    match = _LABEL.match(line.text)
    if match is None:
        return None
    kind: FigureKind = "table" if match.group("kind").lower().startswith("tab") else "figure"
    rest = line.text[match.end():]
    return Label(kind, match.group("num").upper()), bool(_SEPARATOR.match(rest)) or not rest.strip()

"""Positioned text lines (PDF user space, y grows upwards), and what the whole document says about them.

The data ``scholar.services.pdftext.convert`` produces with pypdfium2 and the layout steps read: ``TextLine`` and
``PageText``, a line ``Placed`` in its column, and the ``DocumentStyle`` (body size, bold, vocabulary) the
per-line rules compare against, after running heads, feet and page numbers are dropped.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

BULLET = ("•", "◦", "▪", "‣", "∙", "●")
WORD = re.compile(r"[^\W_](?:[\w'’-]*[^\W_])?", re.UNICODE)


@dataclass(slots=True)
class TextLine:
    """One visual line (or a fragment of one) with its box in PDF points."""

    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    size: float
    bold: bool = False
    hyphenated: bool = False  # the line ends with a line-break hyphen (removed from ``text``)
    rotated: bool = False
    cells: int = 1  # fragments joined into this line (table rows have several)

    @property
    def height(self) -> float:
        return max(self.y1 - self.y0, 0.1)


@dataclass(slots=True)
class PageText:
    """The lines of one page, in content-stream order."""

    number: int
    width: float
    height: float
    lines: list[TextLine] = field(default_factory=list)
    ocr: bool = False  # the lines were read by OCR from the page's image (it has no text layer)


@dataclass(slots=True)
class Placed:
    line: TextLine
    col_left: float
    col_right: float
    segment: int  # lines of one column run share a segment number
    heading: int = 0  # Markdown heading level, 0 for body text


@dataclass(slots=True)
class DocumentStyle:
    """Facts about the whole document that the per-line rules compare against."""

    body_size: float
    has_bold: bool
    vocabulary: frozenset[str]



def _norm_running(text: str) -> str:
    return re.sub(r"\d+", "#", text.strip().lower())


def drop_running_lines(pages: Sequence[PageText]) -> list[list[TextLine]]:
    """Remove page numbers and running heads/feet: margin lines that repeat across pages."""
    margin = 0.1
    counts: Counter[str] = Counter()
    for page in pages:
        seen = set()
        for ln in page.lines:
            if not ln.rotated and _in_margin(ln, page, margin):
                seen.add(_norm_running(ln.text))
        counts.update(seen)
    min_repeats = max(2, round(0.3 * len(pages)))
    result = []
    for page in pages:
        keep = []
        for ln in page.lines:
            text = ln.text.strip()
            if not text:
                continue
            if not ln.rotated and _in_margin(ln, page, margin):
                if re.fullmatch(r"[\divxlcIVXLC\s–-]{1,8}", text) and _outermost(ln, page):
                    continue
                has_words = sum(c.isalpha() for c in text) >= 3
                if has_words and len(pages) > 2 and counts[_norm_running(text)] >= min_repeats:
                    continue
            keep.append(ln)
        result.append(keep)
    return result


def _outermost(ln: TextLine, page: PageText) -> bool:
    """A page number is the last line of the page (or the first); a footnote mark is not."""
    others = [o for o in page.lines if o is not ln and not o.rotated and o.text.strip()]
    centre = (ln.y0 + ln.y1) / 2
    if centre < page.height / 2:
        return not any((o.y0 + o.y1) / 2 < centre for o in others)
    return not any((o.y0 + o.y1) / 2 > centre for o in others)


def _in_margin(ln: TextLine, page: PageText, margin: float) -> bool:
    return ln.y0 > page.height * (1 - margin) or ln.y1 < page.height * margin


def document_style(pages: Sequence[Sequence[TextLine]]) -> DocumentStyle:
    sizes: Counter[float] = Counter()
    vocabulary: set[str] = set()
    has_bold = False
    for lines in pages:
        for ln in lines:
            if ln.rotated:
                continue
            sizes[round(ln.size, 1)] += len(ln.text)
            has_bold = has_bold or ln.bold
            vocabulary.update(w.lower() for w in WORD.findall(ln.text))
    body = sizes.most_common(1)[0][0] if sizes else 10.0
    return DocumentStyle(body_size=max(body, 1.0), has_bold=has_bold, vocabulary=frozenset(vocabulary))


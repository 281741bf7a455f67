"""Which placed lines are headings, and of what level: numbering, size and weight against the body, the title."""

from __future__ import annotations

import re

from scholar.services.pdftext.lines import BULLET, DocumentStyle, Placed, TextLine

_NUMBERED = re.compile(r"^(?P<num>(?:\d{1,2}\.){0,3}\d{1,2}|[A-Z](?:\.\d{1,2}){0,3})\.?\s+(?P<rest>\S.*)$")
_CAPTION = re.compile(r"^(figure|fig\.|table|algorithm|listing)\s*[0-9IVX]", re.IGNORECASE)
_SECTION_WORDS = frozenset(
    {"abstract", "introduction", "related work", "conclusion", "conclusions", "references", "bibliography",
     "acknowledgments", "acknowledgements", "appendix", "keywords", "discussion", "methods", "results"}
)


def _numbered(text: str) -> tuple[int, str] | None:
    match = _NUMBERED.match(text)
    if not match or not any(c.isalpha() for c in match["rest"][:3]):
        return None
    rest = match["rest"]
    if not (rest[0].isupper() or rest[0].isdigit()):
        return None
    depth = match["num"].count(".") + 1
    return depth, rest


def _heading_candidate(ln: TextLine, style: DocumentStyle) -> bool:
    text = ln.text.strip()
    words = text.split()
    if not 1 <= len(words) <= 14 or len(text) > 110 or ln.hyphenated or ln.cells > 1:
        return False
    letters = sum(c.isalpha() for c in text)
    if letters < 2 or letters < 0.5 * len(text.replace(" ", "")):
        return False
    if text[-1] in ",;" or _CAPTION.match(text) or text.startswith(BULLET):
        return False
    numbered = _numbered(text) is not None
    # Author lines: names with affiliation marks ("He∗1", "Wang 2") or several commas.
    marks = sum(1 for w in words if w[-1] in "0123456789*∗†‡§" and any(c.isalpha() for c in w))
    if not numbered and (text.count(",") >= 2 or marks >= 2):
        return False
    if text.endswith(".") and not numbered and len(words) > 3:
        return False
    ratio = ln.size / style.body_size
    if ratio < 0.95:
        return False
    caps = text.upper() == text and letters >= 4
    if ln.bold:
        return True
    if ratio >= 1.1 and (numbered or caps):
        return True
    return not style.has_bold and numbered and ratio >= 0.95 and len(words) <= 8


def mark_headings(pages: list[list[Placed]], style: DocumentStyle) -> None:
    """Set ``heading`` levels: the title on page 1 is ``#``, numbered headings by depth, others by size."""
    candidates: list[Placed] = []
    for placed in pages:
        for i, item in enumerate(placed):
            if not _heading_candidate(item.line, style):
                continue
            # A heading stands apart: it is not glued into the middle of a text run of its own style.
            prev = placed[i - 1].line if i > 0 and placed[i - 1].segment == item.segment else None
            if prev is not None and not item.line.bold and same_style(prev, item.line) and not _gap_before(
                prev, item.line
            ):
                continue
            candidates.append(item)
    if not candidates:
        return
    title = _title_run(pages[0] if pages else [], candidates, style)
    title_key = round(title[0].line.size * 2) / 2 if title else None
    unnumbered = sorted(
        {round(c.line.size * 2) / 2 for c in candidates if _numbered(c.line.text.strip()) is None} - {title_key},
        reverse=True,
    )
    title_ids = {id(t) for t in title}
    for c in candidates:
        if id(c) in title_ids:
            c.heading = 1
            continue
        text = c.line.text.strip()
        num = _numbered(text)
        if num is not None:
            c.heading = min(1 + num[0], 4)
        elif text.lower().rstrip(".:") in _SECTION_WORDS:
            c.heading = 2
        else:
            key = round(c.line.size * 2) / 2
            c.heading = min(2 + (unnumbered.index(key) if key in unnumbered else 0), 4)


def _title_run(first_page: list[Placed], candidates: list[Placed], style: DocumentStyle) -> list[Placed]:
    """The title: the largest multi-word heading candidate on page 1, with its continuation lines."""
    ids = {id(c) for c in candidates}
    on_page = [
        p
        for p in first_page
        if id(p) in ids and p.line.size >= 1.2 * style.body_size and _numbered(p.line.text.strip()) is None
    ]
    wordy = [p for p in on_page if len(p.line.text.split()) >= 3] or on_page
    if not wordy:
        return []
    size = max(p.line.size for p in wordy)
    start = next(i for i, p in enumerate(first_page) if p in wordy and p.line.size == size)
    while start > 0 and id(first_page[start - 1]) in ids and abs(first_page[start - 1].line.size - size) < 0.3:
        start -= 1
    run = [first_page[start]]
    for p in first_page[start + 1 :]:
        if id(p) in ids and abs(p.line.size - size) < 0.3 and run[-1].line.y0 - p.line.y1 < 1.2 * size:
            run.append(p)
        else:
            break
    return run


def same_style(a: TextLine, b: TextLine) -> bool:
    return abs(a.size - b.size) < 0.3 and a.bold == b.bold


def _gap_before(prev: TextLine, cur: TextLine) -> bool:
    return prev.y0 - cur.y1 > 0.5 * cur.size


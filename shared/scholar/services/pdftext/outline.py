"""The converter's Markdown by page: its ``<!-- page N -->`` markers, its headings with their pages, one section.

Pure text work over what ``scholar.services.pdftext.markdown`` writes (a marker before each page, ``#`` headings). A
Markdown without markers (a converter that writes none) is one page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Written right after the page marker of a page whose text was read by OCR (a scan): recognition may err.
OCR_MARK = "<!-- ocr -->"
PAGE_MARKER = re.compile(r"^<!-- page (\d+) -->[ \t]*$", re.MULTILINE)
_HEADING = re.compile(r"^(#{1,6})[ \t]+(\S.*?)[ \t]*$", re.MULTILINE)
_TRAILING_MARKERS = re.compile(r"(?:\s*<!-- page \d+ -->)*\s*$")
_NUMBERING = re.compile(r"^(?:[A-Z]|\d{1,2})(?:\.\d{1,2}){0,3}\.?\s+")


@dataclass(frozen=True)
class Page:
    number: int
    start: int  # offset of the page's marker in the Markdown
    end: int  # offset where the next page's marker starts (or the end)


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    page: int
    start: int  # offset of the heading line


@dataclass(frozen=True)
class Section:
    heading: Heading
    end: int  # offset of the next heading of the same or a higher level (or the end)
    first_page: int
    last_page: int


def pages(markdown: str) -> list[Page]:
    """The pages of the Markdown, in order (a single page 1 when it has no markers)."""
    marks = list(PAGE_MARKER.finditer(markdown))
    if not marks:
        return [Page(1, 0, len(markdown))]
    ends = [m.start() for m in marks[1:]] + [len(markdown)]
    return [Page(int(m.group(1)), m.start(), end) for m, end in zip(marks, ends, strict=True)]


def page_at(all_pages: list[Page], offset: int) -> int:
    """The number of the page holding ``offset``."""
    for page in all_pages:
        if page.start <= offset < page.end:
            return page.number
    return all_pages[-1].number


def headings(markdown: str) -> list[Heading]:
    """Every heading with its level and page."""
    all_pages = pages(markdown)
    return [Heading(len(m.group(1)), m.group(2), page_at(all_pages, m.start()), m.start())
            for m in _HEADING.finditer(markdown)]


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", _NUMBERING.sub("", text.strip())).strip(" .:").lower()


def find_section(markdown: str, name: str) -> Section | None:
    """The section whose heading matches ``name``: the same text (numbering and case aside), else the first
    heading that starts with it, else the first that contains it."""
    found = headings(markdown)
    wanted, exact = _norm(name), name.strip().lower()
    rules = (
        lambda h: h.text.strip().lower() == exact or _norm(h.text) == wanted,
        lambda h: _norm(h.text).startswith(wanted),
        lambda h: wanted in _norm(h.text),
    )
    match = next((h for rule in rules for h in found if wanted and rule(h)), None)
    if match is None:
        return None
    after = [h for h in found if h.start > match.start and h.level <= match.level]
    end = after[0].start if after else len(markdown)
    # A page that starts with the next heading holds nothing of this section: end before its marker.
    end = match.start + len(_TRAILING_MARKERS.sub("", markdown[match.start:end]))
    all_pages = pages(markdown)
    return Section(match, end, match.page, page_at(all_pages, max(end - 1, match.start)))

"""Chapter, page and section references at the end of a citation string ("…, ch. 3, pp. 45–67").

A keyword only counts after whitespace, a comma, a semicolon or a parenthesis, so DOIs that contain
"ch." or "p." (``10.1002/ch.123``) are never cut.
"""

from __future__ import annotations

import re

from scholar.families.papers.spec_export import ChapterInfo

_LEAD = r"(?<![^\s,;(])"
_CHAPTER = re.compile(_LEAD + r"(?:chapter|chap\.|ch\.)\s*(\d+|[IVXLC]+)\b", re.IGNORECASE)
_PAGES = re.compile(_LEAD + r"(?:pp?\.|pages?)\s*([A-Za-z]?\d+)(?:\s*[-–—]+\s*([A-Za-z]?\d+))?", re.IGNORECASE)
_SECTION = re.compile(r"(?:§\s*|" + _LEAD + r"(?:section|sec\.)\s*)(\d+(?:\.\d+)*)", re.IGNORECASE)


def split_citation(text: str) -> tuple[str, ChapterInfo | None]:
    """Split ``text`` into the identifier part and the chapter/page/section info after it (None if absent)."""
    matches = [m for m in (_CHAPTER.search(text), _PAGES.search(text), _SECTION.search(text)) if m]
    if not matches:
        return text.strip(), None
    start = min(m.start() for m in matches)
    ident = text[:start].strip().rstrip(",;:(").strip()
    chapter, pages, section = _CHAPTER.search(text), _PAGES.search(text), _SECTION.search(text)
    info = ChapterInfo(
        chapter=chapter.group(1) if chapter else None,
        page_start=pages.group(1) if pages else None,
        page_end=pages.group(2) if pages and pages.group(2) else None,
        section=section.group(1) if section else None,
    )
    if info.page_start:
        info.pages = f"{info.page_start}-{info.page_end}" if info.page_end else info.page_start
    return ident, info

"""Positioned text lines → Markdown: reading order, paragraphs, headings, de-hyphenation.

Pure layout logic over ``TextLine`` values (PDF user space, y grows upwards); ``scholar.pdftext.convert``
produces the lines with pypdfium2. Two-column pages are detected by a vertical gutter that (almost)
no line crosses; lines that do cross it (titles, wide figures) cut the page into bands, and each band
is read left column first, then right column.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

_NUMBERED = re.compile(r"^(?P<num>(?:\d{1,2}\.){0,3}\d{1,2}|[A-Z](?:\.\d{1,2}){0,3})\.?\s+(?P<rest>\S.*)$")
_CAPTION = re.compile(r"^(figure|fig\.|table|algorithm|listing)\s*[0-9IVX]", re.IGNORECASE)
_BULLET = ("•", "◦", "▪", "‣", "∙", "●")
_WORD = re.compile(r"[^\W_](?:[\w'’-]*[^\W_])?", re.UNICODE)
_KEEP_HYPHEN_PREFIXES = frozenset({"non", "self", "cross", "well", "semi", "quasi"})
_TABLE = -1  # block kind of a run of table rows
_CELL_GAP = 1.0  # a horizontal gap wider than this many font sizes separates table cells
_SECTION_WORDS = frozenset(
    {"abstract", "introduction", "related work", "conclusion", "conclusions", "references", "bibliography",
     "acknowledgments", "acknowledgements", "appendix", "keywords", "discussion", "methods", "results"}
)
_TERMINAL = (".", "!", "?", ":", ".)", '."', ".”")


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


@dataclass(slots=True)
class _Placed:
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


# ---------------------------------------------------------------------------------------------------
# Entry point


def render_markdown(pages: Sequence[PageText]) -> tuple[str, str | None]:
    """Render pages as Markdown with a ``<!-- page N -->`` marker before each page.

    Args:
        pages: the pages with their positioned lines.

    Returns:
        The Markdown text and the detected title (the level-1 heading), if any.
    """
    cleaned = _drop_running_lines(pages)
    style = _document_style(cleaned)
    placed_pages = [_place_page(page, lines) for page, lines in zip(pages, cleaned, strict=True)]
    _mark_headings(placed_pages, style)
    title: str | None = None
    out: list[str] = []
    for page, placed in zip(pages, placed_pages, strict=True):
        out.append(f"<!-- page {page.number} -->")
        blocks = _blocks(placed, style)
        for level, text in blocks:
            if level:
                if level == 1 and title is None:
                    title = text
                out.append(f"{'#' * level} {text}")
            else:
                out.append(text)
        rotated = [ln.text.strip() for ln in page.lines if ln.rotated and ln.text.strip()]
        if rotated:
            out.append(_escape(" ".join(rotated)))
    return "\n\n".join(out) + "\n", title


# ---------------------------------------------------------------------------------------------------
# Document-level facts


def _norm_running(text: str) -> str:
    return re.sub(r"\d+", "#", text.strip().lower())


def _drop_running_lines(pages: Sequence[PageText]) -> list[list[TextLine]]:
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


def _document_style(pages: Sequence[Sequence[TextLine]]) -> DocumentStyle:
    sizes: Counter[float] = Counter()
    vocabulary: set[str] = set()
    has_bold = False
    for lines in pages:
        for ln in lines:
            if ln.rotated:
                continue
            sizes[round(ln.size, 1)] += len(ln.text)
            has_bold = has_bold or ln.bold
            vocabulary.update(w.lower() for w in _WORD.findall(ln.text))
    body = sizes.most_common(1)[0][0] if sizes else 10.0
    return DocumentStyle(body_size=max(body, 1.0), has_bold=has_bold, vocabulary=frozenset(vocabulary))


# ---------------------------------------------------------------------------------------------------
# Reading order


def _find_gutter(lines: Sequence[TextLine]) -> float | None:
    """x of a vertical gutter splitting the page into two columns, or None for a one-column page.

    Only column-like lines vote (a quarter to 60% of the text width): table cells, labels and
    full-width lines would otherwise hide the gutter of the text below or above them.
    """
    body = [ln for ln in lines if ln.x1 - ln.x0 > 1]
    if len(body) < 8:
        return None
    left = min(ln.x0 for ln in body)
    right = max(ln.x1 for ln in body)
    width = right - left
    if width <= 0:
        return None
    voters = [ln for ln in body if 0.25 * width <= ln.x1 - ln.x0 <= 0.6 * width]
    if len(voters) < 6:
        return None
    best: tuple[int, float, float] | None = None
    centre = left + width / 2
    x = left + 0.3 * width
    while x <= left + 0.7 * width:
        crossing = sum(1 for ln in voters if ln.x0 < x - 0.5 and ln.x1 > x + 0.5)
        key = (crossing, abs(x - centre), x)
        if best is None or key < best:
            best = key
        x += 1.0
    assert best is not None
    crossing, _, gutter = best
    n_left = sum(1 for ln in voters if ln.x1 <= gutter + 0.5)
    n_right = sum(1 for ln in voters if ln.x0 >= gutter - 0.5)
    if n_left < 3 or n_right < 3 or crossing > 0.2 * (n_left + n_right):
        return None
    # A one-column page whose table cells happen to leave a gap: its text lines are full width.
    wide = sum(1 for ln in body if ln.x1 - ln.x0 > 0.6 * width)
    if wide > n_left + n_right:
        return None
    return gutter


def _rows(lines: Iterable[TextLine]) -> list[TextLine]:
    """Sort top-down, merging fragments that share a baseline into one line (left to right)."""
    ordered = sorted(lines, key=lambda ln: (-ln.y1, ln.x0))
    rows: list[list[TextLine]] = []
    for ln in ordered:
        if rows:
            ref = rows[-1][0]
            overlap = min(ref.y1, ln.y1) - max(ref.y0, ln.y0)
            if overlap > 0.5 * min(ref.height, ln.height):
                rows[-1].append(ln)
                continue
        rows.append([ln])
    merged = []
    for row in rows:
        row.sort(key=lambda ln: ln.x0)
        if len(row) == 1:
            merged.append(row[0])
            continue
        main = max(row, key=lambda ln: len(ln.text))
        # Fragments far apart are table cells (joined by a tab); close ones are one cell.
        text = row[0].text.strip()
        cells = 1
        for before, after in zip(row, row[1:], strict=False):  # neighbours: one shorter on purpose
            far = after.x0 - before.x1 > _CELL_GAP * max(main.size, 1.0)
            cells += far
            text += ("\t" if far else " ") + after.text.strip()
        merged.append(
            TextLine(
                text=text,
                x0=row[0].x0,
                y0=min(ln.y0 for ln in row),
                x1=max(ln.x1 for ln in row),
                y1=max(ln.y1 for ln in row),
                size=main.size,
                bold=all(ln.bold for ln in row),
                hyphenated=row[-1].hyphenated,
                cells=cells,
            )
        )
    return merged


def _place_page(page: PageText, lines: Sequence[TextLine]) -> list[_Placed]:
    body = [ln for ln in lines if not ln.rotated]
    if not body:
        return []
    gutter = _find_gutter(body)
    page_left = min(ln.x0 for ln in body)
    page_right = max(ln.x1 for ln in body)
    if gutter is None:
        return [_Placed(ln, page_left, page_right, 0) for ln in _rows(body)]
    left_lines = [ln for ln in body if ln.x1 <= gutter + 0.5]
    right_lines = [ln for ln in body if ln.x0 >= gutter - 0.5]
    left_edge = (page_left, max(ln.x1 for ln in left_lines))
    right_edge = (min(ln.x0 for ln in right_lines), page_right)
    placed: list[_Placed] = []
    segment = 0
    band_left: list[TextLine] = []
    band_right: list[TextLine] = []

    def flush() -> None:
        nonlocal segment
        for side, edge in ((band_left, left_edge), (band_right, right_edge)):
            if side:
                segment += 1
                placed.extend(_Placed(ln, edge[0], edge[1], segment) for ln in _rows(side))
            side.clear()

    for ln in sorted(body, key=lambda ln: -ln.y1):
        if ln.x1 <= gutter + 0.5:
            band_left.append(ln)
        elif ln.x0 >= gutter - 0.5:
            band_right.append(ln)
        else:
            flush()
            segment += 1
            placed.append(_Placed(ln, page_left, page_right, segment))
    flush()
    # Spanning lines next to each other (a centred title block) form one run.
    return _merge_spanning_rows(placed)


def _merge_spanning_rows(placed: list[_Placed]) -> list[_Placed]:
    """Consecutive full-width lines (a title block, a single-column abstract) form one run."""
    for prev, item in zip(placed, placed[1:], strict=False):  # neighbours: one shorter on purpose
        if (
            (prev.col_left, prev.col_right) == (item.col_left, item.col_right)
            and prev.segment != item.segment
            and _spans(prev)
            and _spans(item)
        ):
            item.segment = prev.segment
    return placed


def _spans(item: _Placed) -> bool:
    return item.line.x0 < (item.col_left + item.col_right) / 2 < item.line.x1


# ---------------------------------------------------------------------------------------------------
# Headings


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
    if text[-1] in ",;" or _CAPTION.match(text) or text.startswith(_BULLET):
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


def _mark_headings(pages: list[list[_Placed]], style: DocumentStyle) -> None:
    """Set ``heading`` levels: the title on page 1 is ``#``, numbered headings by depth, others by size."""
    candidates: list[_Placed] = []
    for placed in pages:
        for i, item in enumerate(placed):
            if not _heading_candidate(item.line, style):
                continue
            # A heading stands apart: it is not glued into the middle of a text run of its own style.
            prev = placed[i - 1].line if i > 0 and placed[i - 1].segment == item.segment else None
            if prev is not None and not item.line.bold and _same_style(prev, item.line) and not _gap_before(
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


def _title_run(first_page: list[_Placed], candidates: list[_Placed], style: DocumentStyle) -> list[_Placed]:
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


def _same_style(a: TextLine, b: TextLine) -> bool:
    return abs(a.size - b.size) < 0.3 and a.bold == b.bold


def _gap_before(prev: TextLine, cur: TextLine) -> bool:
    return prev.y0 - cur.y1 > 0.5 * cur.size


# ---------------------------------------------------------------------------------------------------
# Paragraphs


def _blocks(placed: list[_Placed], style: DocumentStyle) -> list[tuple[int, str]]:
    """Group placed lines into (heading level, text) blocks in reading order (level 0: body text)."""
    blocks: list[tuple[int, list[TextLine]]] = []
    for i, item in enumerate(placed):
        ln = item.line
        prev = placed[i - 1] if i > 0 else None
        nxt = placed[i + 1] if i + 1 < len(placed) else None
        if _is_table_row(item, prev, nxt):
            if blocks and blocks[-1][0] == _TABLE and prev is not None and prev.segment == item.segment:
                blocks[-1][1].append(ln)
            else:
                blocks.append((_TABLE, [ln]))
            continue
        if item.heading:
            if (
                blocks
                and blocks[-1][0] == item.heading
                and prev is not None
                and prev.heading == item.heading
                and _same_style(prev.line, ln)
                and prev.line.y0 - ln.y1 < 1.2 * ln.size
            ):
                blocks[-1][1].append(ln)
                continue
            blocks.append((item.heading, [ln]))
            continue
        if (
            prev is None
            or prev.heading
            or not blocks
            or blocks[-1][0] == _TABLE
            or _starts_paragraph(item, prev, nxt, style)
        ):
            blocks.append((0, [ln]))
        else:
            blocks[-1][1].append(ln)
    result = []
    for level, lines in blocks:
        if level == _TABLE:
            result.append((0, _table(lines)))
            continue
        text = _join_lines(lines, style.vocabulary)
        if text:
            if level == 0 and text.startswith(_BULLET):
                text = "- " + text[1:].lstrip()
            result.append((level, _escape(text) if level == 0 else text))
    return result


def _is_table_row(item: _Placed, prev: _Placed | None, nxt: _Placed | None) -> bool:
    """A line of several cells next to another such line in the same column run."""
    if item.line.cells < 2 or item.heading:
        return False
    return any(o is not None and o.segment == item.segment and o.line.cells >= 2 for o in (prev, nxt))


def _table(lines: Sequence[TextLine]) -> str:
    """Rows of cells as a Markdown table (cells are not aligned to columns: PDF tables have no grid)."""
    rows = [[_cell(c) for c in ln.text.split("\t")] for ln in lines]
    width = max(len(r) for r in rows)
    out = []
    for i, row in enumerate(rows):
        out.append("| " + " | ".join(row + [""] * (width - len(row))) + " |")
        if i == 0:
            out.append("|" + " --- |" * width)
    return "\n".join(out)


def _cell(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().replace("|", "\\|")


def _starts_paragraph(item: _Placed, prev: _Placed, nxt: _Placed | None, style: DocumentStyle) -> bool:
    ln, pl = item.line, prev.line
    size = max(ln.size, 1.0)
    if ln.text.lstrip().startswith(_BULLET):
        return True
    if abs(ln.size - pl.size) > 0.15 * max(ln.size, pl.size):
        return True
    prev_short = pl.x1 < prev.col_right - 2.0 * size
    prev_ends = pl.text.rstrip().endswith(_TERMINAL)
    if item.segment != prev.segment:
        # A column or band change: the paragraph goes on unless the last line ended it.
        if prev_short and prev_ends:
            return True
        return _indented(ln, item, size) and prev_ends
    gap = pl.y0 - ln.y1
    if gap > 0.9 * size:
        return True
    if prev_short and prev_ends:
        return True
    # Indentation differs from both neighbours: a first-line indent, or an outdented hanging item.
    if nxt is not None and nxt.segment == item.segment and not nxt.heading:
        differs_next = abs(ln.x0 - nxt.line.x0) > 0.6 * size
        differs_prev = abs(ln.x0 - pl.x0) > 0.6 * size
        if differs_next and differs_prev and ln.x0 < item.col_left + 4 * size:
            return prev_ends or ln.x0 > nxt.line.x0 or ln.x0 < pl.x0
    return False


def _indented(ln: TextLine, item: _Placed, size: float) -> bool:
    return item.col_left + 0.6 * size < ln.x0 < item.col_left + 4 * size


def _join_lines(lines: Sequence[TextLine], vocabulary: frozenset[str]) -> str:
    text = ""
    hyphen_pending = False
    for ln in lines:
        part = re.sub(r"\s+", " ", ln.text).strip()
        if not part:
            continue
        if not text:
            text = part
        elif hyphen_pending:
            text = _dehyphenate(text, part, vocabulary)
        elif text.endswith(("-", "\u2010")) and len(text) > 1 and text[-2].isalpha():
            text = _dehyphenate(text[:-1], part, vocabulary)
        else:
            text = f"{text} {part}"
        hyphen_pending = ln.hyphenated
    if hyphen_pending:
        text += "-"
    return text


def _dehyphenate(left_text: str, right_text: str, vocabulary: frozenset[str]) -> str:
    """Join a word broken at a line end: drop the hyphen unless it is a real one."""
    left_token = left_text.rsplit(" ", 1)[-1]
    right_token = right_text.split(" ", 1)[0]
    if _keep_hyphen(left_token, right_token, vocabulary):
        return f"{left_text}-{right_text}"
    return f"{left_text}{right_text}"


def _keep_hyphen(left: str, right: str, vocabulary: frozenset[str]) -> bool:
    lw = "".join(_WORD.findall(left.lower()))
    rw_match = _WORD.match(right.lower())
    if not lw or not rw_match or not left[-1:].isalpha():
        return True
    rw = rw_match.group(0)
    joined, hyphenated = lw + rw, f"{lw}-{rw}"
    if joined in vocabulary and hyphenated not in vocabulary:
        return False
    if hyphenated in vocabulary and joined not in vocabulary:
        return True
    if "-" in left or right[:1].isupper() or right[:1].isdigit():
        return True
    if any(c.isupper() or c.isdigit() for c in left.lstrip("([{\"'“")[1:]):
        return True
    return lw.lstrip("([{\"'“") in _KEEP_HYPHEN_PREFIXES


def _escape(text: str) -> str:
    """Keep body text from turning into Markdown structure by accident."""
    if text.startswith(("#", ">", "<!--")):
        return "\\" + text
    return text

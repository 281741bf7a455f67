"""LaTeXML HTML (arxiv.org/html, ar5iv) to compact Markdown: the paper body without page chrome.

Kept: headings (``#`` by level, numbers included), paragraphs, lists, tables (as Markdown tables),
figure and table captions, footnotes (inline), code listings (fenced), the bibliography, and math as
LaTeX from ``<math alttext>`` (``$…$`` inline, ``$$…$$`` display, equation numbers after). Dropped:
navigation, table of contents, author block (the metadata carries authors), images, scripts, styles,
LaTeXML error markers and footers.

The walk splits children into block elements (each becomes one or more Markdown blocks) and inline
runs (text collapsed to single spaces); tables and listings are rendered whole because their line
structure matters.
"""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

_BLOCK_TAGS = frozenset(
    [
        "address", "article", "aside", "blockquote", "dd", "details", "div", "dl", "dt", "figcaption", "figure",
        "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre",
        "section", "table", "ul",
    ]
)
_DROP_TAGS = frozenset([
    "script", "style", "noscript", "nav", "header", "footer", "button", "img", "svg", "link", "meta", "form", "input",
    "iframe",
])
_DROP_CLASSES = frozenset(
    {
        "ltx_page_navbar",
        "ltx_TOC",
        "ltx_page_footer",
        "ltx_page_logo",
        "ltx_authors",
        "ltx_ERROR",
        "ltx_dates",
        "ltx_listing_data",
        "ltx_note_mark",
        "ltx_note_type",
        "ltx_tag_note",
        "ar5iv-footer",
        "package-alerts",
    }
)
# The plain etree parser: lxml.html's element classes add a Python lookup per node (~2x slower here).
_PARSER = etree.HTMLParser(encoding="utf-8", remove_comments=True, remove_pis=True)
_BULLETS = frozenset("•◦▪‣-–∙·")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?)\]])")
_SPACE_AFTER_OPEN = re.compile(r"([(\[])\s+")


def _classes(el: Any) -> set[str]:
    return set((el.get("class") or "").split())


def _dropped(el: Any) -> bool:
    return el.tag in _DROP_TAGS or bool(_classes(el) & _DROP_CLASSES)


def _collapse(text: str) -> str:
    text = " ".join(text.split())
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", text)
    return _SPACE_AFTER_OPEN.sub(r"\1", text)


def _tex(el: Any) -> str:
    """The LaTeX of a <math> element: alttext, else its TeX annotation, else its text."""
    tex = el.get("alttext")
    if not tex:
        notes = el.xpath(".//*[local-name()='annotation'][@encoding='application/x-tex']")
        tex = notes[0].text if notes and notes[0].text else " ".join(el.itertext())
    return " ".join(tex.split())


def _esc(text: str | None) -> str:
    """Text with literal dollar signs escaped, so that only math reads as ``$…$``."""
    return text.replace("$", "\\$") if text and "$" in text else (text or "")


def _inline(el: Any, escape: bool = True) -> str:
    """The text of ``el`` and its subtree with math as LaTeX (uncollapsed; tail not included)."""
    if not isinstance(el.tag, str) or _dropped(el):
        return ""
    if el.tag == "math":
        tex = _tex(el)
        return f"$${tex}$$" if el.get("display") == "block" else f"${tex}$"
    if el.tag == "br":
        return " "
    classes = _classes(el)
    esc = _esc if escape else (lambda t: t or "")
    parts = [esc(el.text)]
    for child in el:
        parts.append(_inline(child, escape))
        parts.append(esc(child.tail))
    text = "".join(parts)
    if "ltx_note" in classes and "ltx_note_outer" not in classes and "ltx_note_content" not in classes:
        return f" (Footnote: {_collapse(text)})"
    if el.tag in ("td", "th") or "ltx_td" in classes:
        return f" {text} "
    return text


def _heading(el: Any) -> list[str]:
    level = 2 if "ltx_title_abstract" in _classes(el) else int(el.tag[1])
    text = _collapse(_inline(el))
    return [f"{'#' * level} {text}"] if text else []


def _rows(table: Any) -> list[Any]:
    """Rows of a LaTeXML table (``tr`` or ``span.ltx_tr``), nested tables excluded."""
    rows = []
    for row in table.iter("tr", "span"):
        if row.tag == "span" and "ltx_tr" not in _classes(row):
            continue
        owner = next((a for a in row.iterancestors() if a.tag == "table" or "ltx_tabular" in _classes(a)), None)
        if owner is table:
            rows.append(row)
    return rows


def _cells(row: Any) -> list[Any]:
    return [c for c in row if isinstance(c.tag, str) and (c.tag in ("td", "th") or "ltx_td" in _classes(c))]


def _equation(table: Any) -> list[str]:
    lines = []
    for row in _rows(table):
        maths = [_tex(m) for m in row.iter("math")]
        if not maths:
            continue
        tags = [_collapse(_inline(t)) for t in row.iter() if "ltx_tag_equation" in _classes(t)]
        number = f" {tags[0]}" if tags and tags[0] else ""
        lines.append(f"$${' '.join(maths)}$${number}")
    return ["\n".join(lines)] if lines else []


def _table(table: Any) -> list[str]:
    classes = _classes(table)
    if classes & {"ltx_equation", "ltx_equationgroup", "ltx_eqn_table"}:
        return _equation(table)
    grid = []
    for row in _rows(table):
        cells = [_collapse(_inline(c)).replace("|", "\\|") for c in _cells(row)]
        if any(cells):
            grid.append(cells)
    if not grid:
        return []
    width = max(len(r) for r in grid)
    lines = ["| " + " | ".join(r + [""] * (width - len(r))) + " |" for r in grid]
    lines.insert(1, "|" + " --- |" * width)
    return ["\n".join(lines)]


def _listing(el: Any) -> list[str]:
    lines = []
    for line in el.iter("div"):
        if "ltx_listingline" in _classes(line):
            lines.append(_inline(line, escape=False).replace("␣", " ").strip("\n").rstrip())
    return ["```\n" + "\n".join(lines) + "\n```"] if lines else []


def _list(el: Any) -> list[str]:
    items = []
    for li in el:
        if not isinstance(li.tag, str) or li.tag != "li":
            continue
        marker = "-"
        tag = next((t for t in li if isinstance(t.tag, str) and "ltx_tag" in _classes(t)), None)
        if tag is not None:
            label = _collapse(_inline(tag))
            if label and label not in _BULLETS:
                marker = f"- {label}"
        body = " ".join(_blocks(li, skip=tag)).replace("\n", " ")
        if body:
            items.append(f"{marker} {body}")
    return ["\n".join(items)] if items else []


def _block(el: Any) -> list[str]:
    classes = _classes(el)
    if el.tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
        return _heading(el)
    if el.tag == "table" or "ltx_tabular" in classes:
        return _table(el)
    if el.tag in ("ul", "ol"):
        return _list(el)
    if "ltx_listing" in classes:
        return _listing(el)
    if el.tag == "math":
        return [f"$${_tex(el)}$$"]
    return _blocks(el)


def _is_block(el: Any) -> bool:
    if el.tag == "math":
        return el.get("display") == "block"
    return el.tag in _BLOCK_TAGS or "ltx_listing" in _classes(el)


def _blocks(el: Any, skip: Any = None) -> list[str]:
    """Markdown blocks for the children of ``el`` (but ``skip``): inline runs become paragraphs, blocks recurse."""
    blocks: list[str] = []
    run: list[str] = [_esc(el.text)]

    def flush() -> None:
        text = _collapse("".join(run))
        if text:
            blocks.append(text)
        run.clear()

    for child in el:
        if isinstance(child.tag, str) and child is not skip and not _dropped(child):
            if _is_block(child):
                flush()
                blocks.extend(_block(child))
            else:
                run.append(_inline(child))
        run.append(_esc(child.tail))
    flush()
    return blocks


def _root(doc: Any) -> Any:
    for xpath in (
        "//article[contains(concat(' ', @class, ' '), ' ltx_document ')]",
        "//div[contains(concat(' ', @class, ' '), ' ltx_page_content ')]",
        "//body",
    ):
        found = doc.xpath(xpath)
        if found:
            return found[0]
    return doc


def html_to_markdown(html: str | bytes) -> str:
    """The paper body of a LaTeXML render as Markdown (empty when the page holds no text)."""
    if not html or not html.strip():
        return ""
    data = html.encode("utf-8") if isinstance(html, str) else html
    doc = etree.fromstring(data, _PARSER)
    if doc is None:
        return ""
    text = "\n\n".join(_blocks(_root(doc))).strip()
    return f"{text}\n" if text else ""

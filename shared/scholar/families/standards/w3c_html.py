"""A W3C specification page (ReSpec / Bikeshed output) → Markdown: headings, paragraphs, lists, code, tables.

The page's chrome is dropped: the table of contents (``nav#toc``), the editors / copyright block of
``div.head`` (its title and maturity line are kept), scripts, styles, self-links and the tool panels
ReSpec and Bikeshed add (MDN / caniuse boxes, dfn panels). Link targets are dropped, their text kept.
"""

from __future__ import annotations

import re

from lxml import etree, html

from scholar.core.errors import UpstreamError

CONVERTER_NAME = "w3c-html"

_DROP_TAGS = ("script", "style", "noscript", "template", "nav", "footer", "button", "form", "svg", "math")


def _class_is(name: str) -> str:
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


_DROP_XPATH = (
    "//*[@id='toc' or @id='respec-ui' or @id='back-to-top' or @id='toc-nav' or @id='toc-jump']",
    *(f"//*[{_class_is(name)}]" for name in ("mdn", "caniuse", "dfn-panel", "self-link", "respec-tests-details")),
    # div.head: keep the title and the maturity / date line, drop logo, editors, links and copyright
    f"//*[{_class_is('head')}]/*[not(self::h1 or self::h2 or self::p[@id='w3c-state'])]",
    f"//*[{_class_is('copyright')}]",
)
_BLOCKS = frozenset(
    {"p", "div", "section", "article", "main", "aside", "body", "ul", "ol", "li", "dl", "dt", "dd", "pre", "table",
     "blockquote", "figure", "figcaption", "details", "summary", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "address"}
)
_CODE_LANGS = {"idl": "webidl", "js": "js", "javascript": "js", "json": "json", "html": "html", "css": "css",
               "xml": "xml", "abnf": "abnf", "http": "http"}
_SPACE = re.compile(r"\s+")
_BR = "\x00"  # a <br>: the one line break inside a block (source newlines are plain whitespace)


def _tag(el: html.HtmlElement) -> str:
    """The element's tag in lower case; "" for a comment or a processing instruction (whose tag is a function)."""
    return el.tag.lower() if isinstance(el.tag, str) else ""


def _classes(el: html.HtmlElement) -> set[str]:
    return set((el.get("class") or "").split())


def _wrap(el: html.HtmlElement) -> str:
    """One inline element as Markdown: code, emphasis and line breaks marked, links reduced to their text."""
    tag = _tag(el)
    if tag == "br":
        return _BR
    inner = _inline(el)
    if not inner.strip():
        return inner
    if tag in ("code", "kbd", "samp"):
        return f"`{inner.strip()}`"
    if tag in ("em", "i", "var", "dfn"):
        return f"*{inner.strip()}*"
    if tag in ("strong", "b"):
        return f"**{inner.strip()}**"
    return inner


def _inline(el: html.HtmlElement) -> str:
    """The text of an inline subtree (its children marked up by ``_wrap``)."""
    parts: list[str] = [el.text or ""]
    for child in el:
        if isinstance(child.tag, str):
            parts.append(_wrap(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _clean(text: str) -> str:
    return "\n".join(_SPACE.sub(" ", line).strip() for line in text.split(_BR)).strip()


class _Writer:
    """Walks block elements and collects Markdown blocks (separated by blank lines)."""

    def __init__(self) -> None:
        self.blocks: list[str] = []

    def add(self, text: str) -> None:
        if text.strip():
            self.blocks.append(text.rstrip())

    def walk(self, el: html.HtmlElement, depth: int = 0) -> None:
        """Emit the blocks of ``el``'s children; loose inline content between blocks becomes a paragraph."""
        run: list[str] = [el.text or ""]
        for child in el:
            tag = _tag(child)
            if tag in _BLOCKS:
                self.add(_clean("".join(run)))
                run = []
                self.block(child, depth)
                run.append(child.tail or "")
            else:
                run.append(_wrap(child) if tag else "")
                run.append(child.tail or "")
        self.add(_clean("".join(run)))

    def block(self, el: html.HtmlElement, depth: int) -> None:
        tag = _tag(el)
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self.add(f"{'#' * int(tag[1])} {_clean(_inline(el)).replace(chr(10), ' ')}")
        elif tag == "p" or tag in ("summary", "figcaption", "dt", "address"):
            text = _clean(_inline(el))
            self.add(f"**{text}**" if tag == "dt" and text else text)
        elif tag == "pre":
            self.add(_fence(el))
        elif tag in ("ul", "ol"):
            self.add(_list(el, depth))
        elif tag == "table":
            self.add(_table(el))
        elif tag == "blockquote":
            inner = _Writer()
            inner.walk(el, depth)
            self.add("\n".join(f"> {line}" if line else ">" for line in "\n\n".join(inner.blocks).split("\n")))
        elif tag == "hr":
            return
        else:  # section, div, dd, li outside a list …: their children carry the structure
            self.walk(el, depth)


def _fence(el: html.HtmlElement) -> str:
    code = el.text_content().strip("\n")
    classes = _classes(el) | {c for child in el.iter("code") for c in _classes(child)}
    lang = next((_CODE_LANGS[c.removeprefix("language-")] for c in sorted(classes)
                 if c.removeprefix("language-") in _CODE_LANGS), "")
    return f"```{lang}\n{code}\n```"


def _list(el: html.HtmlElement, depth: int) -> str:
    ordered = _tag(el) == "ol"
    lines: list[str] = []
    number = 0
    for item in el:
        if not isinstance(item.tag, str) or item.tag.lower() != "li":
            continue
        number += 1
        inner = _Writer()
        inner.walk(item, depth + 1)
        marker = f"{number}. " if ordered else "- "
        pad = " " * len(marker)
        body = "\n".join(inner.blocks) or ""
        first, *rest = body.split("\n") if body else [""]
        lines.append(marker + first)
        lines.extend(pad + line if line else "" for line in rest)
    return "\n".join(lines)


def _table(el: html.HtmlElement) -> str:
    rows = []
    for tr in el.iter("tr"):
        cells = [_clean(_inline(c)).replace("\n", " ").replace("|", "\\|") for c in tr if c.tag in ("td", "th")]
        if cells:
            rows.append(cells)
    if not rows:
        return ""
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    out = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
    out += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join(out)


def _has_title_block(root: html.HtmlElement) -> bool:
    """Whether the page has a spec's title block: ``div.head`` holding an ``h1`` (ReSpec, Bikeshed, older TR)."""
    return bool(root.xpath(f"//*[{_class_is('head')}]//h1"))


def html_to_markdown(page: bytes | str, *, spec_only: bool = False) -> str:
    """Convert a W3C specification page to Markdown.

    Args:
        page: the HTML as served (bytes: the page's own charset declaration is honoured).
        spec_only: refuse a page without a specification's title block (``div.head`` with an ``h1``): a
            maintenance or error page served with HTTP 200 is HTML too, and must never pass for the text.

    Returns:
        The Markdown text, blocks separated by blank lines.

    Raises:
        UpstreamError: the page is not HTML, holds no text, or (``spec_only``) is not a specification page.
    """
    try:
        root = html.document_fromstring(page)
    except (etree.ParserError, ValueError) as exc:
        raise UpstreamError("the W3C page is not HTML", source="w3c_www", reason="conversion_failed") from exc
    if spec_only and not _has_title_block(root):
        raise UpstreamError(
            "w3c_www answered with a page that is not a W3C specification (no title block): "
            "most likely a maintenance or error page",
            source="w3c_www",
            reason="not_a_specification",
        )
    doomed = [el for el in root.iter(*_DROP_TAGS)] + [el for xpath in _DROP_XPATH for el in root.xpath(xpath)]
    for el in doomed:
        if el.getparent() is not None:
            el.drop_tree()
    body = root.find("body")
    writer = _Writer()
    writer.walk(body if body is not None else root)
    markdown = "\n\n".join(writer.blocks).strip()
    if not markdown:
        raise UpstreamError("the W3C page holds no text", source="w3c_www", reason="conversion_failed")
    return markdown + "\n"

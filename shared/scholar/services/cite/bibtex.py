"""BibTeX writer: LaTeX specials escaped, braces balanced, capitals protected, names as "von Last, Jr, First".

An arXiv preprint follows arXiv's own convention: ``@misc`` with ``eprint``, ``archivePrefix = {arXiv}`` and
``primaryClass`` (when the arXiv record named its primary category).

UTF-8 is kept as is (biber and modern BibTeX read it). Months use the standard macros (``month = mar``).
Unresolved ids go in one ``@comment`` block after a blank line, so no parser sees them as entries.
"""

from __future__ import annotations

import re

from scholar.services.cite.entry import Entry
from scholar.services.cite.names import Name

_TYPES = {
    "article": "article",
    "conference": "inproceedings",
    "preprint": "misc",
    "book": "book",
    "chapter": "incollection",
    "report": "techreport",
    "thesis": "phdthesis",
    "misc": "misc",
}
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_SPECIALS = {
    "\\": r"\textbackslash{}",
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_SPECIAL_RE = re.compile("|".join(re.escape(c) for c in _SPECIALS))


def escape(text: str) -> str:
    """Escape LaTeX's special characters (braces become balanced commands)."""
    return _SPECIAL_RE.sub(lambda m: _SPECIALS[m.group(0)], text)


def protect_title(text: str) -> str:
    """Escape a title and brace the words whose capitals a style must not lower-case (DNA, BERT, iPhone)."""
    words = escape(text).split(" ")
    out = []
    for word in words:
        core = re.sub(r"\\[a-z]+\{\}|\\.", "", word)  # ignore escapes when looking for capitals
        if any(c.isupper() for c in core[1:]):
            out.append("{" + word + "}")
        else:
            out.append(word)
    return " ".join(out)


_AND_RE = re.compile(r"(?:^|\s)and(?:\s|$)", re.IGNORECASE)


def _name_part(text: str) -> str:
    """One part of a name, escaped; braced when BibTeX would split it (a comma, or the word "and" in it)."""
    part = escape(text)
    return "{" + part + "}" if "," in part or _AND_RE.search(part) else part


def _name(name: Name) -> str:
    # "von Last, Jr, First": BibTeX splits a name at its commas and a name list at " and ", so a part holding
    # either (a family name written in two scripts, "Athanasiou, Αθανασίου") is braced, keeping one author one.
    if name.literal is not None:
        return "{" + escape(name.literal) + "}"
    family = _name_part(name.family or "")
    last = f"{name.particle} {family}" if name.particle else family
    parts = [last]
    if name.suffix:
        parts.append(_name_part(name.suffix))
    if name.given:
        parts.append(_name_part(name.given))
    return ", ".join(parts)


def _fields(entry: Entry) -> list[tuple[str, str, bool]]:
    """(name, value, is_macro) in the order they are written."""
    first, last = entry.page_range
    fields: list[tuple[str, str, bool]] = []

    def add(name: str, value: str | None, *, raw: bool = False, macro: bool = False) -> None:
        if value:
            fields.append((name, value if raw or macro else escape(value), macro))

    if entry.authors:
        add("author", " and ".join(_name(n) for n in entry.authors), raw=True)
    if entry.title:
        add("title", protect_title(entry.title), raw=True)
    container_field = {"article": "journal", "conference": "booktitle", "chapter": "booktitle"}.get(entry.kind)
    if container_field:
        add(container_field, entry.container)
    elif entry.kind == "report":
        add("institution", entry.container or entry.publisher)
    elif entry.kind == "thesis":
        add("school", entry.container or entry.publisher)
    elif entry.kind == "misc" and entry.container:
        add("howpublished", entry.container)
    if entry.kind == "conference":
        add("eventtitle", entry.event if entry.event and entry.event != entry.container else None)
    add("year", str(entry.year) if entry.year else None)
    add("month", _MONTHS[entry.month - 1] if entry.month else None, macro=True)
    add("volume", entry.volume)
    add("number", entry.issue)
    add("pages", f"{first}--{last}" if first and last else first)
    if entry.kind not in ("report", "thesis"):
        add("publisher", entry.publisher)
    add("edition", entry.edition)
    add("issn", ", ".join(entry.issn) if entry.issn else None)
    add("isbn", ", ".join(entry.isbn) if entry.isbn else None)
    # doi, eprint and url are verbatim fields in biblatex: escaping would corrupt them; only braces must go.
    add("doi", _verbatim(entry.doi), raw=True)
    if entry.arxiv:
        add("eprint", _verbatim(entry.arxiv), raw=True)
        add("archivePrefix", "arXiv")
        add("primaryClass", entry.arxiv_class)
    add("url", _verbatim(entry.url), raw=True)
    return fields


def to_bibtex(entries: list[Entry], unresolved: list[tuple[str, str]] | None = None) -> str:
    """BibTeX text for the entries; ``unresolved`` (id, reason) pairs go in one trailing @comment."""
    blocks = []
    for entry in entries:
        lines = [f"@{_TYPES[entry.kind]}{{{entry.key},"]
        for name, value, macro in _fields(entry):
            lines.append(f"  {name} = {value}," if macro else f"  {name} = {{{value}}},")
        lines[-1] = lines[-1].rstrip(",")
        blocks.append("\n".join(lines) + "\n}")
    if unresolved:
        notes = "; ".join(f"{_comment_safe(i)}: {_comment_safe(r)}" for i, r in unresolved)
        blocks.append("@comment{unresolved: " + notes + "}")
    return "\n\n".join(blocks) + "\n"


def _verbatim(text: str | None) -> str | None:
    return re.sub(r"[{}]", "", text) if text else None


def _comment_safe(text: str) -> str:
    return re.sub(r"[{}@]", "", text)

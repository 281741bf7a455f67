"""The server's MCP resources (DESIGN §3): their URI templates, URIs built from values, and a URI taken apart.

Core, not the gateway's: the research family reads what a URI names (the caller's library, stored conversions)
and links to it from long answers; the gateway lists the templates and completes their variables. Each value is
one percent-encoded segment (a DOI holds ``/``; ``scholar://paper/10.1073%2Fpnas.1414271111/markdown``), and a
URI whose value arrives unencoded is read the same way. A URI that matches no template names nothing.

Freshness (``ttl_ms``, the 2026-07-28 caching hint of a read) is each template's on purpose: a library item
changes whenever its owner tags or moves it (one minute); a kept PDF or an item's Markdown changes only when a
better version is kept (one hour); a paper's converted Markdown is content-addressed and never rewritten (one
day). What a caller's library holds is private to that caller.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote, unquote

__all__ = [
    "LIBRARY_ITEM",
    "LIBRARY_MARKDOWN",
    "LIBRARY_PDF",
    "PAPER_MARKDOWN",
    "SCHEME",
    "TEMPLATES",
    "ResourceRef",
    "Template",
    "parse_uri",
    "template_named",
]

SCHEME = "scholar"
_MINUTE_MS = 60_000
_HOUR_MS = 60 * _MINUTE_MS
_VARIABLE = re.compile(r"\{([a-z_]+)\}")


@dataclass(frozen=True)
class Template:
    """One RFC 6570 level-1 URI template of ours and what the resources it names are."""

    name: str
    title: str
    uri_template: str
    description: str
    mime_type: str
    ttl_ms: int

    @property
    def variables(self) -> tuple[str, ...]:
        return tuple(_VARIABLE.findall(self.uri_template))

    def uri(self, **values: str) -> str:
        """The URI with each variable replaced by its value, percent-encoded as one segment."""
        return _VARIABLE.sub(lambda m: quote(values[m.group(1)], safe=""), self.uri_template)

    def match(self, uri: str) -> dict[str, str] | None:
        """The variables' values (decoded) when ``uri`` is one of this template's, else None."""
        found = self._pattern.fullmatch(uri)
        if found is None:
            return None
        values = {name: unquote(value) for name, value in found.groupdict().items()}
        return values if all(values.values()) else None

    @property
    def _pattern(self) -> re.Pattern[str]:
        parts = _VARIABLE.split(self.uri_template)
        # Even parts are literal text, odd parts variable names; a value may hold "/" only when written unencoded.
        return re.compile("".join(re.escape(part) if i % 2 == 0 else f"(?P<{part}>.+?)"
                                  for i, part in enumerate(parts)))


def _template(name: str, title: str, path: str, mime_type: str, ttl_ms: int, description: str) -> Template:
    """One of our templates, written as a row: ``path`` is what follows ``scholar://``."""
    return Template(name, title, f"{SCHEME}://{path}", description, mime_type, ttl_ms)


LIBRARY_ITEM = _template(
    "library_item", "Library item", "library/{item_id}", "application/json", _MINUTE_MS,
    "A paper in your library (item_id lib_…): its full record, collection, tags, notes, the PDF versions kept and "
    "the URIs of its PDF and Markdown. Only your own items exist for you.",
)
LIBRARY_PDF = _template(
    "library_pdf", "Kept PDF", "library/{item_id}/pdf", "application/pdf", _HOUR_MS,
    "The PDF download_paper kept for a library item (the preferred version), as a base64 blob; a PDF over the "
    "inline cap comes as a text/uri-list with a short-lived download link instead.",
)
LIBRARY_MARKDOWN = _template(
    "library_markdown", "Library item as Markdown", "library/{item_id}/markdown", "text/markdown", _HOUR_MS,
    "The whole Markdown of a library item's kept PDF (one <!-- page N --> marker per page).",
)
PAPER_MARKDOWN = _template(
    "paper_markdown", "Paper as Markdown", "paper/{id}/markdown", "text/markdown", 24 * _HOUR_MS,
    "The whole converted Markdown of a paper read_paper or download_paper has converted; id is any paper "
    "identifier (DOI, arXiv id, S2 id, PMID:…), percent-encoded. A paper not converted yet does not exist here: "
    "read_paper converts it.",
)
TEMPLATES: tuple[Template, ...] = tuple(
    sorted((LIBRARY_ITEM, LIBRARY_MARKDOWN, LIBRARY_PDF, PAPER_MARKDOWN), key=lambda t: t.name)
)


@dataclass(frozen=True)
class ResourceRef:
    """A URI of ours taken apart: its template and the values of the template's variables."""

    uri: str
    template: Template
    values: dict[str, str]


def parse_uri(uri: str) -> ResourceRef | None:
    """The template and values ``uri`` names, or None when it is no URI of ours.

    The longest templates are tried first, so ``…/{item_id}/pdf`` is never read as an item id holding ``/pdf``.
    """
    for template in sorted(TEMPLATES, key=lambda t: len(t.uri_template), reverse=True):
        values = template.match(uri)
        if values is not None:
            return ResourceRef(uri=uri, template=template, values=values)
    return None


def template_named(uri_template: str) -> Template | None:
    """Our template whose ``uri_template`` is exactly this text, or None."""
    return next((t for t in TEMPLATES if t.uri_template == uri_template), None)

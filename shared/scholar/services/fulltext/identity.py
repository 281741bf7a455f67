"""Which paper a PDF a caller brought is (issue 38): a DOI or arXiv id in its metadata or first page, else its title.

Order: the document information (``Subject``, ``Keywords``, ``Title`` may carry ``doi:…``), then the first page's
text (arXiv's side stamp ``arXiv:2202.00535v1 [cs.CL]``, a printed ``https://doi.org/…``). An identifier found is
checked by ``scholar.core.ids`` (garbled text gives none). Without one, the metadata's title is what the checked
title match looks up (``scholar.services.library.brought``, async); a file name is only shown, never matched.
Blocking (pdfium, under its one lock): callers run it off the event loop.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePath

import pypdfium2 as pdfium

from scholar.core.ids import PAPER_KINDS, InvalidIdError, parse_paper_id
from scholar.services.pdftext.lock import PDFIUM

__all__ = ["PdfIdentity", "identify_pdf"]

_ARXIV = re.compile(r"arXiv:\s*(\d{4}\.\d{4,5}(?:v\d+)?|[a-z-]+(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?)", re.IGNORECASE)
_DOI = re.compile(r"(?:doi\.org/|doi:\s*|DOI\s+)?(10\.\d{4,9}/[^\s\"<>]+)", re.IGNORECASE)
_FIRST_PAGE_CHARS = 6000


@dataclass(frozen=True, slots=True)
class PdfIdentity:
    """What a PDF says of itself: an identifier every tool accepts (or None) and a title to show."""

    identifier: str | None
    title: str
    titled: bool = False  # the title is the document's own (its metadata), not the file's name: worth matching


def _found(text: str) -> str | None:
    for pattern, form in ((_ARXIV, "arXiv:{}"), (_DOI, "{}")):
        for match in pattern.finditer(text):
            try:
                parsed = parse_paper_id(form.format(match.group(1)))
            except InvalidIdError:
                continue
            if parsed.kind in PAPER_KINDS:
                return parsed.cache_key()
    return None


def identify_pdf(data: bytes, filename: str | None = None) -> PdfIdentity:
    """The identifier and title of a PDF (rules in the module docstring); an unreadable PDF has only its file name."""
    fallback = PurePath(filename).stem if filename else "Untitled document"
    with PDFIUM:
        try:
            document = pdfium.PdfDocument(data)
        except pdfium.PdfiumError:
            return PdfIdentity(identifier=None, title=fallback)
        try:
            metadata = document.get_metadata_dict(skip_empty=True)
            first = ""
            if len(document):
                textpage = document[0].get_textpage()
                first = textpage.get_text_range()[:_FIRST_PAGE_CHARS]
        finally:
            document.close()
    own_title = " ".join((metadata.get("Title") or "").split())
    found = _found(" ".join(metadata.get(k, "") for k in ("Subject", "Keywords", "Title"))) or _found(first)
    return PdfIdentity(identifier=found, title=(own_title or fallback)[:300], titled=bool(own_title))

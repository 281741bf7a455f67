"""Where a standard's full-text document lives: which registry source serves it, at which path, as what.

Only documents on our registry sources are fetched (the proxy base of DESIGN §6 needs a source name and a
public path): NIST PDFs on nvlpubs.nist.gov (derived from the DOI, since the CSRC export names no PDF),
W3C spec pages on www.w3.org, ETSI PDFs on www.etsi.org. Anything else is not on offer: the record keeps its
``full_text_url`` for fetching by hand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from scholar.core.numerals import ascii_int
from scholar.families.standards.records import StandardRecord
from scholar.families.standards.w3c_html import CONVERTER_NAME as HTML_CONVERTER

# scholar.services.pdftext.convert.CONVERTER_NAME, not imported here: pdfium loads only where a PDF is converted.
PDF_CONVERTER = "builtin"

Kind = Literal["pdf", "html"]

# nvlpubs folders per DOI series (10.6028/NIST.<series>.<number>); IR folders are per publication year.
_NVLPUBS_FOLDERS = {"SP": "SpecialPublications", "FIPS": "FIPS", "CSWP": "CSWP"}
_NIST_DOI = re.compile(r"^10\.6028/(NIST\.(SP|FIPS|CSWP|IR)\.[A-Za-z0-9.\-]+)$")
_HOSTS: dict[tuple[str, str], tuple[str, Kind]] = {
    ("W3C", "www.w3.org"): ("w3c_www", "html"),
    ("ETSI", "www.etsi.org"): ("etsi", "pdf"),
}


@dataclass(frozen=True)
class Document:
    """One fetchable full-text document: ``source`` from the registry, the full public ``path``, its kind."""

    source: str
    path: str
    kind: Kind

    @property
    def converter(self) -> str:
        """The converter name that goes into the stored text's key."""
        return PDF_CONVERTER if self.kind == "pdf" else HTML_CONVERTER


def _nist(record: StandardRecord) -> Document | None:
    match = _NIST_DOI.match(record.doi or "")
    if match is None:
        return None  # NBS-era and other legacy DOIs live in irregular nvlpubs folders
    name, series = match.group(1), match.group(2)
    if series == "IR":
        year = (record.published or "")[:4]
        if ascii_int(year) is None:
            return None
        folder = f"ir/{year}"
    else:
        folder = _NVLPUBS_FOLDERS[series]
    return Document("nvlpubs", f"/nistpubs/{folder}/{name}.pdf", "pdf")


def _by_url(record: StandardRecord) -> Document | None:
    if not record.full_text_url:
        return None
    parts = urlsplit(record.full_text_url)
    found = _HOSTS.get((record.body, (parts.hostname or "").lower()))
    if found is None or not parts.path:
        return None
    source, kind = found
    if record.body == "ETSI" and not parts.path.lower().endswith(".pdf"):
        return None
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    return Document(source, path, kind)


def document_for(record: StandardRecord) -> Document | None:
    """The full-text document of ``record`` on one of our sources, or None when none is on offer."""
    if record.body == "NIST":
        return _nist(record)
    if record.body in ("W3C", "ETSI"):
        return _by_url(record)
    return None

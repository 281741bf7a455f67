"""The rows of reference and citation lists that are not whole records, mapped to ``Paper``.

Crossref's deposited references, Europe PMC's reference and citation rows and INSPIRE's reference entries carry a
title, a year, authors and one or two identifiers at most; whole records (OpenAlex works, INSPIRE hits) use
scholar.core.paper_mapping. A row with neither an identifier nor a title cannot be told apart from another and is
dropped (Crossref's ``unstructured``-only references).
"""

from __future__ import annotations

import re
from typing import Any

from scholar.core.records import Author, Paper

_RECID = re.compile(r"/literature/(\d+)$")


def _paper(
    source: str, *, title: Any, year: Any, authors: list[Any], external: dict[str, Any], venue: Any = None
) -> Paper | None:
    ids = {k: str(v) for k, v in external.items() if v}
    if not ids and not title:
        return None
    try:
        year_value = int(year) if year else None
    except (TypeError, ValueError):
        year_value = None
    return Paper(
        title=str(title) if title else None,
        year=year_value,
        venue=str(venue) if venue else None,
        authors=[Author(name=str(a)) for a in authors if a] or None,
        externalIds=ids or None,
        sources=[source],
    )


def from_crossref_reference(ref: dict[str, Any]) -> Paper | None:
    """One entry of a Crossref work's ``reference`` array."""
    return _paper(
        "crossref",
        title=ref.get("article-title") or ref.get("volume-title"),
        year=ref.get("year"),
        authors=[ref["author"]] if ref.get("author") else [],
        external={"DOI": ref.get("DOI")},
        venue=ref.get("journal-title"),
    )


def from_europepmc_link(row: dict[str, Any]) -> Paper | None:
    """One row of Europe PMC's ``referenceList`` or ``citationList``."""
    source, rid = row.get("source"), row.get("id")
    external = {
        "DOI": row.get("doi"),
        "PubMed": rid if source == "MED" else None,
        "PubMedCentral": rid if source == "PMC" else None,
    }
    authors = [a.strip() for a in str(row.get("authorString") or "").rstrip(".").split(",")]
    return _paper(
        "europepmc",
        title=row.get("title"),
        year=row.get("pubYear"),
        authors=authors,
        external=external,
        venue=row.get("journalAbbreviation"),
    )


def from_inspire_reference(entry: dict[str, Any]) -> Paper | None:
    """One entry of an INSPIRE literature record's ``references`` (the cited record's number from its ``$ref``)."""
    ref = entry.get("reference") or {}
    recid = _RECID.search(str((entry.get("record") or {}).get("$ref") or ""))
    dois = ref.get("dois") or []
    external = {
        "INSPIRE": recid.group(1) if recid else None,
        "DOI": dois[0] if dois else None,
        "ArXiv": ref.get("arxiv_eprint"),
    }
    title = (ref.get("title") or {}).get("title")
    authors = [a.get("full_name") for a in ref.get("authors") or [] if isinstance(a, dict)]
    info = ref.get("publication_info") or {}
    return _paper(
        "inspire",
        title=title,
        year=info.get("year"),
        authors=authors,
        external=external,
        venue=info.get("journal_title"),
    )

"""Recovery hints that fit the tool: what a caller of this family should try when the raiser gave no hint.

A ``not_found`` from get_book must not suggest DOIs, nor one from get_paper an ISBN: the family function
fills the hint in by family (``with_family_hint``), only where the error carries none of its own.
"""

from __future__ import annotations

from scholar.core.errors import NOT_FOUND, ErrorCode, ScholarError

HINTS: dict[str, dict[ErrorCode, str]] = {
    "papers": {
        NOT_FOUND: "Check the identifier; another form of it (DOI, arXiv id, PMID, S2 id) may resolve, "
        "or find the paper with search_papers.",
    },
    "arxiv": {
        NOT_FOUND: "Check the arXiv id (e.g. 2401.12345v2 or hep-th/9901001); arxiv_search finds papers by "
        "title, author or category.",
    },
    "books": {
        NOT_FOUND: "Check the ISBN (10 or 13 digits) or the Open Library id (OL…W, OL…M); search_books finds a "
        "book by title or author.",
    },
    "standards": {
        NOT_FOUND: "Check the designation (e.g. RFC 9110, NIST SP 800-53r5); resolve_standard_identifier and "
        "search_standards find standards by number or title.",
    },
    "pdf": {
        NOT_FOUND: "No open copy was found; if you know a PDF link (author page, repository), call fetch_pdf_by_url.",
    },
    "tasks": {
        NOT_FOUND: "The task does not exist, has expired, or was started by another caller; list_tasks shows yours.",
    },
}


def with_family_hint(err: ScholarError, family: str) -> ScholarError:
    """``err`` with the family's hint for its code when it has none (returns the same object)."""
    if not err.hint:
        err.hint = HINTS.get(family, {}).get(err.code)
    return err

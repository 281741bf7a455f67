"""Which tool takes which identifier form, and the refusal that says so (DESIGN §4: ids work everywhere).

``scholar.core.ids`` tells what an identifier is (its kind). A tool that cannot use a kind refuses it here, always the
same way: ``invalid_argument`` (reason ``wrong_identifier_form``) naming the field, the form it got, the forms the
tool takes and the tool that takes this one, so an agent holding any id our tools handed out knows its next call.
"""

from __future__ import annotations

from collections.abc import Collection

from scholar.core.errors import InvalidArgumentError
from scholar.core.ids import PAPER_KINDS, IdKind, InvalidIdError, parse_paper_id

WRONG_FORM = "wrong_identifier_form"

FORM_NAMES: dict[IdKind, str] = {
    "doi": "a DOI",
    "arxiv": "an arXiv id",
    "pmid": "a PubMed id",
    "pmcid": "a PubMed Central id",
    "s2": "a Semantic Scholar paper id",
    "corpus": "a Semantic Scholar corpus id",
    "openalex": "an OpenAlex work id",
    "inspire": "an INSPIRE-HEP record id",
    "acm": "an ACM id",
    "acl": "an ACL Anthology id",
    "mag": "a Microsoft Academic id",
    "isbn": "an ISBN",
    "patent": "a patent number",
    "standard": "a standard's identifier",
    "library_item": "a library item id",
    "artifact": "a stored PDF (pdfs/<sha256>.pdf)",
    "owned_pdf": "one of your PDFs (mine/<sha256>.pdf, upload/<token>)",
    "url": "a web URL",
}
# The tool to send each kind to instead.
TAKEN_BY: dict[IdKind, str] = {
    **dict.fromkeys(PAPER_KINDS, "get_paper"),
    "isbn": "get_book",
    "patent": "get_patent",
    "standard": "get_standard",
    "library_item": "library_get",
    "artifact": "read_paper",
    "owned_pdf": "read_paper",
    "url": "fetch_pdf_by_url",
}
PAPER_FORMS = ("a paper identifier (DOI, arXiv id, Semantic Scholar id, CorpusId:…, PMID:…, PMCID:…, OpenAlex W…, "
               "INSPIRE:…)")


def wrong_form(raw: str, kind: IdKind, *, tool: str, field: str, takes: str = PAPER_FORMS,
               use: str | None = None) -> InvalidArgumentError:
    """The refusal of an identifier of ``kind`` that ``tool`` cannot use.

    Args:
        raw: the identifier as given.
        kind: what ``scholar.core.ids`` parsed it as.
        tool: the tool refusing it.
        field: the argument that held it.
        takes: the forms ``tool`` does take, in words.
        use: the tool to name instead of the usual one for ``kind`` (``TAKEN_BY``).
    """
    shown = raw if len(raw) <= 80 else raw[:77] + "..."
    other = use or TAKEN_BY[kind]
    return InvalidArgumentError(
        f"{field}: {shown!r} is {FORM_NAMES[kind]}, but {tool} takes {takes}; use {other} for {FORM_NAMES[kind]}",
        field=field,
        reason=WRONG_FORM,
        details={"got": kind, "takes": takes, "use": other},
        hint=f"Call {other} with this identifier, or give {tool} {takes}.",
    )


def refuse_other_forms(raw: str, *, tool: str, field: str, accepts: Collection[IdKind], takes: str,
                       use: dict[IdKind, str] | None = None) -> None:
    """Refuse ``raw`` when ``scholar.core.ids`` recognises it as a kind ``tool`` does not take (``wrong_form``).

    An identifier ``scholar.core.ids`` cannot classify (an Open Library id, an author id, a fuzzy standard citation) is
    left to the tool's own parser, whose message names its forms.

    Raises:
        InvalidArgumentError: reason ``wrong_identifier_form``.
    """
    try:
        kind = parse_paper_id(raw).kind
    except InvalidIdError:
        return
    if kind not in accepts:
        raise wrong_form(raw, kind, tool=tool, field=field, takes=takes, use=(use or {}).get(kind))

"""Identifier parsing and normalisation: one ``PaperId`` for every form a caller may paste.

``parse_paper_id`` tries the forms in this order (the first that matches wins):

1. empty, over 300 characters, or holding a control character (also percent-encoded) → ``InvalidIdError``;
   a DOI with a dot segment (``/./``, ``/../``, a trailing ``/..``) is refused too: identifiers are data,
   never path (docs/security.md).
2. an explicit prefix, case-insensitive: ``doi:``, ``arxiv:``, ``pmid:``, ``pmcid:``, ``corpusid:``, ``acm:``,
   ``mag:``, ``isbn:``, ``openalex:``, ``inspire:``, ``patent:``, ``url:``. A ``doi:`` naming the arXiv DataCite
   DOI ``10.48550/arXiv.X`` becomes an arXiv id.
3. an http(s) URL: doi.org / dx.doi.org → doi (or arXiv as above); arxiv.org/abs|pdf|html → arxiv;
   openalex.org/W… → openalex; inspirehep.net/literature/N → inspire; pubmed → pmid; PMC article pages → pmcid;
   semanticscholar.org/paper/…/<hex> → s2; a publisher's or archive's link read by the table in
   ``scholar.core.link_forms`` → the DOI (PMID, PMCID, ACL id) in it; any other URL → ``url`` (kept verbatim).
4. what our own tools hand out besides papers: ``lib_<20 hex>`` → library_item (a caller's library item),
   ``pdfs/<sha256>.pdf`` → artifact (a stored PDF); ``mine/<sha256>.pdf`` and ``upload/<token>`` → owned_pdf (a PDF
   the caller brought: readable by that caller alone, scholar.store.owned_pdfs).
5. bare forms: ``10.NNNN/…`` (also ``doi.org/…`` without a scheme) → doi; new-style or legacy arXiv id (or an
   arxiv.org URL without a scheme) → arxiv; ``PMC123`` → pmcid; 40 hex digits → s2; ``W123`` → openalex;
   a checksum-valid ISBN-10/13 → isbn; a standard's identifier (``RFC 9000``, ``ISO/IEC 27001:2022``,
   ``NIST SP 800-53``, ``IEEE 802.11``, ``ETSI EN 303 645`` …) → standard; a patent number with a known office
   prefix → patent.

Bare digits are deliberately not guessed (PMID, CorpusId and MAG ids all look alike): callers say ``PMID:123``.
A 40-hex S2 id is tested before patents and can never be one; ISBNs are digits only, patents need an office prefix.

Normalised values: DOIs lowercased without prefix/URL (``%2F`` decoded, trailing ``.``/``,``/unbalanced ``)``
dropped); arXiv ids without prefix and version (the version is kept apart), legacy ids without the subject class
(``math.GT/0309136`` → ``math/0309136``, as arXiv itself canonicalises); S2 ids lowercase; ISBNs as ISBN-13;
patents as office + number + kind, no separators (``EP 1234567 A1`` → ``EP1234567A1``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Literal
from urllib.parse import unquote, urlsplit

from pydantic import BaseModel, Field

from scholar.core import patent_numbers
from scholar.core.errors import InvalidArgumentError
from scholar.core.urlpath import has_control_characters

IdKind = Literal["doi", "arxiv", "pmid", "pmcid", "s2", "corpus", "isbn", "openalex", "inspire", "acm", "acl", "mag",
                 "patent", "standard", "library_item", "artifact", "owned_pdf", "url"]
# The kinds that name a scholarly paper (the others name a book, patent, standard, library item, PDF or web page).
PAPER_KINDS: frozenset[IdKind] = frozenset(
    {"doi", "arxiv", "pmid", "pmcid", "s2", "corpus", "openalex", "inspire", "acm", "acl", "mag"})
# The kinds Semantic Scholar's graph API looks up directly (``PaperId.s2_key``).
S2_KINDS: frozenset[IdKind] = frozenset({"doi", "arxiv", "pmid", "pmcid", "s2", "corpus", "acm", "acl", "mag"})

MAX_ID_LENGTH = 300
# The argument of a tool that takes one paper in any of these forms (every tool but get_paper says only this).
PaperIdentifier = Annotated[str, Field(min_length=1, max_length=MAX_ID_LENGTH, description="Any paper identifier")]
ACCEPTED_FORMS = (
    "DOI (10.1038/nature12373, doi:…, https://doi.org/…), arXiv id (2104.12255, 2104.12255v1, hep-th/9901001, "
    "arXiv:…, arxiv.org URL, a publisher's link holding the DOI), PMID:123, PMCID:PMC123 or PMC123, CorpusId:123, "
    "ACM:…, ACL:… (ACL Anthology), MAG:…, "
    "a 40-hex Semantic Scholar id, an OpenAlex work id (W2741809807), an INSPIRE record (INSPIRE:1842768), "
    "ISBN-10/13 (ISBN:…), a patent number with its office prefix (EP1234567A1, US10123456B2, WO2024/123456), "
    "a standard (RFC 9000, ISO/IEC 27001), a library item id (lib_…), "
    "a stored PDF (pdfs/<sha256>.pdf, mine/<sha256>.pdf, upload/<token>), "
    "or an http(s) URL"
)
_DOI_RE = re.compile(r"^10\.\d{4,9}/\S+$")
_DOT_SEGMENT_RE = re.compile(r"(?:^|/)\.{1,2}(?:/|$)")
_DOI_START_RE = re.compile(r"^(?:(?:https?://)?(?:www\.|dx\.)?doi\.org/|doi:\s*)?10\.\d{4,9}/", re.IGNORECASE)
_DOI_URL_RE = re.compile(r"^(?:https?://)?(?:www\.|dx\.)?doi\.org/", re.IGNORECASE)
_ARXIV_DOI_RE = re.compile(r"^10\.48550/arxiv\.(.+)$", re.IGNORECASE)
_ARXIV_URL_RE = re.compile(r"^(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf|html)/(.+?)(?:\.pdf)?/?$", re.I)
_ARXIV_NEW_RE = re.compile(r"^(\d{4}\.\d{4,5})(v\d+)?$", re.IGNORECASE)
_ARXIV_OLD_RE = re.compile(r"^([a-z]+(?:-[a-z]+)?)(?:\.[a-z]{2})?/(\d{7})(v\d+)?$", re.IGNORECASE)
_PREFIX_RE = re.compile(r"^([A-Za-z]+):\s*(.+)$", re.DOTALL)
_S2_RE = re.compile(r"^[0-9a-f]{40}$", re.IGNORECASE)
_OPENALEX_RE = re.compile(r"^W\d+$", re.IGNORECASE)
_INSPIRE_RE = re.compile(r"^\d{1,10}$")
LIBRARY_ITEM_RE = re.compile(r"^lib_[0-9a-f]{20}$")
PDF_ARTIFACT_RE = re.compile(r"^pdfs/([0-9a-f]{64})\.pdf$")
OWNED_PDF_RE = re.compile(r"^(?:mine/[0-9a-f]{64}\.pdf|upload/[A-Za-z0-9_-]{32})$")
# A standard's identifier as the standards tools write it: a body's prefix, then its number (RFC 9000, BCP 14,
# ISO/IEC 27001:2022, IEEE Std 802.11-2020, NIST SP 800-53 Rev. 5, FIPS 140-3, ETSI EN 303 645, W3C WCAG 2.1).
_STANDARD_RE = re.compile(
    r"^(?:(?:RFC|BCP|STD|FYI)\s*-?\s*\d{1,5}"
    r"|(?:ISO|IEC|IEEE|ANSI|ASTM|CEN|CENELEC|ITU(?:-[TR])?|ETSI|NIST|W3C|CISPR|EN|BS|DIN)(?:/[A-Z]+)*\s+\S.*"
    r"|(?:FIPS|SP)\s*(?:PUB\s*)?\d{2,4}(?:-\d+)?.*)$",
    re.IGNORECASE,
)
_PMCID_RE = re.compile(r"^(?:PMC)?(\d+)$", re.IGNORECASE)
_DIGITS_RE = re.compile(r"^\d+$")
_ACM_RE = re.compile(r"^[\w.-]+$")
_ISBN_PREFIX_RE = re.compile(r"^ISBN(?:-1[03])?:?\s*", re.IGNORECASE)
_ISBN_SHAPE_RE = re.compile(r"^\d[\d\s-]*[\dXx]$")


class InvalidIdError(InvalidArgumentError, ValueError):
    """An identifier none of the accepted forms matches (or a checksum fails); ``raw`` holds the input."""

    default_hint = f"Accepted identifier forms: {ACCEPTED_FORMS}."

    def __init__(self, message: str, *, raw: str = "", field: str | None = None) -> None:
        super().__init__(message, field=field)
        self.raw = raw


class PaperId(BaseModel, frozen=True):
    """A parsed identifier: its kind, its normalised value and (arXiv, bioRxiv/medRxiv) the version asked for."""

    kind: IdKind
    value: str
    version: str | None = None

    def s2_key(self) -> str:
        """Return the form Semantic Scholar's graph API accepts in ``/paper/{id}``.

        Raises:
            InvalidIdError: the kind (isbn, patent, openalex, url) cannot be looked up in Semantic Scholar.
        """
        prefixes = {"doi": "DOI:", "arxiv": "ARXIV:", "pmid": "PMID:", "pmcid": "PMCID:", "corpus": "CorpusId:",
                    "acm": "ACM:", "acl": "ACL:", "mag": "MAG:", "s2": ""}
        if self.kind not in prefixes:
            raise InvalidIdError(f"a {self.kind} identifier cannot be looked up in Semantic Scholar", raw=self.value)
        return prefixes[self.kind] + self.value

    def cache_key(self) -> str:
        """Return ``<kind>:<value>``, stable across the input forms (the arXiv version is not part of it)."""
        return f"{self.kind}:{self.value}"

    @classmethod
    def from_cache_key(cls, key: str) -> PaperId:
        """The identifier a ``cache_key`` names (a job's normalised identifier travels in this form).

        Raises:
            ValueError: not ``<kind>:<value>`` of a known kind.
        """
        kind, _, value = key.partition(":")
        return cls.model_validate({"kind": kind, "value": value})


def _invalid(raw: str, what: str = "identifier") -> InvalidIdError:
    shown = raw if len(raw) <= 80 else raw[:77] + "..."
    return InvalidIdError(f"unrecognised {what} {shown!r}; accepted forms: {ACCEPTED_FORMS}", raw=raw)


def _clean_doi(raw: str) -> str | None:
    """Return the normalised DOI in ``raw`` (prefix, URL and trailing punctuation removed), or None."""
    text = unquote(raw.strip())
    text = _DOI_URL_RE.sub("", text)
    text = re.sub(r"^doi:\s*", "", text, flags=re.IGNORECASE).strip()
    if _DOT_SEGMENT_RE.search(text):
        return None  # before trailing punctuation goes: "10.1/x/.." must not become "10.1/x/"
    text = text.rstrip(".,;:'\"")
    # A DOI may hold balanced brackets (10.1016/S0140-6736(20)30183-5); only an unbalanced closer is prose.
    while text and text[-1] in ")]" and text.count(text[-1]) > text.count("(" if text[-1] == ")" else "["):
        text = text[:-1].rstrip(".,;:")
    return text.lower() if _DOI_RE.match(text) else None


def _not_a_doi(raw: str) -> InvalidIdError:
    """The refusal of a DOI-looking ``raw`` that ``_clean_doi`` rejected: dot segments named, else the forms."""
    if _DOT_SEGMENT_RE.search(unquote(raw.strip())):
        return InvalidIdError(f"the DOI {raw[:80]!r} holds a dot segment ('/./' or '/../'), which no DOI has", raw=raw)
    return _invalid(raw, "DOI")


def parse_arxiv_id(raw: str) -> tuple[str, str | None]:
    """Split an arXiv identifier into its canonical id and its version.

    Args:
        raw: new-style (2104.12255, 0704.0001), legacy (hep-th/9901001, math.GT/0309136), optionally versioned,
            with an ``arXiv:`` prefix, as an arxiv.org abs/pdf URL, or as the DataCite DOI 10.48550/arXiv.<id>.

    Returns:
        ``(id, version)``: the id without prefix or version (legacy ids lose their subject class), and
        ``"v2"`` style version or None.

    Raises:
        InvalidIdError: ``raw`` is not an arXiv identifier.
    """
    text = unquote(raw.strip())
    text = re.sub(r"^arxiv:\s*", "", text, flags=re.IGNORECASE)
    if url := _ARXIV_URL_RE.match(text):
        text = url.group(1)
    if (doi := _clean_doi(text)) and (datacite := _ARXIV_DOI_RE.match(doi)):
        text = datacite.group(1)
    if new := _ARXIV_NEW_RE.match(text):
        return new.group(1), new.group(2).lower() if new.group(2) else None
    if old := _ARXIV_OLD_RE.match(text):
        return f"{old.group(1).lower()}/{old.group(2)}", old.group(3).lower() if old.group(3) else None
    raise _invalid(raw, "arXiv identifier")


def _isbn10_check(first9: str) -> str:
    check = (11 - sum((10 - i) * int(d) for i, d in enumerate(first9)) % 11) % 11
    return "X" if check == 10 else str(check)


def _isbn13_check(first12: str) -> str:
    return str((10 - sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(first12)) % 10) % 10)


def parse_isbn(raw: str) -> str:
    """Validate an ISBN-10 or ISBN-13 and return it as 13 digits.

    Args:
        raw: with or without hyphens/spaces and an ``ISBN:`` / ``ISBN-13:`` prefix; ISBN-10 may end in X.

    Raises:
        InvalidIdError: not 10/13 characters of the right shape, not 978/979 for ISBN-13, or a wrong check digit.
    """
    text = re.sub(r"[\s-]", "", _ISBN_PREFIX_RE.sub("", raw.strip())).upper()
    if re.fullmatch(r"\d{9}[\dX]", text):
        if _isbn10_check(text[:9]) != text[9]:
            raise InvalidIdError(f"ISBN-10 {raw!r} fails its checksum (expected check digit "
                                 f"{_isbn10_check(text[:9])})", raw=raw)
        body = "978" + text[:9]
        return body + _isbn13_check(body)
    if re.fullmatch(r"97[89]\d{10}", text):
        if _isbn13_check(text[:12]) != text[12]:
            raise InvalidIdError(f"ISBN-13 {raw!r} fails its checksum (expected check digit "
                                 f"{_isbn13_check(text[:12])})", raw=raw)
        return text
    raise _invalid(raw, "ISBN (10 digits, last may be X, or 13 digits starting 978/979)")


def isbn13_to_isbn10(isbn13: str) -> str | None:
    """Return the ISBN-10 form of an ISBN (any accepted form), or None for 979 ISBNs, which have none.

    Raises:
        InvalidIdError: ``isbn13`` is not a valid ISBN.
    """
    digits = parse_isbn(isbn13)
    return digits[3:12] + _isbn10_check(digits[3:12]) if digits.startswith("978") else None


def parse_patent_number(raw: str) -> str | None:
    """Normalise a patent publication number to office + number + kind (``EP1234567A1``).

    The one normaliser is ``scholar.core.patent_numbers`` (every office's forms: ``EP.1234567.A1``,
    ``WO2024/123456``, ``US11,234,567B2``, ``US 2021/0123456 A1`` …). Returns None when ``raw`` is not a
    patent number: no known office prefix, a 40-hex Semantic Scholar id, an ISBN, or anything else.
    """
    text = re.sub(r"^patent:\s*", "", raw.strip(), flags=re.IGNORECASE)
    if _S2_RE.match(text):
        return None
    try:
        return patent_numbers.parse_patent_number(text).compact
    except InvalidArgumentError:
        return None


_PREFIXES = frozenset({"doi", "arxiv", "pmid", "pmcid", "pmc", "corpusid", "acm", "acl", "mag", "isbn", "openalex",
                       "inspire", "patent", "url"})
_NUMERIC_KINDS: dict[str, IdKind] = {"pmid": "pmid", "corpusid": "corpus", "mag": "mag"}


def _from_prefix(prefix: str, rest: str, raw: str) -> PaperId:
    """Parse the part after a known ``prefix:``; a prefix promises its kind, so a mismatch is an error."""
    rest = rest.strip()
    if prefix == "doi":
        if not (doi := _clean_doi(rest)):
            raise _not_a_doi(rest)
        return _from_doi(doi)
    if prefix == "arxiv":
        value, version = parse_arxiv_id(rest)
        return PaperId(kind="arxiv", value=value, version=version)
    if prefix in ("pmid", "corpusid", "mag") and _DIGITS_RE.match(rest):
        return PaperId(kind=_NUMERIC_KINDS[prefix], value=str(int(rest)))
    if prefix in ("pmcid", "pmc") and (pmc := _PMCID_RE.match(rest)):
        return PaperId(kind="pmcid", value=f"PMC{pmc.group(1)}")
    if prefix in ("acm", "acl") and _ACM_RE.match(rest):
        return PaperId(kind="acm" if prefix == "acm" else "acl", value=rest)
    if prefix == "isbn":
        return PaperId(kind="isbn", value=parse_isbn(rest))
    if prefix == "openalex" and _OPENALEX_RE.match(rest):
        return PaperId(kind="openalex", value=rest.upper())
    if prefix == "inspire" and _INSPIRE_RE.match(rest):
        return PaperId(kind="inspire", value=str(int(rest)))
    if prefix == "patent" and (patent := parse_patent_number(rest)):
        return PaperId(kind="patent", value=patent)
    if prefix == "url" and rest.lower().startswith(("http://", "https://")):
        return _from_url(rest)
    raise _invalid(raw, f"{prefix.upper()} identifier")


def _from_doi(doi: str) -> PaperId:
    if datacite := _ARXIV_DOI_RE.match(doi):
        value, version = parse_arxiv_id(datacite.group(1))
        return PaperId(kind="arxiv", value=value, version=version)
    return PaperId(kind="doi", value=doi)


def _from_url(url: str) -> PaperId:
    if _DOI_URL_RE.match(url):
        if not (doi := _clean_doi(url)):
            raise _not_a_doi(url)
        return _from_doi(doi)
    if _ARXIV_URL_RE.match(url):
        value, version = parse_arxiv_id(url)
        return PaperId(kind="arxiv", value=value, version=version)
    parts = urlsplit(url)
    host, path = (parts.hostname or "").lower(), parts.path.rstrip("/")
    last = path.rsplit("/", 1)[-1]
    if host.endswith("openalex.org") and _OPENALEX_RE.match(last):
        return PaperId(kind="openalex", value=last.upper())
    if host.endswith("inspirehep.net") and "/literature/" in path and _INSPIRE_RE.match(last):
        return PaperId(kind="inspire", value=str(int(last)))
    if host == "pubmed.ncbi.nlm.nih.gov" and _DIGITS_RE.match(last):
        return PaperId(kind="pmid", value=str(int(last)))
    if host.endswith("ncbi.nlm.nih.gov") and re.fullmatch(r"PMC\d+", last, re.IGNORECASE):
        return PaperId(kind="pmcid", value=last.upper())
    if host.endswith("semanticscholar.org") and "/paper/" in path and _S2_RE.match(last):
        return PaperId(kind="s2", value=last.lower())
    from scholar.core.link_forms import identifier_in  # noqa: PLC0415  # lazy: 8 ms of patterns, only for a link

    if (link := identifier_in(url)) and (prefixed := _PREFIX_RE.match(link.written)):  # a publisher's link, a DOI in it
        found = _from_prefix(prefixed.group(1), prefixed.group(2), url)
        return found.model_copy(update={"version": link.version}) if link.version else found
    return PaperId(kind="url", value=url)


def parse_paper_id(raw: str) -> PaperId:
    """Parse any accepted identifier form into a normalised ``PaperId`` (rules in the module docstring).

    Raises:
        InvalidIdError: empty, longer than 300 characters, a failed checksum, or no accepted form matches;
            the message lists the accepted forms.
    """
    text = raw.strip() if isinstance(raw, str) else ""
    if not text:
        raise InvalidIdError(f"empty identifier; accepted forms: {ACCEPTED_FORMS}", raw=str(raw))
    if len(text) > MAX_ID_LENGTH:
        raise InvalidIdError(f"identifier longer than {MAX_ID_LENGTH} characters", raw=text[:MAX_ID_LENGTH])
    if has_control_characters(text) or has_control_characters(unquote(text)):
        raise InvalidIdError("the identifier holds a control character, which no identifier has", raw=text)
    if (prefixed := _PREFIX_RE.match(text)) and prefixed.group(1).lower() in _PREFIXES:
        return _from_prefix(prefixed.group(1).lower(), prefixed.group(2), text)
    if re.match(r"^https?://", text, re.IGNORECASE):
        return _from_url(text)
    if LIBRARY_ITEM_RE.match(text):
        return PaperId(kind="library_item", value=text)
    if PDF_ARTIFACT_RE.match(text):
        return PaperId(kind="artifact", value=text)
    if OWNED_PDF_RE.match(text):
        return PaperId(kind="owned_pdf", value=text)
    if doi := _clean_doi(text):
        return _from_doi(doi)
    if _DOI_START_RE.match(unquote(text)):
        raise _not_a_doi(text)
    try:
        value, version = parse_arxiv_id(text)
        return PaperId(kind="arxiv", value=value, version=version)
    except InvalidIdError:
        pass  # not arXiv: try the remaining bare forms
    if pmc := re.fullmatch(r"PMC(\d+)", text, re.IGNORECASE):
        return PaperId(kind="pmcid", value=f"PMC{pmc.group(1)}")
    if _S2_RE.match(text):
        return PaperId(kind="s2", value=text.lower())
    if _OPENALEX_RE.match(text):
        return PaperId(kind="openalex", value=text.upper())
    if _ISBN_PREFIX_RE.match(text):
        return PaperId(kind="isbn", value=parse_isbn(text))
    if _ISBN_SHAPE_RE.match(text) and len(re.sub(r"[\s-]", "", text)) in (10, 13):
        try:
            return PaperId(kind="isbn", value=parse_isbn(text))
        except InvalidIdError as exc:  # bare digits could be meant as PMID/CorpusId: say how to write those
            raise InvalidIdError(f"{exc.message}; for other numeric ids write PMID:…, CorpusId:… or MAG:…",
                                 raw=text) from exc
    if _STANDARD_RE.match(text):
        return PaperId(kind="standard", value=" ".join(text.split()))
    if patent := parse_patent_number(text):
        return PaperId(kind="patent", value=patent)
    raise _invalid(text)


# externalIds name (S2's, and the shared Paper record's) → the written form ``parse_paper_id`` reads back, so every
# tool accepts it; in order of preference.
EXTERNAL_ID_FORMS = (("DOI", "{}"), ("ArXiv", "arXiv:{}"), ("PubMed", "PMID:{}"), ("PubMedCentral", "PMCID:{}"),
                     ("OpenAlex", "{}"), ("CorpusId", "CorpusId:{}"), ("INSPIRE", "INSPIRE:{}"))


def written_ids(external: Mapping[str, str]) -> list[str]:
    """A record's external identifiers in forms every tool accepts (each checked with ``parse_paper_id``).

    A garbled upstream id, or one that parses only as a URL, is left out rather than offered to other tools.
    """
    out: list[str] = []
    for name, form in EXTERNAL_ID_FORMS:
        if value := external.get(name):
            written = form.format(value)
            try:
                if parse_paper_id(written).kind != "url":
                    out.append(written)
            except InvalidIdError:
                continue
    return out


# externalIds name → the prefix ``parse_paper_id`` reads, for the normalised keys of a record.
_KEY_PREFIX = {"DOI": "doi", "ArXiv": "arxiv", "PubMed": "pmid", "PubMedCentral": "pmcid", "OpenAlex": "openalex",
               "CorpusId": "corpusid", "MAG": "mag", "INSPIRE": "inspire", "ACL": "acl"}


def record_keys(paper_id: str | None, external: Mapping[str, str]) -> set[str]:
    """Every normalised identifier key (``kind:value``) of a record: its S2 id and each external id.

    Every written form of one identifier meets in its key, so two records (or a record and an identifier a
    caller pastes) share a key exactly when they name the same paper. A garbled upstream id gives no key.
    """
    keys = {f"s2:{paper_id.lower()}"} if paper_id else set()
    for name, value in external.items():
        if (prefix := _KEY_PREFIX.get(name)) and value:
            try:
                keys.add(parse_paper_id(f"{prefix}:{value}").cache_key())
            except InvalidIdError:
                continue
    return keys


# Free text (seed 003: "an exact title works in every other tool"; "bare citation text through a checked
# bibliographic match"): what is no identifier form but reads as words. A string that starts like an identifier
# (``10.1038/…``, ``doi:…``, ``arXiv:…``, a URL) is a malformed identifier and stays refused.
_URL_SCHEME_RE = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)
_WORD_RE = re.compile(r"[^\W\d_]{3,}")


def reads_as_reference(raw: str) -> bool:
    """Whether ``raw``, which no identifier form matches, is a title or citation to match bibliographically.

    At least two words (apart) of three or more letters, letters making at least half of it, no control character, and
    not the start of an identifier form (a DOI, a known ``prefix:``, a URL, which are refused as malformed).
    """
    text = raw.strip() if isinstance(raw, str) else ""
    if not text or has_control_characters(text) or _URL_SCHEME_RE.match(text) or _DOI_START_RE.match(unquote(text)):
        return False
    if (prefixed := _PREFIX_RE.match(text)) and prefixed.group(1).lower() in _PREFIXES:
        return False
    letters = sum(ch.isalpha() for ch in text)
    words = [w for w in text.split() if _WORD_RE.search(w)]
    return len(words) >= 2 and letters * 2 >= len(text.replace(" ", ""))

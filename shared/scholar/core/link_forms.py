"""The scholarly links a user pastes, as one table: which host and path (or query) carry which identifier.

``scholar.core.ids`` asks ``identifier_in`` about every http(s) URL that is not a doi.org, arXiv, OpenAlex, INSPIRE,
PubMed or Semantic Scholar link (those it reads itself) and parses what comes back as the written form
``<prefix>:<value>``, so a publisher's link and its bare DOI become the same ``PaperId``.

The one non-obvious constraint: a link is read, never fetched. Hosts are matched exactly (a look-alike host such as
``pnas.org.evil.example`` is no PNAS link), and the identifier must end where the pattern says: a DOI stops before
``/full``, ``/abstract``, ``.pdf``, the query and the fragment; a bioRxiv/medRxiv ``v2`` is the version, kept apart
as arXiv's is. A URL no row reads stays a URL (kind ``url``) and is only ever fetched through the SSRF guard.
Every row carries an example and what it must parse to: tests/unit/test_link_forms.py tests each row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qs, unquote, urlsplit

__all__ = ["LINK_FORMS", "LinkForm", "LinkMatch", "identifier_in"]

# A DOI inside a path, up to one of the page suffixes publishers append (lazy, so the suffix is not eaten).
_DOI = r"(?P<id>10\.\d{4,9}/[^?#\s]+?)"
_PAGE_SUFFIX = r"(?:/(?:full|abstract|abs|summary|fulltext|epdf|pdf|pdfdirect|meta|html|references))?(?:\.pdf)?/?"
_DOI_PAGES = r"(?:full|abs|abstract|pdf|epdf|epub|pdfdirect|fullHtml|book|reader)/"


@dataclass(frozen=True)
class LinkForm:
    """One row: the exact hosts, the path (or query parameter) holding the id, and what the id is written as.

    ``pattern`` is matched against the whole path (``re.fullmatch``, percent-decoded) and names the id ``id`` (and a
    version ``version`` where the kind has versions); with ``query`` set, the id is that query parameter's value
    instead, and ``pattern`` matches it. ``written`` turns the id into the form ``scholar.core.ids`` parses.
    """

    name: str
    hosts: frozenset[str]
    pattern: re.Pattern[str]
    written: str
    example: str
    parses_to: str  # ``<kind>:<value>`` (plus `` <version>``) of the example: the row's test
    query: str | None = None


@dataclass(frozen=True)
class LinkMatch:
    """What a link names: the written form (``doi:10.1073/…``) and the version asked for, if any."""

    written: str
    version: str | None = None


def _hosts(*names: str) -> frozenset[str]:
    return frozenset(names)


def _row(
    name: str,
    hosts: frozenset[str],
    pattern: str,
    example: str,
    parses_to: str,
    *,
    written: str = "doi:{id}",
    query: str | None = None,
) -> LinkForm:
    return LinkForm(name, hosts, re.compile(pattern, re.IGNORECASE), written, example, parses_to, query)


_PUBLISHER_DOI_PATH = rf"/doi/(?:{_DOI_PAGES})?{_DOI}{_PAGE_SUFFIX}"

LINK_FORMS: tuple[LinkForm, ...] = (
    _row(
        "PNAS",
        _hosts("www.pnas.org", "pnas.org"),
        _PUBLISHER_DOI_PATH,
        "https://www.pnas.org/doi/10.1073/pnas.1414271111",
        "doi:10.1073/pnas.1414271111",
    ),
    _row(
        "Wiley Online Library",
        _hosts("onlinelibrary.wiley.com"),
        _PUBLISHER_DOI_PATH,
        "https://onlinelibrary.wiley.com/doi/full/10.1002/anie.201915678",
        "doi:10.1002/anie.201915678",
    ),
    _row(
        "ACM Digital Library",
        _hosts("dl.acm.org"),
        _PUBLISHER_DOI_PATH,
        "https://dl.acm.org/doi/pdf/10.1145/3292500.3330701",
        "doi:10.1145/3292500.3330701",
    ),
    _row(
        "Science",
        _hosts("www.science.org", "science.org"),
        _PUBLISHER_DOI_PATH,
        "https://www.science.org/doi/abs/10.1126/science.aax2342",
        "doi:10.1126/science.aax2342",
    ),
    _row(
        "Taylor & Francis",
        _hosts("www.tandfonline.com", "tandfonline.com"),
        _PUBLISHER_DOI_PATH,
        "https://www.tandfonline.com/doi/full/10.1080/00031305.2016.1154108",
        "doi:10.1080/00031305.2016.1154108",
    ),
    _row(
        "SAGE",
        _hosts("journals.sagepub.com"),
        _PUBLISHER_DOI_PATH,
        "https://journals.sagepub.com/doi/10.1177/0956797611417632",
        "doi:10.1177/0956797611417632",
    ),
    _row(
        "ACS",
        _hosts("pubs.acs.org"),
        _PUBLISHER_DOI_PATH,
        "https://pubs.acs.org/doi/10.1021/jacs.9b05245",
        "doi:10.1021/jacs.9b05245",
    ),
    _row(
        "Springer",
        _hosts("link.springer.com"),
        rf"/(?:article|chapter|book|content/pdf)/{_DOI}{_PAGE_SUFFIX}",
        "https://link.springer.com/content/pdf/10.1007/s11263-015-0816-y.pdf",
        "doi:10.1007/s11263-015-0816-y",
    ),
    _row(
        "Nature",
        _hosts("www.nature.com", "nature.com"),
        r"/articles/(?P<id>[a-z0-9.-]+?)(?:\.pdf)?/?",
        "https://www.nature.com/articles/s41586-020-2649-2",
        "doi:10.1038/s41586-020-2649-2",
        written="doi:10.1038/{id}",
    ),
    _row(
        "Frontiers",
        _hosts("www.frontiersin.org", "frontiersin.org"),
        rf"/(?:journals/[\w-]+/)?articles/{_DOI}"
        rf"{_PAGE_SUFFIX}",
        "https://www.frontiersin.org/articles/10.3389/fpsyg.2013.00863/full",
        "doi:10.3389/fpsyg.2013.00863",
    ),
    _row(
        "IOPscience",
        _hosts("iopscience.iop.org"),
        rf"/article/{_DOI}{_PAGE_SUFFIX}",
        "https://iopscience.iop.org/article/10.1088/1361-6633/aab406/pdf",
        "doi:10.1088/1361-6633/aab406",
    ),
    _row(
        "APS journals",
        _hosts("journals.aps.org", "link.aps.org"),
        rf"/(?:[a-z]+/)?(?:abstract|pdf|doi)/{_DOI}/?",
        "https://journals.aps.org/prl/abstract/10.1103/PhysRevLett.116.061102",
        "doi:10.1103/physrevlett.116.061102",
    ),
    _row(
        "PLOS (query id=)",
        _hosts("journals.plos.org"),
        rf"{_DOI}",
        query="id",
        example="https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0185809",
        parses_to="doi:10.1371/journal.pone.0185809",
    ),
    # bioRxiv/medRxiv: 10.1101/<date>.<number> (or the old 6-digit number), then the version and a page suffix.
    _row(
        "bioRxiv / medRxiv",
        _hosts("www.biorxiv.org", "biorxiv.org", "www.medrxiv.org", "medrxiv.org"),
        r"/content/(?:early/\d{4}/\d{2}/\d{2}/)?(?P<id>10\.1101/(?:\d{4}\.\d{2}\.\d{2}\.)?\d{6,8})(?P<version>v\d+)?"
        r"(?:\.(?:full|abstract|full-text|supplementary-material|article-info|article-metrics)(?:\.pdf)?)?/?",
        "https://www.biorxiv.org/content/10.1101/2020.03.02.972935v2.full",
        "doi:10.1101/2020.03.02.972935 v2",
    ),
    _row(
        "Europe PMC (MED)",
        _hosts("europepmc.org", "www.europepmc.org"),
        r"/(?:article|abstract|api/fulltextRepo)"
        r"/MED/(?P<id>\d+)/?",
        "https://europepmc.org/article/MED/25489125",
        "pmid:25489125",
        written="pmid:{id}",
    ),
    _row(
        "Europe PMC (PMC)",
        _hosts("europepmc.org", "www.europepmc.org"),
        r"/(?:article/PMC/|articles/)(?P<id>PMC\d+)/?",
        "https://europepmc.org/article/PMC/PMC4287596",
        "pmcid:PMC4287596",
        written="pmcid:{id}",
    ),
    # ACL Anthology ids (2020.acl-main.1, P19-1001): Semantic Scholar looks them up as ACL:<id>; not every one has
    # a DOI (10.18653/v1/<id> only for events registered with Crossref), so the id itself is kept.
    _row(
        "ACL Anthology",
        _hosts("aclanthology.org", "www.aclanthology.org", "aclweb.org", "www.aclweb.org"),
        r"(?:/anthology)?/(?P<id>\d{4}\.[a-z0-9-]+\.\d+|[A-Z]\d{2}-\d{4})(?:\.pdf)?/?",
        "https://aclanthology.org/2020.acl-main.1/",
        "acl:2020.acl-main.1",
        written="acl:{id}",
    ),
)
# OpenReview (openreview.net/forum?id=…) has no row: its ids are no identifier any source we ask looks up, so such a
# link stays a URL (tests/unit/test_link_forms.py pins what get_paper answers for it).

_BY_HOST: dict[str, tuple[LinkForm, ...]] = {}
for _form in LINK_FORMS:
    for _host in _form.hosts:
        _BY_HOST[_host] = (*_BY_HOST.get(_host, ()), _form)


def identifier_in(url: str) -> LinkMatch | None:
    """The identifier a scholarly link carries in its path or query (rows in ``LINK_FORMS``), or None.

    Args:
        url: an http(s) URL as pasted; nothing is fetched.

    Returns:
        The written form for ``scholar.core.ids`` and the version (bioRxiv/medRxiv ``v2``), or None when no row
        of the URL's exact host reads it (the URL then stays a URL).
    """
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower()
    for form in _BY_HOST.get(host, ()):
        values = parse_qs(parts.query).get(form.query, []) if form.query else [unquote(parts.path)]
        for value in values:
            if found := form.pattern.fullmatch(value.strip()):
                version = found.groupdict().get("version")
                return LinkMatch(form.written.format(id=found.group("id")), version.lower() if version else None)
    return None

"""arXiv: the Atom query API (export.arxiv.org), HTML renders (arxiv.org/html, ar5iv) and PDFs (arxiv.org/pdf).

arXiv throttles in two ways: HTTP 429, and an HTTP 200 whose whole body is "Rate exceeded." (no Atom at
all). Both become ``RateLimitedError`` (reason ``rate_limited``) once the retry budget is spent, never
an empty result. A request arXiv refuses (HTTP 400, or an Atom feed holding an ``api/errors`` entry)
becomes ``InvalidArgumentError`` with reason ``invalid_request`` and arXiv's own explanation; a 404 is
``NotFoundError``. A refusal of our own pacer (``paced_past_deadline``: arXiv was never asked) passes through
as it is, never re-worded as a 429 arXiv did not send.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Literal

import httpx
from lxml import etree
from pydantic import BaseModel

from scholar.core.config import get_settings
from scholar.core.errors import InvalidArgumentError, RateLimitedError, ScholarError, UpstreamError
from scholar.core.ids import parse_arxiv_id
from scholar.core.urlpath import segments
from scholar.sources import http

API = "arxiv_api"
SITE = "arxiv"
AR5IV = "ar5iv"
QUERY_PATH = "/api/query"

_NS = {
    "atom": "http://www.w3.org/2005/Atom",
    "arxiv": "http://arxiv.org/schemas/atom",
    "os": "http://a9.com/-/spec/opensearch/1.1/",
}
_RATE_EXCEEDED = b"Rate exceeded"
_RATE_ATTEMPTS = 3
_LATEXML_MARKERS = (b"ltx_document", b"ltx_page_main")
_RATE_HINT = "arXiv allows one request every 3 seconds; wait a little and call again."
_FEED_TAG = "{http://www.w3.org/2005/Atom}feed"
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)


class Entry(BaseModel):
    """One Atom entry as arXiv sent it (whitespace collapsed, nothing else changed)."""

    id: str  # versioned: "2104.12255v1", "hep-th/9901001v2"
    base_id: str
    version: str | None
    title: str
    authors: list[str]
    summary: str
    primary_category: str
    categories: list[str]
    published: str
    updated: str
    comment: str | None = None
    journal_ref: str | None = None
    doi: str | None = None
    pdf_url: str
    abstract_url: str


class Feed(BaseModel):
    total: int
    start: int
    entries: list[Entry]


class Render(BaseModel):
    """An HTML render of a paper and which service produced it."""

    source: Literal["arxiv_html", "ar5iv"]
    html: str


def _text(node: Any, path: str) -> str | None:
    found = node.find(path, _NS)
    if found is None or found.text is None:
        return None
    text = " ".join(found.text.split())
    return text or None


def _entry(node: Any) -> Entry | None:
    raw_id = (_text(node, "atom:id") or "").rsplit("/abs/", 1)[-1]
    try:
        base_id, version = parse_arxiv_id(raw_id)
    except InvalidArgumentError:
        return None
    links = {link.get("title") or link.get("rel"): link.get("href") for link in node.findall("atom:link", _NS)}
    categories = [c.get("term") for c in node.findall("atom:category", _NS) if c.get("term")]
    primary = node.find("arxiv:primary_category", _NS)
    versioned = f"{base_id}{version or ''}"
    return Entry(
        id=versioned,
        base_id=base_id,
        version=version,
        title=_text(node, "atom:title") or "",
        authors=[a for a in (_text(x, "atom:name") for x in node.findall("atom:author", _NS)) if a],
        summary=_text(node, "atom:summary") or "",
        primary_category=(primary.get("term") if primary is not None else None) or (categories or [""])[0],
        categories=categories,
        published=_text(node, "atom:published") or "",
        updated=_text(node, "atom:updated") or "",
        comment=_text(node, "arxiv:comment"),
        journal_ref=_text(node, "arxiv:journal_ref"),
        doi=_text(node, "arxiv:doi"),
        pdf_url=links.get("pdf") or f"https://arxiv.org/pdf/{versioned}",
        abstract_url=links.get("alternate") or f"https://arxiv.org/abs/{versioned}",
    )


def _api_error(root: Any) -> str | None:
    """arXiv's explanation when the feed is an error report (an entry whose id points at api/errors)."""
    for node in root.findall("atom:entry", _NS):
        if "/api/errors" in (_text(node, "atom:id") or ""):
            return _text(node, "atom:summary") or "arXiv rejected the request"
    return None


def _not_atom() -> UpstreamError:
    return UpstreamError("arXiv answered with something that is not an Atom feed", source=API)


def parse_feed(body: bytes, *, field: str = "query") -> Feed:
    """Parse an Atom feed of the query API.

    Raises:
        InvalidArgumentError: reason ``invalid_request``: the feed is arXiv's error report.
        UpstreamError: the body is not an Atom feed.
    """
    try:
        root = etree.fromstring(body, _PARSER)
    except etree.XMLSyntaxError as exc:
        raise _not_atom() from exc
    # Well-formed XML is not enough: an XHTML error or maintenance page parses too, and read as a feed it
    # would be "no papers" (and cached as such). Only an Atom <feed> that states its total is an answer.
    if root.tag != _FEED_TAG or root.find("os:totalResults", _NS) is None:
        raise _not_atom()
    if (problem := _api_error(root)) is not None:
        raise InvalidArgumentError(
            f"arXiv rejected the request: {problem}",
            field=field,
            source=API,
            reason="invalid_request",
            hint="Check the identifier or query syntax arXiv names in the message.",
        )
    total = int(_text(root, "os:totalResults") or 0)
    start = int(_text(root, "os:startIndex") or 0)
    entries = [e for e in (_entry(n) for n in root.findall("atom:entry", _NS)) if e is not None]
    return Feed(total=total, start=start, entries=entries)


def _rate_limited(message: str, status: int, retry_after_s: float | None) -> RateLimitedError:
    return RateLimitedError(
        message, source=API, status=status, retry_after_s=retry_after_s, reason="rate_limited", hint=_RATE_HINT
    )


async def _get_api(params: dict[str, Any]) -> httpx.Response:
    """GET the query API, treating a 200 "Rate exceeded." body like a 429 (retried while the budget lasts)."""
    settings = get_settings()
    deadline = time.monotonic() + settings.retry_budget_s
    for attempt in range(1, _RATE_ATTEMPTS + 1):
        try:
            response = await http.request(
                API, "GET", QUERY_PATH, params=params, budget_s=max(0.0, deadline - time.monotonic())
            )
        except RateLimitedError as exc:
            if exc.status != 429:
                raise  # our own pacer's refusal (paced_past_deadline): arXiv was not asked, so it sent no 429
            raise _rate_limited("arXiv is rate limiting us (HTTP 429)", 429, exc.retry_after_s) from exc
        if not response.content.lstrip().startswith(_RATE_EXCEEDED):
            return response
        wait = http.interval_for(API) * attempt
        if attempt == _RATE_ATTEMPTS or time.monotonic() + wait > deadline:
            break
        await asyncio.sleep(wait)
    raise _rate_limited('arXiv is rate limiting us (HTTP 200 "Rate exceeded.")', 200, http.interval_for(API) or None)


async def query(params: dict[str, Any], *, field: str = "query") -> Feed:
    """Run one request against the query API and parse the feed.

    Args:
        params: search_query / id_list, start, max_results, sortBy, sortOrder.
        field: the tool argument to blame when arXiv rejects the request.

    Raises:
        RateLimitedError: reason ``rate_limited`` after the retry budget.
        NotFoundError: HTTP 404 (arXiv has no such paper).
        InvalidArgumentError: reason ``invalid_request`` (HTTP 4xx other than 404 and 429, or an error feed).
        UpstreamError: 5xx after the budget, or a body that is not Atom.
    """
    response = await _get_api(params)
    if response.status_code == 404:
        http.raise_for_status(API, response, what="such paper")  # not_found: not the caller's syntax
    if 400 <= response.status_code < 500:
        try:
            parse_feed(response.content, field=field)
        except InvalidArgumentError as exc:
            exc.status = response.status_code
            raise
        except UpstreamError:
            pass  # not an Atom error report: the generic refusal below says what came back
        raise InvalidArgumentError(
            f"arXiv rejected the request (HTTP {response.status_code}): {http.excerpt(response)}",
            field=field,
            source=API,
            status=response.status_code,
            reason="invalid_request",
        )
    http.raise_for_status(API, response, what="query")
    return parse_feed(response.content, field=field)


def _is_latexml(response: httpx.Response) -> bool:
    """True for a LaTeXML page (not an abstract page a redirect landed on, nor a "no HTML" notice)."""
    return response.status_code == 200 and any(m in response.content for m in _LATEXML_MARKERS)


async def fetch_render(versioned_id: str, base_id: str) -> tuple[Render | None, ScholarError | None]:
    """The paper's HTML render: arxiv.org/html first, then ar5iv.

    Returns:
        ``(render, failure)``: the first render found (None when neither service has one), and the error of
        a service that failed instead of answering (None when both answered), so that a caller can tell
        "no render exists" from "a render could not be fetched".
    """
    attempts: tuple[tuple[str, str, Literal["arxiv_html", "ar5iv"]], ...] = (
        (SITE, f"/html/{segments(versioned_id)}", "arxiv_html"),
        (AR5IV, f"/html/{segments(base_id)}", "ar5iv"),
    )
    failure: ScholarError | None = None
    for source, path, label in attempts:
        try:
            response = await http.request(source, "GET", path)
            if response.status_code == 404 or (response.status_code < 400 and response.history
                                               and not _is_latexml(response)):
                continue  # none, or a redirect to a page that is not a render (the abstract page)
            http.raise_for_status(source, response, what=f"HTML render of {versioned_id}")
            if not _is_latexml(response):  # answered at the render's address, but not a render: an error page
                raise UpstreamError(f"{source} answered the HTML render of {versioned_id} with a page that is "
                                    "not a render", source=source, status=response.status_code)
        except (RateLimitedError, UpstreamError) as exc:
            failure = failure or exc
            continue
        return Render(source=label, html=response.text), failure
    return None, failure


async def fetch_pdf(versioned_id: str) -> bytes | None:
    """The paper's PDF bytes from arxiv.org/pdf, or None when arXiv serves no PDF.

    Raises:
        RateLimitedError / UpstreamError: arXiv failed.
    """
    response = await http.request(SITE, "GET", f"/pdf/{segments(versioned_id)}")
    if response.status_code == 404:
        return None
    http.raise_for_status(SITE, response, what=f"PDF of {versioned_id}")
    return response.content if response.content.lstrip().startswith(b"%PDF") else None

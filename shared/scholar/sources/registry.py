"""Every upstream we call: its name, public base URL (scheme + host only) and published pace.

The code appends the full public path to the base URL, so a proxy base (DESIGN §6) serves
``<proxy>/<name>/<public path>``. ``interval_s`` is the minimum spacing between two requests to the
source across all Lambda instances (scholar.store.limiter enforces it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from scholar.core.config import Settings, get_settings

# What a source can do for a federated search (scholar.families.research); a new source adds no MCP tool.
Capability = Literal["search", "lookup", "batch_lookup", "references", "citations", "recommendations", "pdf_links"]
Matching = Literal["semantic", "keyword"]


@dataclass(frozen=True)
class Source:
    name: str
    default_base: str | None
    interval_s: float
    # Spacing when we hold the source's API key (None: the same as without).
    keyed_interval_s: float | None = None
    key_setting: str | None = None
    # Requests a single call may have in flight to this source.
    concurrency: int = 4
    capabilities: frozenset[Capability] = frozenset()
    # How its search matches: "semantic" sources get the question as written, "keyword" ones compact terms.
    matching: Matching | None = None
    # Keyword sources: the most query terms that still find hits (more words, fewer matches).
    term_limit: int | None = None
    # The most results one search request returns, and how long a federated search waits for the source before
    # choosing its seeds without it (a late source still joins the final ranking if it answers before the
    # search's deadline: scholar.families.research.search.federated.ANSWER_S).
    page_limit: int | None = None
    search_budget_s: float = 0.8

    def can(self, capability: Capability) -> bool:
        return capability in self.capabilities


def _sources(*items: Source) -> dict[str, Source]:
    return {s.name: s for s in items}


SOURCES: dict[str, Source] = _sources(
    # S2's published limits (semanticscholar.org/product/api): with a key, an introductory 1 request/s across
    # all endpoints; without one, a pool shared by every unauthenticated caller (1,000 requests/s in total),
    # which throttles with 429 under load. Pace both at 1 request/s: the keyed rate, and no more than a polite
    # share of the pool; 429s from the pool are retried with Retry-After (scholar.sources.http) or queued.
    Source("s2", "https://api.semanticscholar.org", 1.0, keyed_interval_s=1.0, key_setting="s2_api_key",
           capabilities=frozenset({"search", "lookup", "batch_lookup", "references", "citations", "recommendations",
                                   "pdf_links"}), matching="semantic", page_limit=100),
    # OpenAlex: 10 requests/s (polite pool with mailto).
    Source("openalex", "https://api.openalex.org", 0.1,
           capabilities=frozenset({"search", "lookup", "batch_lookup", "references", "citations", "pdf_links"}),
           matching="keyword", term_limit=8, page_limit=200),
    # Crossref polite pool: 10 requests/s, keep it gentler.
    Source("crossref", "https://api.crossref.org", 0.1,
           capabilities=frozenset({"search", "lookup", "references"}), matching="keyword", term_limit=10,
           page_limit=1000),
    Source("unpaywall", "https://api.unpaywall.org", 0.1),
    Source("europepmc", "https://www.ebi.ac.uk", 0.1,
           capabilities=frozenset({"search", "lookup", "batch_lookup", "references", "citations", "pdf_links"}),
           matching="keyword", term_limit=6, page_limit=1000),
    # arXiv API terms: one request every 3 seconds.
    Source("arxiv_api", "https://export.arxiv.org", 3.0, concurrency=1,
           capabilities=frozenset({"search", "lookup", "batch_lookup", "pdf_links"}), matching="keyword",
           term_limit=6, page_limit=2000),
    Source("arxiv", "https://arxiv.org", 1.0),
    Source("ar5iv", "https://ar5iv.labs.arxiv.org", 1.0),
    Source("inspire", "https://inspirehep.net", 0.35,
           capabilities=frozenset({"search", "lookup", "references", "citations"}), matching="keyword",
           term_limit=6, page_limit=1000),
    # Open Library asks for a gentle pace and an identifying User-Agent.
    Source("openlibrary", "https://openlibrary.org", 1.0),
    Source("covers", "https://covers.openlibrary.org", 1.0),
    Source("google_books", "https://www.googleapis.com", 0.2),
    Source("epo_ops", "https://ops.epo.org", 0.5),
    Source("ietf", "https://datatracker.ietf.org", 0.5),
    Source("rfc_editor", "https://www.rfc-editor.org", 0.5),
    Source("nist", "https://csrc.nist.gov", 0.5),
    Source("nvlpubs", "https://nvlpubs.nist.gov", 0.5),
    Source("w3c", "https://api.w3.org", 0.2),
    Source("w3c_www", "https://www.w3.org", 0.2),
    Source("etsi", "https://www.etsi.org", 1.0),
    Source("relaton", "https://raw.githubusercontent.com", 0.1),
    Source("github_api", "https://api.github.com", 1.0),
    Source("docling", None, 0.0),
    # Zotero's web API asks for no fixed pace (it throttles with 429 + Retry-After and slows clients with a
    # Backoff header, both honoured by scholar.sources.zotero); uploads go to its file storage host; the
    # desktop's local API answers on loopback only.
    Source("zotero", "https://api.zotero.org", 0.0, concurrency=1),
    Source("zotero_storage", "https://zoterofilestorage.s3.amazonaws.com", 0.0, concurrency=1),
    Source("zotero_local", "http://127.0.0.1:23119", 0.0, concurrency=1),
    # Notion's published limit: an average of three requests per second per integration (bursts allowed), 429
    # with Retry-After beyond it (scholar.sources.retry waits it out); one request at a time.
    Source("notion", "https://api.notion.com", 0.34, concurrency=1),
    # An optional rerank service (SCHOLAR_RERANK_URL; no public default): the common /rerank request shape.
    Source("rerank", None, 0.0),
)


def searchable() -> tuple[Source, ...]:
    """The sources a federated search asks, in registry order."""
    return tuple(s for s in SOURCES.values() if s.can("search"))


def base_url(source: str, settings: Settings | None = None) -> str:
    """Base URL of an upstream: ``SCHOLAR_<NAME>_URL``, else the proxy base + ``/<name>``, else the public one.

    Raises:
        KeyError: for a source that is not in the registry, or one without a public default and no setting.
    """
    settings = settings or get_settings()
    entry = SOURCES[source]
    if source in settings.source_urls:
        return settings.source_urls[source].rstrip("/")
    if settings.upstream_proxy_base:
        return f"{settings.upstream_proxy_base.rstrip('/')}/{source}"
    if entry.default_base is None:
        raise KeyError(f"source {source!r} has no public default; set SCHOLAR_{source.upper()}_URL")
    return entry.default_base

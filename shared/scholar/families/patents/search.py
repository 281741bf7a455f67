"""search_patents: the caller's fields as EPO CQL, sent to ``published-data/search/biblio`` with a Range.

Every value goes into CQL as one quoted term with ``\\`` and ``"`` escaped, so a caller's quotes, brackets
and boolean words (AND, OR, NOT, PROX) are text, never operators. In ``query`` a phrase in double quotes
stays a phrase (``ta="solid state"``); the remaining words must all occur (``ta all "lithium anode"``).
OPS pages 1-100 documents per request and reaches the first 2,000 hits of a query; a page past that is an
``invalid_argument`` saying how to narrow the search. A 404 from the search means no hits.
"""

from __future__ import annotations

import re

from scholar.core.catalogue import MAX_RESULT_CHARS
from scholar.core.errors import InvalidArgumentError, NotFoundError, UpstreamError
from scholar.core.records import PatentRecord
from scholar.families.patents.models import SearchPatentsResult
from scholar.families.patents.spec import MAX_REACHABLE, SearchPatentsInput
from scholar.sources import epo_ops, epo_ops_biblio
from scholar.store.cache import Cache

SEARCH_PATH = epo_ops.path("published-data", "search", "biblio")
DATE_FIELDS = {"publication": "pd", "filing": "ad", "priority": "prd"}
OPS_COUNT_CAP = 10_000
ABSTRACT_SHORT_CHARS = 200
LEAN_PARTIES, LEAN_CLASSES = 3, 5
_CPC = re.compile(r"^[A-HY]\d{2}[A-Z](?:\d{1,4}(?:/\d{1,6})?)?$")
_PHRASE = re.compile(r'"([^"]*)"')


def quote_term(value: str) -> str:
    """One CQL term in double quotes; backslashes and quotes inside are escaped."""
    cleaned = " ".join(value.split())
    return '"' + cleaned.replace("\\", "\\\\").replace('"', '\\"') + '"'


def keyword_clauses(query: str) -> list[str]:
    """``query`` as title/abstract clauses: each quoted phrase, then all other words."""
    clauses = [f"ta={quote_term(p)}" for p in _PHRASE.findall(query) if p.strip()]
    rest = _PHRASE.sub(" ", query).replace('"', " ")
    words = rest.split()
    if words:
        clauses.append(f"ta all {quote_term(' '.join(words))}")
    return clauses


def _compact_date(value: str) -> str:
    return value.replace("-", "")


def build_cql(args: SearchPatentsInput) -> str:
    """The CQL for a search.

    Raises:
        InvalidArgumentError: a malformed CPC code, or date_from after date_to.
    """
    clauses: list[str] = []
    if args.query and args.query.strip():
        clauses += keyword_clauses(args.query)
    if args.applicant:
        clauses.append(f"pa={quote_term(args.applicant)}")
    if args.inventor:
        clauses.append(f"in={quote_term(args.inventor)}")
    if args.cpc_classification:
        code = re.sub(r"\s+", "", args.cpc_classification).upper()
        if not _CPC.match(code):
            raise InvalidArgumentError(
                f"cpc_classification {args.cpc_classification!r} is not a CPC code (section letter, two digits, "
                "a class letter, optionally group/subgroup, e.g. H01M or H01M10/0525)",
                field="cpc_classification",
            )
        clauses.append(f"cpc={quote_term(code)}")
    field = DATE_FIELDS[args.date_type]
    if args.date_from and args.date_to:
        if args.date_from > args.date_to:
            raise InvalidArgumentError("date_from must not be after date_to", field="date_from")
        clauses.append(f'{field} within "{_compact_date(args.date_from)} {_compact_date(args.date_to)}"')
    elif args.date_from:
        clauses.append(f"{field}>={_compact_date(args.date_from)}")
    elif args.date_to:
        clauses.append(f"{field}<={_compact_date(args.date_to)}")
    if args.jurisdiction:
        clauses.append(f"pn={args.jurisdiction.upper()}")
    if not clauses:
        raise InvalidArgumentError("the search has no terms: give query or a filter", field="query")
    return " and ".join(clauses)


def page_range(offset: int, limit: int) -> str:
    """OPS ``Range`` (1-based, inclusive) for a page.

    Raises:
        InvalidArgumentError: the page ends past the 2,000 hits OPS lets a query reach.
    """
    end = offset + limit
    if end > MAX_REACHABLE:
        raise InvalidArgumentError(
            f"EPO OPS returns only the first {MAX_REACHABLE} hits of a search; offset + limit = {end}",
            field="offset",
            hint="Narrow the search instead of paging further: add a date range (date_from/date_to), a "
            "jurisdiction, a CPC class or an applicant.",
        )
    return f"{offset + 1}-{end}"


async def search_patents(args: SearchPatentsInput) -> SearchPatentsResult:
    """Run one page of a patent search.

    Raises:
        InvalidArgumentError: bad filters, a page past 2,000, or CQL OPS rejects.
        RateLimitedError, UnavailableError, UpstreamError: OPS failed.
    """
    cql = build_cql(args)
    rng = page_range(args.offset, args.limit)
    cache = Cache()
    key = f"patents:{rng}:{cql}"
    held = await cache.aget("search", key)
    if isinstance(held, dict):
        return SearchPatentsResult.model_validate(held)
    try:
        response = await epo_ops.call("GET", SEARCH_PATH, service="search", what="search results",
                                      params={"q": cql, "Range": rng})
    except NotFoundError:
        result = SearchPatentsResult(total_count=0, offset=args.offset, limit=args.limit, references=[],
                                     effective_query=cql)
        await cache.aput("search", key, result.model_dump(mode="json"))
        return result
    except UpstreamError as err:
        if err.status in (400, 413):
            raise InvalidArgumentError(f"EPO OPS rejected the search ({err.message})", field="query",
                                       hint="Simplify the query; the CQL sent is the effective_query.") from err
        raise
    result = fit(parse_search(response.content, args.offset, args.limit, cql))
    await cache.aput("search", key, result.model_dump(mode="json"))
    return result


def _lean(record: PatentRecord) -> PatentRecord:
    """A list record: first parties and classes only, no IPC (get_patent has the full record)."""
    return record.model_copy(update={"applicants": record.applicants[:LEAN_PARTIES],
                                     "inventors": record.inventors[:LEAN_PARTIES],
                                     "classifications": record.classifications[:LEAN_CLASSES], "ipc": []})


def fit(result: SearchPatentsResult) -> SearchPatentsResult:
    """Shorten abstracts, drop them, lean the records, then end the page early, until it fits the size budget.

    Every step is stated: ``abstracts_shortened``, and an earlier ``next_offset`` when hits were left for the
    next page.
    """
    def size(page: SearchPatentsResult) -> int:
        return len(page.model_dump_json())

    for cap in (ABSTRACT_SHORT_CHARS, 0):
        if size(result) <= MAX_RESULT_CHARS:
            return result
        records = [r.model_copy(update={"abstract": (r.abstract[:cap].rsplit(" ", 1)[0] + " …") if cap else None,
                                        "abstract_truncated": True})
                   if r.abstract and len(r.abstract) > cap else r for r in result.references]
        result = result.model_copy(update={"references": records, "abstracts_shortened": True})
    if size(result) > MAX_RESULT_CHARS:
        result = result.model_copy(update={"references": [_lean(r) for r in result.references]})
    while size(result) > MAX_RESULT_CHARS and len(result.references) > 1:
        kept = result.references[: len(result.references) * 3 // 4]
        result = result.model_copy(update={"references": kept, "next_offset": result.offset + len(kept)})
    return result


def parse_search(body: bytes, offset: int, limit: int, cql: str) -> SearchPatentsResult:
    """A ``biblio-search`` answer as one result page."""
    root = epo_ops_biblio.parse_xml(body, what="the search")
    found = root.xpath("//ops:biblio-search", namespaces=epo_ops_biblio.NS)
    total = int(found[0].get("total-result-count") or 0) if found else 0
    records = [epo_ops_biblio.to_record(d, compact=True) for d in epo_ops_biblio.exchange_documents(root)]
    end = offset + len(records)
    more = end < min(total, MAX_REACHABLE) and len(records) == limit
    return SearchPatentsResult(
        total_count=total,
        total_count_is_capped=total >= OPS_COUNT_CAP,
        offset=offset,
        limit=limit,
        references=records,
        next_offset=end if more else None,
        effective_query=cql,
    )

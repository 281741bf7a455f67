"""batch_resolve: up to 100 mixed identifiers, each with its own status, in as few requests as the APIs allow.

Papers go through scholar.families.papers.resolve (S2 batch → OpenAlex OR-filter → Crossref), ISBNs to Open
Library (a few at a time), patent numbers to EPO OPS bulk biblio (100 numbers a request; ``unavailable``
while no EPO credentials are configured).
An S2 hex id is never taken for a patent number (scholar.core.ids tests hex first).
"""

from __future__ import annotations

import asyncio
from collections import Counter

from scholar.core.budget import RESERVE, json_chars, shorten_for_list
from scholar.core.errors import InvalidArgumentError, ScholarError
from scholar.core.id_forms import wrong_form
from scholar.core.ids import PAPER_KINDS, InvalidIdError, PaperId, parse_paper_id, reads_as_reference
from scholar.core.patent_numbers import PatentNumber, parse_patent_number
from scholar.core.records import FailedSource
from scholar.families.papers import autoenrich
from scholar.families.papers.budget import MAX_RESULT_CHARS, failed
from scholar.families.papers.chapters import split_citation
from scholar.families.papers.fields import FIELDS
from scholar.families.papers.resolve import resolve_papers
from scholar.families.papers.spec_export import BatchResolveInput, BatchResolveResult, ResolvedItem
from scholar.services.paper_lookup import match_many, outcome_pid
from scholar.sources import epo_ops_auth, epo_ops_biblio
from scholar.sources.epo_ops_numbers import standardise
from scholar.store.cache import Cache

CONCURRENCY = 5
LEFT_OUT = "details left out to keep the answer under the size budget; resolve this identifier alone"


def _parse(raw: str) -> tuple[PaperId | None, ResolvedItem]:
    ident, chapter = split_citation(raw)
    item = ResolvedItem(input=raw, status="ok", chapter_info=chapter)
    try:
        pid = parse_paper_id(ident)
    except InvalidIdError as exc:
        if reads_as_reference(ident):  # a title or citation: matched first (_match)
            return None, item.model_copy(update={"source_type": "paper", "status": "not_found"})
        return None, item.model_copy(update={"status": "invalid_id", "error": exc.message})
    if pid.kind not in PAPER_KINDS and pid.kind not in ("isbn", "patent"):
        refusal = wrong_form(ident, pid.kind, tool="batch_resolve", field="identifiers",
                             takes="paper identifiers, ISBNs and patent numbers")
        return None, item.model_copy(update={"status": "invalid_id", "error": refusal.message})
    kinds = {"isbn": "book", "patent": "patent"}
    return pid, item.model_copy(update={"source_type": kinds.get(pid.kind, "paper")})


async def _books(items: dict[int, tuple[PaperId, ResolvedItem]], cache: Cache) -> list[FailedSource]:
    gate = asyncio.Semaphore(CONCURRENCY)
    failures: dict[str, FailedSource] = {}

    async def one(index: int, pid: PaperId, item: ResolvedItem) -> None:
        async with gate:
            try:
                meta = await autoenrich.book_metadata(pid.value, cache)
            except ScholarError as err:
                failures.setdefault(err.code, failed(err, "openlibrary"))
                status = "rate_limited" if err.code == "rate_limited" else "upstream_error"
                items[index] = (pid, item.model_copy(update={"status": status, "error": err.message}))
                return
        update = {"book": meta, "source": "openlibrary"} if meta else {
            "status": "not_found", "error": f"Open Library has no edition with ISBN {pid.value}"}
        items[index] = (pid, item.model_copy(update=update))

    await asyncio.gather(*(one(i, p, it) for i, (p, it) in list(items.items())))
    return list(failures.values())


async def _patents(items: dict[int, tuple[PaperId, ResolvedItem]]) -> list[FailedSource]:
    """Every patent number in OPS bulk biblio requests; each item gets its own status."""
    if not epo_ops_auth.configured():
        for index, (pid, item) in items.items():
            why = f"patent {pid.value}: patents need EPO OPS credentials (not configured)"
            items[index] = (pid, item.model_copy(update={"status": "unavailable", "error": why}))
        return []
    numbers: dict[int, PatentNumber] = {}
    for index, (pid, item) in items.items():
        try:
            numbers[index] = await standardise(parse_patent_number(pid.value))
        except InvalidArgumentError as exc:
            items[index] = (pid, item.model_copy(update={"status": "invalid_id", "error": exc.message}))
        except ScholarError as err:
            items[index] = (pid, item.model_copy(update={"status": _status(err), "error": err.message}))
    try:
        found = await epo_ops_biblio.bulk_biblio(numbers.values()) if numbers else {}
    except ScholarError as err:
        for index in numbers:
            pid, item = items[index]
            items[index] = (pid, item.model_copy(update={"status": _status(err), "error": err.message}))
        return [failed(err, "epo_ops")]
    for index, number in numbers.items():
        pid, item = items[index]
        record = found.get(number.compact)
        update = {"patent": record, "source": "epo_ops"} if record else {
            "status": "not_found", "error": f"EPO OPS has no publication {number.docdb}"}
        items[index] = (pid, item.model_copy(update=update))
    return []


def _status(err: ScholarError) -> str:
    return "rate_limited" if err.code == "rate_limited" else "upstream_error"


async def _match(parsed: list[tuple[PaperId | None, ResolvedItem]]) -> list[FailedSource]:
    """The titles and citations among the items, matched: a match becomes the item's identifier (resolved with the
    others), else the item says ambiguous (with candidates), not_found (naming the sources asked) or the failure."""
    texts = {i: split_citation(item.input)[0] for i, (pid, item) in enumerate(parsed)
             if pid is None and item.source_type == "paper"}
    outcomes = await match_many(texts)
    failures: dict[tuple[str, str], FailedSource] = {}
    for index, outcome in outcomes.items():
        item = parsed[index][1]
        found = outcome_pid(texts[index], outcome)
        for failure in outcome.failed_sources:
            failures.setdefault((failure.source, failure.code), failure)
        if isinstance(found, PaperId):
            update: dict[str, object] = {"matched_by": outcome.matched_by, "confidence": outcome.confidence}
            parsed[index] = (found, item.model_copy(update=update))
            continue
        status = "ambiguous" if outcome.status == "ambiguous" else (
            _status(found) if outcome.failed_sources else "not_found")
        parsed[index] = (None, item.model_copy(update={"status": status, "error": found.message,
                                                       "candidates": outcome.candidates or None}))
    return list(failures.values())


async def batch_resolve(args: BatchResolveInput, cache: Cache | None = None) -> BatchResolveResult:
    """Resolve every identifier; never raises for one item's failure."""
    cache = cache or Cache()
    parsed = [_parse(raw) for raw in args.identifiers]
    matching_failures = await _match(parsed)
    items = [item for _, item in parsed]
    papers = {str(i): pid for i, (pid, _) in enumerate(parsed) if pid and pid.kind not in ("isbn", "patent")}
    books = {i: (pid, item) for i, (pid, item) in enumerate(parsed) if pid and pid.kind == "isbn"}
    patents = {i: (pid, item) for i, (pid, item) in enumerate(parsed) if pid and pid.kind == "patent"}
    fields = FIELDS[args.fields]
    resolved, failures = await resolve_papers(papers, fields)
    failures += matching_failures
    failures += await _books(books, cache)
    failures += await _patents(patents)
    for key, outcome in resolved.items():
        paper = outcome.paper
        if paper is not None and args.fields != "full":
            paper = shorten_for_list(paper)
        items[int(key)] = parsed[int(key)][1].model_copy(
            update={"status": outcome.status, "paper": paper, "source": outcome.source, "error": outcome.error}
        )
    for index, (_, item) in (books | patents).items():
        items[index] = item
    items, truncated = _fit(items)
    counts = dict(Counter(item.status for item in items))
    return BatchResolveResult(
        items=items, counts=counts, partial=bool(failures), failed_sources=failures, truncated=truncated
    )


def _fit(items: list[ResolvedItem]) -> tuple[list[ResolvedItem], bool]:
    """The items within the size budget: when they pass it, abstracts and book descriptions are dropped and author
    lists shortened; then each item counts as its stub (input, status and why its details are left out) and, in
    order, every item whose whole form still fits takes its stub's place. A record is left out only when it no
    longer fits; the stubs of 100 inputs of the longest length fit the budget, so no answer is refused."""
    if sum(json_chars(i) + 1 for i in items) <= MAX_RESULT_CHARS - RESERVE:
        return items, False

    def shorter(item: ResolvedItem) -> ResolvedItem:
        paper, book = item.paper, item.book
        if paper is not None:
            paper = shorten_for_list(paper.model_copy(update={"abstract": None, "abstractTruncated": True})
                                     if paper.abstract else paper)
        if book:
            book = {k: v for k, v in book.items() if k not in ("description", "subjects")}
        return item.model_copy(update={"paper": paper, "book": book})

    whole = [shorter(i) for i in items]
    stubs = [ResolvedItem(input=i.input, status=i.status, source_type=i.source_type, source=i.source, error=LEFT_OUT)
             for i in items]
    used = sum(json_chars(s) + 1 for s in stubs)
    fitted = []
    for item, stub in zip(whole, stubs, strict=True):
        more = json_chars(item) - json_chars(stub)
        if used + more <= MAX_RESULT_CHARS - RESERVE:
            used += more
            fitted.append(item)
        else:
            fitted.append(stub)
    return fitted, True

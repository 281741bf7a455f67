"""Importing a reference list a user has (BibTeX, RIS, CSL-JSON) into their library: each entry matched or kept.

Each entry (scholar.services.cite.references.Reference) goes one way:

    DOI, else arXiv id, else PMID in it   → S2's batch of them all (3 or more), else the paper lookup   matched
    (or a link that names a paper)          (``resolve``), one by one
    no identifier                         → ``match_without_identifier``: the checked bibliographic match
                                            of its title, first author, year (paper_lookup.match)     matched
    no record (not found, no identifier)  → kept as written, tagged ``unmatched``                     unmatched
    a source failed, or the call's time ran out → kept as written, tagged ``unmatched``               failed

No entry is dropped. An entry's item id is its identifier's (``doi:…``) whether it matched or not, so importing
again after a failure replaces the kept-as-written item by the record (and drops the tag); an entry with no
identifier gets an id from its title, first author and year, so importing twice is one item. Items already in
the library are otherwise left as they are (skipped). The library's room is checked before anything is written.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import anyio

from scholar.core.config import get_settings
from scholar.core.errors import NotFoundError, ScholarError, TooLargeError, UnavailableError, UpstreamError
from scholar.core.ids import (
    PAPER_KINDS,
    S2_KINDS,
    InvalidIdError,
    PaperId,
    parse_paper_id,
    record_keys,
    written_ids,
)
from scholar.core.paper_mapping import S2_RECORD_FIELDS, from_s2
from scholar.core.records import Paper
from scholar.services.cite.references import Reference, paper_of
from scholar.services.library.keep import identity_of
from scholar.services.paper_lookup import resolve
from scholar.services.paper_lookup.match import match_reference
from scholar.sources import s2
from scholar.store.library.models import LibraryItem, item_id_for
from scholar.store.library.table import ItemExistsError, LibraryStore, now_iso
from scholar.store.limiter import call_deadline

__all__ = ["MATCH_TAG", "EntryOutcome", "ImportReport", "import_references", "match_without_identifier"]

MATCH_TAG = "unmatched"
CONCURRENCY = 4
# From this many identifiers on, Semantic Scholar is asked for them all at once (500 a request) before one by one.
BATCH_FROM = 3
_ATTEMPTS = 3
# Time kept back from the call's deadline for writing the items and answering; entries not looked up by then fail.
WRITE_MARGIN_S = 5.0

Status = Literal["matched", "unmatched", "failed"]


@dataclass
class EntryOutcome:
    """What became of one entry: matched, kept as written (unmatched), or kept after a failed lookup."""

    index: int
    key: str | None
    title: str | None
    status: Status
    item_id: str = ""
    written: Literal["added", "updated", "skipped"] = "skipped"
    message: str | None = None


@dataclass
class ImportReport:
    outcomes: list[EntryOutcome] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(o.status == status or o.written == status for o in self.outcomes)


async def match_without_identifier(entry: Reference) -> tuple[Paper | None, str]:
    """The record an entry without any identifier names, by the checked bibliographic match (its title, first
    author, year and venue: ``scholar.services.paper_lookup.match``), and what was found when none matched.

    Only a ``matched`` outcome counts: an ambiguous or unmatched entry is kept as written.

    Raises:
        UpstreamError: a source the match needed failed (the entry is counted failed: importing again completes it).
    """
    if not (entry.title or "").strip():
        return None, "no identifier (DOI, arXiv id, PMID) and no title in the entry"
    outcome = await match_reference(title=entry.title, authors=entry.authors, year=entry.year, venue=entry.venue)
    if outcome.status == "matched" and outcome.paper is not None:
        return outcome.paper, ""
    if outcome.failed_sources:
        names = ", ".join(f.source for f in outcome.failed_sources)
        raise UpstreamError(f"the title match could not ask {names}", source=outcome.failed_sources[0].source)
    if outcome.status == "ambiguous":
        return None, f"no identifier; the title matches {len(outcome.candidates)} records (ambiguous): kept as written"
    return None, f"no identifier; no record passes the title check ({', '.join(outcome.tried)} asked)"


def _identifier(entry: Reference) -> PaperId | None:
    for written in entry.identifiers():
        try:
            found = parse_paper_id(written)
        except InvalidIdError:
            continue  # a garbled DOI in the file: try its next identifier
        if found.kind in PAPER_KINDS:
            return found
    return None


def _own_id(entry: Reference, asked: PaperId | None) -> str:
    """The item id of an entry kept as written: its identifier's, else one of its title, first author and year."""
    if asked is not None:
        return item_id_for(asked.cache_key())
    facts = "|".join(
        " ".join((x or "").lower().split()) for x in (entry.title, (entry.authors or [""])[0], str(entry.year or ""))
    )
    return item_id_for("reference:" + hashlib.sha256(facts.encode()).hexdigest())


def _matched_id(paper: Paper, asked: PaperId | None, entry: Reference) -> str:
    """The item id of a matched entry: the record's identity (DOI, arXiv id, S2 id), else the entry's own."""
    fallback = asked or PaperId(kind="url", value=_own_id(entry, None))
    return item_id_for(identity_of(paper, fallback))


async def _batch(asked: list[PaperId]) -> dict[str, Paper]:
    """S2's records of many identifiers in ⌈N/500⌉ requests (``cache_key`` → record), each checked to name the id
    asked; empty when there are few (each is looked up alone) or when S2 fails (each is then looked up alone)."""
    wanted = list(dict.fromkeys(p for p in asked if p.kind in S2_KINDS))
    if len(wanted) < BATCH_FROM:
        return {}
    try:
        records = await s2.get_papers([p.s2_key() for p in wanted], S2_RECORD_FIELDS)
    except ScholarError:
        return {}  # the one-by-one lookups say what failed, entry by entry
    found: dict[str, Paper] = {}
    for pid, record in zip(wanted, records, strict=True):
        paper = from_s2(record, S2_RECORD_FIELDS) if record else None
        if paper is not None and pid.cache_key() in record_keys(paper.paperId, paper.externalIds or {}):
            found[pid.cache_key()] = paper
    return found


async def _match(
    entry: Reference, index: int, known: dict[str, Paper], deadline: float | None, source: str
) -> tuple[EntryOutcome, Paper, str]:
    asked = _identifier(entry)
    outcome = EntryOutcome(index=index, key=entry.key, title=entry.title, status="unmatched")
    try:
        if asked is not None and asked.cache_key() in known:
            outcome.status = "matched"
            return outcome, known[asked.cache_key()], _matched_id(known[asked.cache_key()], asked, entry)
        if deadline is not None and time.monotonic() > deadline:
            outcome.status, outcome.message = "failed", "not looked up before the call's time ran out; import again"
        elif asked is not None:
            paper = await resolve(asked)
            outcome.status = "matched"
            return outcome, paper, _matched_id(paper, asked, entry)
        else:
            paper_found, outcome.message = await match_without_identifier(entry)
            if paper_found is not None:
                outcome.status, outcome.message = "matched", None
                return outcome, paper_found, _matched_id(paper_found, None, entry)
    except NotFoundError:
        outcome.message = f"no source holds {asked.kind if asked else 'it'} {asked.value if asked else ''}".strip()
    except ScholarError as exc:  # a source failed: kept as written, and importing again completes it
        outcome.status, outcome.message = "failed", f"{exc.code}: {exc.message}"[:300]
    return outcome, paper_of(entry, source), _own_id(entry, asked)


async def import_references(
    principal: str, entries: Sequence[Reference], *, collection: str, source: str
) -> ImportReport:
    """Match every entry and write it into the caller's library (rules in the module docstring).

    Args:
        source: the format read (``bibtex``, ``ris``, ``csl-json``): the ``sources`` of a record kept as written.

    Raises:
        TooLargeError: the new items would pass the library's item limit (nothing written; both numbers named).
        ScholarError: the store refused or failed; items written before stay, importing again completes it.
    """
    deadline = call_deadline()
    deadline = None if deadline is None else deadline - WRITE_MARGIN_S
    results: list[tuple[EntryOutcome, Paper, str] | None] = [None] * len(entries)
    known = await _batch([pid for entry in entries if (pid := _identifier(entry)) is not None])
    limit = anyio.Semaphore(CONCURRENCY)

    async def one(index: int, entry: Reference) -> None:
        async with limit:
            results[index] = await _match(entry, index, known, deadline, source)

    async with anyio.create_task_group() as group:
        for index, entry in enumerate(entries):
            group.start_soon(one, index, entry)
    done = [r for r in results if r is not None]
    await anyio.to_thread.run_sync(_write, LibraryStore(principal), done, collection)
    return ImportReport(outcomes=[o for o, _, _ in done])


def _item(item_id: str, paper: Paper, collection: str, tags: list[str], old: LibraryItem | None = None) -> LibraryItem:
    now = now_iso()
    ids = list(dict.fromkeys([*([paper.paperId] if paper.paperId else []), *written_ids(paper.externalIds or {})]))
    kept = {"notes": old.notes, "pdfs": old.pdfs, "md_path": old.md_path} if old else {}
    return LibraryItem(
        item_id=item_id,
        collection=collection,
        ids=ids,
        paper=paper.model_dump(mode="json"),
        tags=tags,
        added_at=now,
        updated_at=now,
        **kept,
    )


def _plan(
    store: LibraryStore, done: list[tuple[EntryOutcome, Paper, str]], collection: str
) -> tuple[list[LibraryItem], list[LibraryItem]]:
    """The items to add and the kept-as-written items to replace by their record, each outcome's ``written`` set."""
    existing = store.get_many(list({item_id for _, _, item_id in done}))
    new: dict[str, LibraryItem] = {}
    replace: dict[str, LibraryItem] = {}
    for outcome, paper, item_id in done:
        outcome.item_id, outcome.written = item_id, "skipped"
        tags = [MATCH_TAG] if outcome.status != "matched" else []
        old = existing.get(item_id)
        if item_id in new or item_id in replace:
            outcome.message = outcome.message or "the same paper as an earlier entry of the file"
        elif old is None:
            new[item_id], outcome.written = _item(item_id, paper, collection, tags), "added"
        elif MATCH_TAG in old.tags and outcome.status == "matched":  # kept as written before, matched now
            kept_tags = [t for t in old.tags if t != MATCH_TAG]
            replace[item_id] = _item(item_id, paper, old.collection, kept_tags, old)
            outcome.written = "updated"
    return list(new.values()), list(replace.values())


def _write(store: LibraryStore, done: list[tuple[EntryOutcome, Paper, str]], collection: str) -> None:
    for _attempt in range(_ATTEMPTS):
        new, replace = _plan(store, done, collection)
        items, limit = store.usage()[0], get_settings().library_max_items
        if new and items + len(new) > limit:
            raise TooLargeError(
                f"the import would add {len(new)} items to your library of {items}; its limit is {limit} items "
                "(SCHOLAR_LIBRARY_MAX_ITEMS): nothing was written; import fewer entries or remove items",
                reason="library_max_items",
                details={"adding": len(new), "current": items, "max": limit},
            )
        try:
            if new:
                store.put_many(new, create_only=True)  # an item another writer adds meanwhile is never overwritten
        except ItemExistsError:
            continue  # classify the entries again
        if replace:
            store.put_many(replace)
        return
    raise UnavailableError("the library kept changing while importing; import again (it is idempotent)", retryable=True)

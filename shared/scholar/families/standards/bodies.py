"""Fetching each body's catalogue, incrementally where its upstream allows.

- IETF: rfc-index.xml with If-None-Match (a 304 means unchanged).
- NIST: the export's metadata first; the zip only when its sha256 differs from the last good one.
- W3C: the specification list; a version document only for specifications whose latest version moved.
- ETSI, ISO, IEC, IEEE: the data repository's head commit; when it moved, the whole repository archive (one
  request; changed documents are seen too). If GitHub does not answer, the Relaton index instead, and only
  data files not seen before, at most ``Limits.max_fallback_documents`` a run (the rest stay pending), and
  none after ``Limits.max_fallback_misses`` failures in a row: a cold run would otherwise make one request per
  document (~25,000, most of them 404) and starve every other tool of the shared pace.
Each fetcher returns the body's complete new state; the caller compares, guards and publishes it.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeGuard

from scholar.core.errors import NotFoundError, RateLimitedError, UpstreamError
from scholar.families.standards.loaders.ietf import load_rfc_index
from scholar.families.standards.loaders.nist import load_pubs_export
from scholar.families.standards.loaders.relaton import index_files, load_relaton
from scholar.families.standards.loaders.w3c import latest_version_href, load_specification
from scholar.families.standards.records import StandardRecord
from scholar.families.standards.storage import BodyState
from scholar.sources import nist, relaton, rfc_editor, w3c

RELATON_BODIES = ("ETSI", "ISO", "IEC", "IEEE")
_MAX_W3C_PAGES = 200


@dataclass(frozen=True)
class Limits:
    """How much one run may do (a Lambda run has 15 minutes)."""

    max_documents: int = 2_000
    max_fallback_documents: int = 200
    max_fallback_misses: int = 20
    deadline: float = field(default_factory=lambda: time.monotonic() + 600)

    def expired(self) -> bool:
        return time.monotonic() >= self.deadline


@dataclass
class Fetched:
    """A body's new state, or ``unchanged`` (the previous state stands)."""

    state: BodyState | None
    unchanged: bool = False
    errors: list[str] = field(default_factory=list)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _same(previous: BodyState | None, ref: str) -> TypeGuard[BodyState]:
    """The upstream is at the version we already hold (and we hold data of it)."""
    return previous is not None and bool(previous.records) and previous.upstream_ref == ref


async def fetch_ietf(previous: BodyState | None, limits: Limits) -> Fetched:
    etag = previous.validators.get("etag") if previous is not None and previous.records else None
    got = await rfc_editor.fetch_rfc_index(etag)
    if got.data is None:
        return Fetched(None, unchanged=True)
    ref = _digest(got.data)
    if _same(previous, ref):
        return Fetched(None, unchanged=True)
    state = BodyState(body="IETF", upstream_ref=ref, validators={"etag": got.etag}, records=load_rfc_index(got.data))
    return Fetched(state)


async def fetch_nist(previous: BodyState | None, limits: Limits) -> Fetched:
    meta = await nist.fetch_export_meta()
    ref = meta["sha256"].lower()[:16]
    if _same(previous, ref):
        return Fetched(None, unchanged=True)
    entries = await nist.fetch_export(meta["sha256"])
    validators = {"lastModifiedDate": meta.get("lastModifiedDate"), "recordCount": meta.get("recordCount")}
    return Fetched(BodyState(body="NIST", upstream_ref=ref, validators=validators, records=load_pubs_export(entries)))


def _page_signature(doc: dict) -> tuple[str, ...]:
    """What a list page holds (its specifications' links or shortnames), to notice a page served twice."""
    embedded = (doc.get("_embedded") or {}).get("specifications") or []
    links = (doc.get("_links") or {}).get("specifications") or []
    return tuple(str(s.get("shortname") or s.get("_links", {}).get("self", {}).get("href")) for s in embedded) + tuple(
        str(link.get("href")) for link in links
    )


def _last_page(doc: dict, page: int) -> bool:
    """The listing says this is its last page: no ``next`` link, or ``page`` reached its ``pages`` count."""
    pages = doc.get("pages")
    return "next" not in (doc.get("_links") or {}) or (isinstance(pages, int) and page >= pages)


async def _w3c_specs(limits: Limits, errors: list[str]) -> tuple[list[dict], bool]:
    """The specification documents, and whether the listing reached its last page."""
    specs: list[dict] = []
    seen: set[tuple[str, ...]] = set()
    for page in range(1, _MAX_W3C_PAGES + 1):
        doc = await w3c.list_page(page)
        signature = _page_signature(doc)
        if signature in seen:
            # The API answered an earlier page again (a paging fault): reading on would loop to the page cap.
            errors.append(f"the W3C listing repeated a page at page {page}; stopped reading it there")
            return specs, False
        seen.add(signature)
        embedded = (doc.get("_embedded") or {}).get("specifications")
        if embedded:
            specs.extend(embedded)
        else:
            for link in (doc.get("_links") or {}).get("specifications") or []:
                if limits.expired():
                    return specs, False
                try:
                    specs.append(await w3c.get_document(link["href"]))
                except (NotFoundError, UpstreamError) as err:
                    errors.append(f"{link.get('href')}: {err.message}")
        if _last_page(doc, page):
            return specs, True
        if limits.expired():
            return specs, False
    return specs, False


async def fetch_w3c(previous: BodyState | None, limits: Limits) -> Fetched:
    errors: list[str] = []
    specs, complete = await _w3c_specs(limits, errors)
    before = {r.id: r for r in previous.records} if previous else {}
    seen_latest: dict[str, str] = previous.validators.get("latest", {}) if previous else {}
    latest_map: dict[str, str] = {}
    records: list[StandardRecord] = []
    for spec in specs:
        short = spec.get("shortname")
        if not short:
            continue
        href = latest_version_href(spec) or ""
        if short in before and seen_latest.get(short) == href:
            latest_map[short] = href
            records.append(before[short])
            continue
        if limits.expired():
            complete = False
            if short in before:
                latest_map[short] = seen_latest.get(short, "")
                records.append(before[short])
            continue
        try:
            latest = await w3c.get_document(href) if href else None
        except (NotFoundError, UpstreamError) as err:
            # The specification document alone still names the title and the latest maturity.
            errors.append(f"{short}: {err.message}")
            records.append(before.get(short) or load_specification(spec, None))
            latest_map[short] = seen_latest.get(short, "")
            continue
        latest_map[short] = href
        records.append(load_specification(spec, latest))
    if not complete:
        # Out of time: what was not reached this run stays as it was (never withdrawn for being unlisted).
        errors.append("the run ended before every specification was read; the rest continues next run")
        for short, record in before.items():
            if short not in latest_map:
                latest_map[short] = seen_latest.get(short, "")
                records.append(record)
    ref = _digest(json.dumps(sorted(latest_map.items())).encode())
    if _same(previous, ref) and not errors:
        return Fetched(None, unchanged=True)
    return Fetched(
        BodyState(body="W3C", upstream_ref=ref, validators={"latest": latest_map}, records=records), False, errors
    )


async def fetch_relaton(body: str, previous: BodyState | None, limits: Limits) -> Fetched:
    """The whole repository archive when its head commit moved; the index and new files when that fails."""
    errors: list[str] = []
    try:
        sha = await relaton.latest_commit(body)
        if _same(previous, sha) and not previous.validators.get("pending"):
            return Fetched(None, unchanged=True)
        archive = await relaton.fetch_archive(body, sha)
    except (NotFoundError, RateLimitedError, UpstreamError) as err:
        errors.append(f"repository archive unavailable ({err.message}); fetched new documents one by one")
        return await _relaton_by_index(body, previous, limits, errors)
    records: list[StandardRecord] = []
    file_ids: dict[str, str] = {}
    bad = 0
    for path, data in relaton.archive_documents(archive):
        record = load_relaton(data, body) if isinstance(data, dict) else None
        if record is None:
            bad += 1
            continue
        file_ids[path] = record.id
        records.append(record)
    if bad:
        errors.append(f"{bad} files of the archive are not Relaton items")
    state = BodyState(body=body, upstream_ref=sha, validators={"files": file_ids, "pending": 0}, records=records)
    return Fetched(state, False, errors)


async def _relaton_by_index(body: str, previous: BodyState | None, limits: Limits, errors: list[str]) -> Fetched:
    """Fallback: the index, then only the data files not seen before (at most ``limits.max_documents``)."""
    data = await relaton.fetch_index(body)
    ref = _digest(data)
    pending_before = previous.validators.get("pending", 0) if previous else 0
    if _same(previous, ref) and not pending_before:
        return Fetched(None, unchanged=True, errors=errors)
    files = index_files(relaton.read_index(data))
    known: dict[str, str] = previous.validators.get("files", {}) if previous else {}
    by_id = {r.id: r for r in previous.records} if previous else {}
    listed = set(files)
    file_ids = {path: rid for path, rid in known.items() if path in listed and rid in by_id}
    records = [by_id[rid] for rid in dict.fromkeys(file_ids.values())]
    new_files = [f for f in files if f not in file_ids]
    attempted = misses = 0
    cap = min(limits.max_documents, limits.max_fallback_documents)
    for path in new_files:
        if attempted >= cap or limits.expired():
            break
        if misses >= limits.max_fallback_misses:
            errors.append(f"stopped after {misses} documents in a row failed; the rest waits for the next run")
            break
        try:
            record = load_relaton(await relaton.fetch_document(body, path), body)
        except RateLimitedError as err:
            errors.append(f"{path}: {err.message}; the rest waits for the next run")
            break
        except (NotFoundError, UpstreamError) as err:
            # Retried when the index changes; not counted as pending so an unchanged index is still skipped.
            errors.append(f"{path}: {err.message}")
            misses += 1
        else:
            misses = 0
            if record is not None:
                file_ids[path] = record.id
                records.append(record)
        attempted += 1
    validators = {"files": file_ids, "pending": len(new_files) - attempted}
    return Fetched(BodyState(body=body, upstream_ref=ref, validators=validators, records=records), False, errors)


Fetcher = Callable[[BodyState | None, Limits], Awaitable[Fetched]]


def fetcher(body: str) -> Fetcher:
    """The fetch function of ``body``."""
    if body in RELATON_BODIES:
        return lambda previous, limits: fetch_relaton(body, previous, limits)
    return {"IETF": fetch_ietf, "NIST": fetch_nist, "W3C": fetch_w3c}[body]

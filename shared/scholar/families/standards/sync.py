"""The standards sync: fetch every body, guard, build one catalogue, publish it, record the runs.

A body that fails keeps its last good data; a run that would withdraw more than half of a body's records
is refused for that body (an upstream that suddenly lists nothing is broken, not empty). A new catalogue
version is built only when some body changed (or none was ever published), uploaded, then made current.
"""

from __future__ import annotations

import hashlib
import logging
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from scholar.core.errors import ScholarError
from scholar.families.standards.bodies import Fetched, Limits, fetcher
from scholar.families.standards.catalogue_db import build_catalogue
from scholar.families.standards.linking import link
from scholar.families.standards.records import BODIES, StandardRecord
from scholar.families.standards.runs import SyncRun, record_run, summarise_errors
from scholar.families.standards.storage import BodyMeta, BodyState, IndexStore, Pointer, version_key
from scholar.runtime.progress import report as report_progress
from scholar.store.cache import Cache

logger = logging.getLogger(__name__)

WITHDRAW_GUARD = 0.5
_GONE = ("withdrawn", "superseded")
_FAULTY = ("failed", "partial", "aborted")  # outcomes whose errors the catalogue states for the body


@dataclass
class Diff:
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    withdrawn: int = 0


@dataclass
class SyncReport:
    """What one sync did."""

    runs: list[SyncRun] = field(default_factory=list)
    pointer: Pointer | None = None
    published: bool = False


def compare(previous: list[StandardRecord], current: list[StandardRecord]) -> Diff:
    """Count added, updated, unchanged and withdrawn records (withdrawn: gone, or newly out of force)."""
    before = {r.id: r for r in previous}
    diff = Diff()
    seen = set()
    for record in current:
        seen.add(record.id)
        old = before.get(record.id)
        if old is None:
            diff.added += 1
        elif old == record:
            diff.unchanged += 1
        else:
            diff.updated += 1
            if record.status in _GONE and old.status not in _GONE:
                diff.withdrawn += 1
    diff.withdrawn += sum(1 for rid in before if rid not in seen)
    return diff


async def _sync_body(
    body: str, store: IndexStore, limits: Limits, cache: Cache | None
) -> tuple[BodyState | None, SyncRun, bool]:
    """Sync one body; returns (the state to serve, its run, whether it changed)."""
    run = SyncRun(body=body, started_at=time.time())
    previous = store.read_body(body)
    changed = False
    state = previous
    try:
        fetched: Fetched = await fetcher(body)(previous, limits)
    except ScholarError as err:
        logger.warning("standards sync of %s failed: %s", body, err.message)
        run.errors.append(f"{err.code}: {err.message}")
        run.outcome = "failed"
        run.upstream_ref = previous.upstream_ref if previous else None
        run.unchanged = len(previous.records) if previous else 0
    else:
        run.errors.extend(fetched.errors)
        if fetched.unchanged or fetched.state is None:
            run.outcome = "unchanged"
            run.upstream_ref = previous.upstream_ref if previous else None
            run.unchanged = len(previous.records) if previous else 0
        else:
            old = previous.records if previous else []
            diff = compare(old, fetched.state.records)
            run.upstream_ref = fetched.state.upstream_ref
            if old and diff.withdrawn > WITHDRAW_GUARD * len(old):
                run.outcome = "aborted"
                run.errors.append(
                    f"aborted: the run would withdraw {diff.withdrawn} of {len(old)} records; kept the last good data"
                )
                run.unchanged = len(old)
            else:
                fetched.state.synced_at = time.time()
                store.write_body(fetched.state)
                state = fetched.state
                # A new upstream version with the same records changes nothing worth a new catalogue.
                changed = bool(diff.added or diff.updated or diff.withdrawn) or previous is None
                run.outcome = _outcome(changed, bool(diff.added or diff.updated), bool(run.errors))
                run.added, run.updated, run.unchanged, run.withdrawn = (
                    diff.added,
                    diff.updated,
                    diff.unchanged,
                    diff.withdrawn,
                )
    run.errors, run.error_count = summarise_errors(run.errors)
    run.finished_at = time.time()
    record_run(run, cache)
    return state, run, changed


def _outcome(changed: bool, gained: bool, errors: bool) -> str:
    """A run's outcome once its new state is kept: errors with nothing gained are a failure, never "ok"."""
    if errors:
        return "partial" if gained else "failed"
    return "ok" if changed else "unchanged"


async def run_sync(
    bodies: tuple[str, ...] = BODIES,
    *,
    store: IndexStore | None = None,
    cache: Cache | None = None,
    limits: Limits | None = None,
    workdir: Path | None = None,
) -> SyncReport:
    """Sync ``bodies`` and publish a new catalogue version when anything changed.

    Returns:
        The runs, and the pointer now current (None when nothing was ever published).
    """
    store = store or IndexStore()
    limits = limits or Limits()
    report = SyncReport()
    states: dict[str, BodyState | None] = {}
    any_changed = False
    for number, body in enumerate(bodies):
        report_progress(number, len(bodies), f"standards sync: {body}")
        state, run, changed = await _sync_body(body, store, limits, cache)
        states[body] = state
        report.runs.append(run)
        any_changed = any_changed or changed
    pointer = store.read_pointer()
    report.pointer = pointer
    if pointer is not None and not any_changed and not _faults_changed(pointer, report.runs):
        return report
    for body in BODIES:
        if body not in states:
            states[body] = store.read_body(body)
    if pointer is None and not any(s and s.records for s in states.values()):
        return report
    report.pointer = _publish(states, {r.body: r for r in report.runs}, store, workdir, pointer)
    report.published = True
    return report


def _error(body: str, runs: dict[str, SyncRun], previous: Pointer | None) -> str | None:
    """The failure the catalogue states for ``body``: this run's, or the last one's for a body not run now."""
    if body in runs:
        return "; ".join(runs[body].errors)[:500] if runs[body].outcome in _FAULTY else None
    meta = previous.bodies.get(body) if previous is not None else None
    return meta.error if meta is not None else None


def _faults_changed(pointer: Pointer, runs: list[SyncRun]) -> bool:
    """Whether a body's failure is new or over: the catalogue must say so, even when no record changed.

    A body whose sync fails keeps its last good records, so nothing changed; but an answer over the old version
    would present that body's data as current (issue #22 item 4). A body whose failure ended clears its warning,
    and one failing another way states the new failure.
    """
    for run in runs:
        meta = pointer.bodies.get(run.body)
        if meta is None or meta.error != _error(run.body, {run.body: run}, None):
            return True
    return False


def _publish(
    states: dict[str, BodyState | None], runs: dict[str, SyncRun], store: IndexStore, workdir: Path | None,
    previous: Pointer | None = None,
) -> Pointer:
    records = link(r for s in states.values() if s for r in s.records)
    refs = "|".join(f"{b}:{s.upstream_ref if s else '-'}" for b, s in sorted(states.items()))
    version = f"{int(time.time())}-{hashlib.sha256(refs.encode()).hexdigest()[:8]}"
    bodies = {
        b: BodyMeta(
            records=len(s.records) if s else 0,
            upstream_ref=s.upstream_ref if s else None,
            synced_at=s.synced_at if s else None,
            error=_error(b, runs, previous),
        )
        for b, s in states.items()
    }
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        path = Path(tmp) / f"index-{version}.sqlite"
        count = build_catalogue(
            records,
            path,
            {"version": version, "built_at": time.time(), "bodies": {b: m.model_dump() for b, m in bodies.items()}},
        )
        pointer = Pointer(version=version, key=version_key(version), built_at=time.time(), records=count, bodies=bodies)
        store.publish(path, pointer)
    logger.info("published standards catalogue %s (%d records)", version, count)
    return pointer

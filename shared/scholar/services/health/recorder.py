"""The per-invocation buffer of usage records: filled while a tool runs, written once when it ends.

It registers itself with ``scholar.core.usage_hooks`` when imported (the lower floors call it through there).
``recording(family, tool, principal)`` opens one call; ``call.bind(coro)`` makes it the current call
inside the coroutine (a context variable: the process loop runs many callers' coroutines at once, on
another thread than the handler's, and tasks spawned by the tool inherit it). ``scholar.sources.http`` reports
every upstream attempt through ``note_attempt``; tools may add what only they know (``annotate``,
``note_answer``). When the call ends its record is queued and written behind the answer in one batch
write; a failed write is logged and counted, and never fails the call.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import re
import secrets
import time
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

from scholar.core import usage_hooks
from scholar.core.config import get_settings
from scholar.services.health.metrics import count_write_failure, publish
from scholar.services.health.records import NO_SOURCE, SourceStats, UsageRecord, hash_principal, is_failure, rows_of
from scholar.store.usage import UsageStore, UsageWriteError

logger = logging.getLogger(__name__)

T = TypeVar("T")
# Families whose list records are papers: only there does a missing abstract mean something.
ABSTRACT_FAMILIES = frozenset({"papers", "arxiv", "research"})
# Where a tool result holds its list of records (search, lists, batches, graphs); a result with a
# title is one record itself (get_paper, get_book).
RECORD_LISTS = ("data", "papers", "books", "results", "items", "nodes")
# A label is kept only when it looks like a name (s2_oa, rrf), so no free text can ride along.
_NAME = re.compile(r"[a-z0-9_-]{1,40}")
_current: contextvars.ContextVar[Call | None] = contextvars.ContextVar("scholar_usage_call", default=None)


class Call:
    """One tool call being recorded."""

    def __init__(self, *, tool: str, family: str, principal: str) -> None:
        self.tool = tool
        self.family = family
        self.principal = principal
        self.started = time.time()
        self._began = time.perf_counter()
        self.outcome = "internal"
        self.ranker: str | None = None
        self.pdf_origin: str | None = None
        self.stats: dict[str, SourceStats] = {}
        self._answers: set[str] = set()  # sources whose records/abstracts a tool reported itself
        self.duration_ms = 0

    async def bind(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await ``coro`` with this call as the current one."""
        token = _current.set(self)
        try:
            return await coro
        finally:
            _current.reset(token)

    def source(self, name: str) -> SourceStats:
        stats = self.stats.get(name)
        if stats is None:
            stats = self.stats[name] = SourceStats(source=name)
        return stats

    def ended(self, outcome: dict[str, Any]) -> dict[str, Any]:
        """Note how the call ended (a family function's outcome dict) and return it unchanged."""
        self.duration_ms = int((time.perf_counter() - self._began) * 1000)
        if not outcome.get("ok"):
            self.outcome = str((outcome.get("error") or {}).get("code") or "internal")
            return outcome
        result = outcome.get("result") or {}
        self.outcome = "queued" if result.get("queued") is True else "ok"
        if self.outcome == "ok":
            self._infer_answers(result)
            self.pdf_origin = self.pdf_origin or _label(result, "pdf_source")
            self.ranker = self.ranker or _label(result, "ranker")
        return outcome

    def _infer_answers(self, result: dict[str, Any]) -> None:
        """Empty answers and missing abstracts from the result's records, attributed by their provenance."""
        listed = next((result[k] for k in RECORD_LISTS if isinstance(result.get(k), list)), None)
        items = listed if listed is not None else ([result] if "title" in result else None)
        answered = [s for s in self.stats.values() if s.succeeded and s.source not in self._answers]
        if items is None or not answered:
            return
        papers = self.family in ABSTRACT_FAMILIES
        for stats in answered:
            mine = [i for i in items if isinstance(i, dict) and stats.source in (i.get("sources") or [stats.source])]
            stats.empty = None if listed is None else not items
            stats.records = len(mine)
            if papers:
                stats.missing_abstracts = sum(1 for i in mine if not i.get("abstract"))

    def record(self) -> list[UsageRecord]:
        """The call's record (one, whatever the number of sources: the store splits it per source)."""
        return [
            UsageRecord(
                at=self.started,
                request=secrets.token_hex(6),
                tool=self.tool,
                family=self.family,
                duration_ms=self.duration_ms,
                outcome=self.outcome,
                principal=hash_principal(self.principal, get_settings().principal_salt),
                ranker=self.ranker,
                pdf_origin=self.pdf_origin,
                sources=list(self.stats.values()) or [SourceStats(source=NO_SOURCE)],
            )
        ]


def _label(result: dict[str, Any], key: str) -> str | None:
    """A short name the result states at its top or one level down (``pdf_source``, ``ranker``); never an id."""
    for node in (result, *(v for v in result.values() if isinstance(v, dict))):
        value = node.get(key)
        if isinstance(value, str) and _NAME.fullmatch(value):
            return value
    return None


def current() -> Call | None:
    """The call being recorded in this context, if any."""
    return _current.get()


def note_attempt(source: str, status: int | str, latency_s: float, nbytes: int = 0) -> None:
    """Count one HTTP attempt to ``source`` (``status``: the HTTP status, or 'timeout' / 'connect')."""
    call = _current.get()
    if call is None:
        return
    stats = call.source(source)
    stats.requests += 1
    key = str(status)
    stats.statuses[key] = stats.statuses.get(key, 0) + 1
    if status == 429:
        stats.throttled += 1
    if is_failure(key):
        stats.failures += 1
    stats.latency_ms = max(stats.latency_ms, int(latency_s * 1000))
    stats.bytes += nbytes


def note_answer(source: str, *, records: int, missing_abstracts: int | None = None) -> None:
    """What ``source`` contributed to the answer, when the tool knows better than the result's provenance."""
    call = _current.get()
    if call is None:
        return
    stats = call.source(source)
    stats.records, stats.missing_abstracts, stats.empty = records, missing_abstracts, records == 0
    call._answers.add(source)


def annotate(*, ranker: str | None = None, pdf_origin: str | None = None) -> None:
    """Which ranker ordered a federated search, or which source a PDF came from (names, never ids)."""
    call = _current.get()
    if call is None:
        return
    call.ranker = ranker or call.ranker
    call.pdf_origin = pdf_origin or call.pdf_origin


@contextlib.contextmanager
def recording(family: str, tool: str, principal: str) -> Iterator[Call]:
    """Record one tool call; its record is written when the block ends (never raising)."""
    call = Call(tool=tool, family=family, principal=principal)
    try:
        yield call
    finally:
        flush(call.record())


def flush(records: list[UsageRecord]) -> None:
    """Publish the records' per-source metrics and queue them for writing behind the call (scholar.store.usage).

    The tool's answer does not wait for the write; a refused write is logged and counted.
    """
    publish(records)
    UsageStore().put_behind((row for record in records for row in rows_of(record)), on_error=_write_failed)


def _write_failed(exc: UsageWriteError) -> None:
    logger.error("usage records were not written: %s", exc)
    count_write_failure()


usage_hooks.set_recorder(usage_hooks.Recorder(recording=recording, note_attempt=note_attempt))

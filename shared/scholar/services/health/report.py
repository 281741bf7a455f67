"""Per-source health: the figures of the last day and week, and the doctor's findings.

One function builds it for everyone who asks: the ``source_health`` tool, ``make doctor`` and the
landing page (``source_status``). Sources are read concurrently (two queries each, plus the hours
not rolled up yet).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, Field

from scholar.core import aio
from scholar.services.health.doctor import Finding, diagnose
from scholar.services.health.history import Windows, windows
from scholar.services.health.records import NO_SOURCE
from scholar.services.health.summary import Summary
from scholar.sources.registry import SOURCES
from scholar.store.usage import UsageStore

Status = Literal["ok", "degraded", "failing", "unknown"]
_FAILING_KINDS = frozenset({"started_failing", "went_quiet"})


class Figures(BaseModel):
    """One source over one window."""

    calls: int
    success_rate: float | None = Field(description="share of calls in which the source answered")
    requests: int
    failure_share: float = Field(description="share of HTTP attempts that failed (429, 5xx, timeout, no connection)")
    p50_ms: int | None = Field(description="median latency (bucket bound)")
    p95_ms: int | None = Field(description="95th percentile latency (bucket bound)")
    error_mix: dict[str, int] = Field(description="failed attempts by HTTP status or kind (timeout, connect)")
    outcomes: dict[str, int] = Field(description="call outcomes: ok, queued or an error code")
    missing_abstract_share: float | None = None
    empty_answers: int = 0

    @classmethod
    def of(cls, summary: Summary) -> Figures:
        rate = summary.success_rate
        share = summary.missing_abstract_share
        return cls(
            calls=summary.calls,
            success_rate=None if rate is None else round(rate, 3),
            requests=summary.requests,
            failure_share=round(summary.failure_share, 3),
            p50_ms=summary.percentile_ms(0.5),
            p95_ms=summary.percentile_ms(0.95),
            error_mix=summary.errors,
            outcomes=summary.outcomes,
            missing_abstract_share=None if share is None else round(share, 3),
            empty_answers=summary.empty,
        )


class SourceHealth(BaseModel):
    """One source: its status, figures and findings."""

    source: str
    status: Status = Field(description="failing, degraded (a finding), ok, or unknown (too little history)")
    last_hour: Figures = Field(description="the last 60 minutes, exactly")
    last_24h: Figures = Field(description="the last 24 hours, in whole hours (the oldest may start a little earlier)")
    last_7d: Figures = Field(description="the last 7 days, in whole hours")
    findings: list[Finding]


def status_of(findings: Iterable[Finding]) -> Status:
    kinds = {finding.kind for finding in findings}
    if kinds & _FAILING_KINDS:
        return "failing"
    if "not_enough_history" in kinds:
        return "unknown"
    return "degraded" if kinds else "ok"


def source_health(w: Windows) -> SourceHealth:
    findings = diagnose(w.source, w.recent, w.history)
    return SourceHealth(
        source=w.source,
        status=status_of(findings),
        last_hour=Figures.of(w.recent),
        last_24h=Figures.of(w.day),
        last_7d=Figures.of(w.week),
        findings=findings,
    )


def known_sources() -> list[str]:
    """Every registered source, and the marker for calls that asked none."""
    return [*SOURCES, NO_SOURCE]


async def health_of(
    sources: Iterable[str], *, store: UsageStore | None = None, now: float | None = None, with_calls_only: bool = True
) -> list[SourceHealth]:
    """The health of each source, read concurrently.

    Args:
        sources: source names.
        store: the usage store (default: the configured table).
        now: the time to judge at (default: now).
        with_calls_only: leave out sources without a call in the last week.

    Raises:
        UsageReadError: the table could not be read.
    """
    store = store or UsageStore()
    now = time.time() if now is None else now
    loaded = await asyncio.gather(*(asyncio.to_thread(windows, source, store, now) for source in sources))
    return [source_health(w) for w in loaded if w.week.calls or w.recent.calls or not with_calls_only]


def source_status(*, store: UsageStore | None = None) -> dict[str, Status]:
    """Source name → status, for pages that show it (synchronous; sources without calls are left out).

    Raises:
        UsageReadError: the table could not be read.
    """
    return {h.source: h.status for h in aio.run(health_of(SOURCES, store=store))}

"""Figures of many usage records of one source, in a form that adds up (an hour, a day, a week).

A ``Summary`` is what the hourly rollup stores and what the doctor compares: counts, the error mix
and a latency histogram with fixed bucket bounds, so two summaries merge exactly and percentiles of
a week come from hourly rollups without keeping every latency.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, Field

from scholar.services.health.records import UsageRecord, is_failure

# Upper bounds (ms) of the latency buckets; a last bucket holds everything slower. Percentiles are
# reported as the bound of the bucket they fall in: coarse but mergeable, and enough to see "slowed".
LATENCY_BOUNDS_MS = (50, 100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 8000, 15000, 30000)


def _empty_histogram() -> list[int]:
    return [0] * (len(LATENCY_BOUNDS_MS) + 1)


class Summary(BaseModel):
    """Counts over a set of calls that asked one source."""

    calls: int = 0
    answered: int = Field(default=0, description="calls in which the source answered at least once")
    requests: int = 0
    failures: int = 0
    throttled: int = 0
    errors: dict[str, int] = Field(default_factory=dict, description="failed attempts by status or kind")
    outcomes: dict[str, int] = Field(default_factory=dict, description="call outcomes: ok, queued or an error code")
    records: int = Field(default=0, description="records supplied where abstracts were counted")
    missing_abstracts: int = 0
    empty: int = Field(default=0, description="calls whose answer held no records")
    hours: int = Field(default=0, description="hours with at least one call")
    latency: list[int] = Field(default_factory=_empty_histogram)

    @classmethod
    def of(cls, records: Iterable[UsageRecord]) -> Summary:
        """Summarise one-source records (as read back from the store)."""
        summary = cls()
        hours: set[int] = set()
        for record in records:
            hours.add(int(record.at // 3600))
            summary.calls += 1
            summary.outcomes[record.outcome] = summary.outcomes.get(record.outcome, 0) + 1
            for stats in record.sources:
                # A call that asked nothing (the no-source marker) answered when the call itself did.
                local_ok = stats.requests == 0 and record.outcome in ("ok", "queued")
                summary.answered += 1 if stats.succeeded or local_ok else 0
                summary.requests += stats.requests
                summary.failures += stats.failures
                summary.throttled += stats.throttled
                for status, count in stats.statuses.items():
                    if is_failure(status):
                        summary.errors[status] = summary.errors.get(status, 0) + count
                if stats.missing_abstracts is not None and stats.records:
                    summary.records += stats.records
                    summary.missing_abstracts += stats.missing_abstracts
                summary.empty += 1 if stats.empty else 0
                if stats.requests:
                    summary.latency[_bucket(stats.latency_ms)] += 1
        summary.hours = len(hours)
        return summary

    def merge(self, other: Summary) -> Summary:
        """The summary of both sets of calls."""

        def added(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
            return {k: a.get(k, 0) + b.get(k, 0) for k in sorted({*a, *b})}

        return Summary(
            calls=self.calls + other.calls,
            answered=self.answered + other.answered,
            requests=self.requests + other.requests,
            failures=self.failures + other.failures,
            throttled=self.throttled + other.throttled,
            errors=added(self.errors, other.errors),
            outcomes=added(self.outcomes, other.outcomes),
            records=self.records + other.records,
            missing_abstracts=self.missing_abstracts + other.missing_abstracts,
            empty=self.empty + other.empty,
            hours=self.hours + other.hours,
            latency=[a + b for a, b in zip(self.latency, other.latency, strict=True)],
        )

    def percentile_ms(self, q: float) -> int | None:
        """The latency bucket bound under which a share ``q`` of the timed calls fell (None: no timed call)."""
        total = sum(self.latency)
        if not total:
            return None
        seen = 0
        for index, count in enumerate(self.latency):
            seen += count
            if seen >= q * total:
                return LATENCY_BOUNDS_MS[index] if index < len(LATENCY_BOUNDS_MS) else LATENCY_BOUNDS_MS[-1] * 2
        return LATENCY_BOUNDS_MS[-1] * 2

    @property
    def failure_share(self) -> float:
        return self.failures / self.requests if self.requests else 0.0

    @property
    def throttle_share(self) -> float:
        return self.throttled / self.requests if self.requests else 0.0

    @property
    def success_rate(self) -> float | None:
        return self.answered / self.calls if self.calls else None

    @property
    def missing_abstract_share(self) -> float | None:
        return self.missing_abstracts / self.records if self.records else None


def merged(summaries: Iterable[Summary]) -> Summary:
    total = Summary()
    for summary in summaries:
        total = total.merge(summary)
    return total


def _bucket(latency_ms: int) -> int:
    for index, bound in enumerate(LATENCY_BOUNDS_MS):
        if latency_ms <= bound:
            return index
    return len(LATENCY_BOUNDS_MS)

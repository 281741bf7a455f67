"""The doctor: each source's recent window against its own history, as findings with evidence.

A source is compared with itself, never with a fixed norm: arXiv is slow and S2 throttles anonymous
callers as a matter of course, and only a change from their usual is news. A source whose history is
too thin to know its usual gets ``not_enough_history`` instead of a guess; the recent figures are
still reported next to it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from scholar.services.health.summary import Summary

FindingKind = Literal["started_failing", "went_quiet", "lost_abstracts", "slowed", "throttled", "not_enough_history"]

# The recent window is the last hour: the probe guarantees every source at least one request in it,
# and an hour is short enough that an outage shows up the hour it starts.
RECENT_S = 3600
# History is the week before: long enough to hold quiet nights and weekends, short enough that a
# source that changed for good a month ago counts as its new self.
HISTORY_S = 7 * 86_400
# Under 20 calls over fewer than 3 distinct hours, one bad minute would look like the source's norm.
MIN_HISTORY_CALLS = 20
MIN_HISTORY_HOURS = 3
# A judgement on the last hour needs a few requests: the hourly probe alone gives one, a single
# failed probe is a blip, three failing requests are a pattern.
MIN_RECENT_REQUESTS = 3
# Failing: at least 30% of recent attempts failed, and that is at least double the usual share and
# 20 points above it (a source that usually fails 1% must not alarm at 2%, nor one at 40% at 45%).
FAILING_SHARE = 0.30
FAILING_FACTOR = 2.0
FAILING_MARGIN = 0.20
# Quiet: no successful answer at all in the window, for a source that answered at least 80% of calls before.
QUIET_USUAL_SUCCESS = 0.80
# Lost abstracts: the share of records without one rose by 30 points, over at least 10 recent records
# (sources differ a lot: Crossref often lacks abstracts, S2 rarely; only the rise says something broke).
ABSTRACTS_RISE = 0.30
MIN_RECENT_RECORDS = 10
# Slowed: p95 at least doubled and by at least 500 ms (bucketed latencies: one bucket up is noise).
SLOWED_FACTOR = 2.0
SLOWED_MARGIN_MS = 500
# Throttled: at least 20% of recent attempts answered 429, 15 points above the usual share.
THROTTLED_SHARE = 0.20
THROTTLED_MARGIN = 0.15


class Finding(BaseModel):
    """One thing the doctor noticed about a source, with the figures behind it."""

    source: str
    kind: FindingKind
    message: str
    evidence: dict[str, float | int | str | None] = Field(default_factory=dict)


def diagnose(source: str, recent: Summary, history: Summary) -> list[Finding]:
    """Compare a source's recent window with its history.

    Args:
        source: the source name.
        recent: the last ``RECENT_S`` seconds.
        history: the ``HISTORY_S`` seconds before.

    Returns:
        Findings, most serious first; ``not_enough_history`` alone when the history is too thin.
    """
    if history.calls < MIN_HISTORY_CALLS or history.hours < MIN_HISTORY_HOURS:
        return [
            Finding(
                source=source,
                kind="not_enough_history",
                message=f"{source} has {history.calls} calls over {history.hours} hours of history; "
                f"at least {MIN_HISTORY_CALLS} over {MIN_HISTORY_HOURS} hours are needed to judge a change",
                evidence={
                    "history_calls": history.calls,
                    "history_hours": history.hours,
                    "recent_requests": recent.requests,
                    "recent_failure_share": round(recent.failure_share, 3),
                },
            )
        ]
    if recent.requests < MIN_RECENT_REQUESTS:
        return []
    checks = (_quiet_or_failing, _throttled, _slowed, _lost_abstracts)
    return [finding for check in checks if (finding := check(source, recent, history)) is not None]


def _quiet_or_failing(source: str, recent: Summary, history: Summary) -> Finding | None:
    usual = history.failure_share
    evidence = {
        "recent_failure_share": round(recent.failure_share, 3),
        "usual_failure_share": round(usual, 3),
        "recent_requests": recent.requests,
        "recent_errors": _mix(recent),
    }
    usual_success = history.success_rate or 0.0
    if recent.answered == 0 and usual_success >= QUIET_USUAL_SUCCESS:
        return Finding(
            source=source,
            kind="went_quiet",
            evidence={**evidence, "usual_success_rate": round(usual_success, 3)},
            message=f"{source} gave no successful answer in the last hour "
            f"({recent.requests} requests); it usually answers {usual_success:.0%} of calls",
        )
    share = recent.failure_share
    if share >= FAILING_SHARE and share >= usual * FAILING_FACTOR and share >= usual + FAILING_MARGIN:
        return Finding(
            source=source,
            kind="started_failing",
            evidence=evidence,
            message=f"{source} failed {share:.0%} of requests in the last hour (usually {usual:.0%})",
        )
    return None


def _throttled(source: str, recent: Summary, history: Summary) -> Finding | None:
    share, usual = recent.throttle_share, history.throttle_share
    if share >= THROTTLED_SHARE and share >= usual + THROTTLED_MARGIN:
        return Finding(
            source=source,
            kind="throttled",
            evidence={"recent_429_share": round(share, 3), "usual_429_share": round(usual, 3)},
            message=f"{source} answered 429 to {share:.0%} of requests in the last hour (usually {usual:.0%})",
        )
    return None


def _slowed(source: str, recent: Summary, history: Summary) -> Finding | None:
    now, usual = recent.percentile_ms(0.95), history.percentile_ms(0.95)
    if now is None or usual is None:
        return None
    if now >= usual * SLOWED_FACTOR and now - usual >= SLOWED_MARGIN_MS:
        return Finding(
            source=source,
            kind="slowed",
            evidence={"recent_p95_ms": now, "usual_p95_ms": usual},
            message=f"{source} p95 latency is {now} ms in the last hour (usually {usual} ms)",
        )
    return None


def _lost_abstracts(source: str, recent: Summary, history: Summary) -> Finding | None:
    now, usual = recent.missing_abstract_share, history.missing_abstract_share
    if now is None or usual is None or recent.records < MIN_RECENT_RECORDS:
        return None
    if now >= usual + ABSTRACTS_RISE:
        return Finding(
            source=source,
            kind="lost_abstracts",
            evidence={
                "recent_missing_share": round(now, 3),
                "usual_missing_share": round(usual, 3),
                "recent_records": recent.records,
            },
            message=f"{now:.0%} of {source} records lacked an abstract in the last hour (usually {usual:.0%})",
        )
    return None


def _mix(summary: Summary) -> str:
    return ", ".join(f"{status}×{count}" for status, count in sorted(summary.errors.items())) or "none"

"""Reading a source's usage back as summaries: the recent window, its history, the last day and week.

Finished hours come from their rollups (one query per source for the whole week); hours without a
rollup yet (the current one, the last one until the probe closes it, or all of them where no probe
runs) are summarised from their rows, asking only the hours that have rows. ``close_hours`` writes
the rollups; the hourly probe calls it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from scholar.services.health.doctor import HISTORY_S, RECENT_S
from scholar.services.health.records import PROBE_TOOL, record_of
from scholar.services.health.summary import Summary, merged
from scholar.store.usage import UsageStore, hour_start

DAY_S = 86_400
WEEK_S = 7 * DAY_S
# An hour is closed (rolled up) once no call that started in it can still be running: Lambda's
# 15-minute limit plus a margin for the flush.
CLOSE_AFTER_S = 16 * 60


@dataclass(frozen=True)
class Windows:
    """One source's figures over the windows the doctor and source_health use."""

    source: str
    recent: Summary  # the last RECENT_S seconds, exact
    history: Summary  # whole hours ending at least RECENT_S before now, back HISTORY_S
    day: Summary  # hours starting in the last 24 h
    week: Summary  # hours starting in the last 7 days


def hourly(source: str, now: float, store: UsageStore, span_s: float = WEEK_S + RECENT_S) -> dict[str, Summary]:
    """Summaries of each hour with calls, from rollups where closed, from rows otherwise."""
    since = now - span_s
    hours = store.active_hours(source, since, now)
    rolled = store.rollups(source, since, now)
    found = {hour: Summary.model_validate(doc) for hour, doc in rolled.items()}
    for hour in (h for h in hours if h not in rolled):
        start = hour_start(hour)
        rows = store.rows(source, start, start + 3600, hours=[hour])
        found[hour] = Summary.of(record_of(row) for row in rows)
    return found


def windows(source: str, store: UsageStore, now: float | None = None) -> Windows:
    """The windows of ``source`` at ``now`` (default: the current time)."""
    now = time.time() if now is None else now
    by_hour = hourly(source, now, store)
    recent_rows = store.rows(
        source, now - RECENT_S, now, hours=[h for h in by_hour if hour_start(h) + 3600 > now - RECENT_S]
    )
    history_end, history_start = now - RECENT_S, now - RECENT_S - HISTORY_S
    return Windows(
        source=source,
        recent=Summary.of(record_of(row) for row in recent_rows),
        history=merged(
            s for h, s in by_hour.items() if history_start <= hour_start(h) and hour_start(h) + 3600 <= history_end
        ),
        day=merged(s for h, s in by_hour.items() if hour_start(h) + 3600 > now - DAY_S),
        week=merged(s for h, s in by_hour.items() if hour_start(h) + 3600 > now - WEEK_S),
    )


def close_hours(source: str, store: UsageStore, now: float | None = None) -> int:
    """Write the rollups of finished hours of ``source`` in the last week that have none; returns how many.

    Raises:
        UsageWriteError: a rollup could not be written.
    """
    now = time.time() if now is None else now
    since = now - WEEK_S
    rolled = store.rollups(source, since, now)
    written = 0
    for hour in store.active_hours(source, since, now):
        start = hour_start(hour)
        if hour in rolled or start + 3600 + CLOSE_AFTER_S > now:
            continue
        rows = store.rows(source, start, start + 3600, hours=[hour])
        store.put_rollup(source, hour, Summary.of(record_of(row) for row in rows).model_dump(mode="json"))
        written += 1
    return written


def last_call_at(
    source: str, store: UsageStore, since: float, now: float | None = None, *, real_only: bool = False
) -> float | None:
    """When a call last sent ``source`` a request since ``since`` (None: none did).

    Args:
        source: the source name.
        store: the usage store.
        since: the start of the window.
        now: its end (default: now).
        real_only: ignore the probe's own calls.
    """
    now = time.time() if now is None else now
    hours = [h for h in store.active_hours(source, since, now) if hour_start(h) + 3600 > since]
    rows = store.rows(source, since, now, hours=hours) if hours else []
    asked = [
        row.at
        for row in rows
        if row.doc.get("stats", {}).get("requests") and not (real_only and row.doc.get("tool") == PROBE_TOOL)
    ]
    return max(asked) if asked else None

"""Small helpers every benchmark shares: timing, medians, percentiles and a uniform report line."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def timed(fn: Callable[[], object], repeat: int, warmup: int = 3) -> list[float]:
    """Run ``fn`` ``warmup`` times untimed, then ``repeat`` times; return the durations in ms."""
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(repeat):
        began = time.perf_counter()
        fn()
        out.append((time.perf_counter() - began) * 1000)
    return out


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[index]


def report(name: str, values_ms: list[float], bar_ms: float | None = None) -> None:
    median = statistics.median(values_ms)
    line = f"{name:<58} median {median:8.2f} ms   p99 {percentile(values_ms, 99):8.2f} ms   n={len(values_ms)}"
    if bar_ms is not None:
        line += f"   bar {bar_ms:g} ms ({'ok' if median <= bar_ms else 'OVER'}, ratio {median / bar_ms:.2f})"
    print(line, flush=True)

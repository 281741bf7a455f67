"""Small helpers every benchmark shares: timing, medians, percentiles and a uniform report line."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any


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


def bench_aws_env(**extra: str) -> None:
    """Fake AWS credentials for moto in this process (and ``extra`` settings); no endpoint override."""
    os.environ.update(AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench", AWS_DEFAULT_REGION="us-east-1", **extra)
    os.environ.pop("AWS_ENDPOINT_URL", None)


@contextmanager
def pointed_at(base_url: str, *, unset: Iterable[str] = (), env: Mapping[str, str] | None = None,
               forget: Iterable[Callable[[], None]] = ()) -> Iterator[None]:
    """Every source at the fake upstream, no cache (no tables), no pacing; the environment restored after.

    Args:
        base_url: the fake upstream (``SCHOLAR_UPSTREAM_PROXY_BASE``).
        unset: more variables to remove (e.g. the reranker's URL).
        env: more variables to set (e.g. EPO credentials).
        forget: process-level caches to drop before and after (e.g. an OPS token).
    """
    from scholar.core.config import get_settings
    from scholar.sources import http

    hooks = list(forget)
    saved = dict(os.environ)
    for name in ("SCHOLAR_CACHE_TABLE", "SCHOLAR_TASK_TABLE", "SCHOLAR_ARTIFACT_BUCKET", *unset):
        os.environ.pop(name, None)  # no cache: every run asks the upstream
    os.environ.update(SCHOLAR_UPSTREAM_PROXY_BASE=base_url, SCHOLAR_PACE_SCALE="0", **(env or {}))
    get_settings.cache_clear()
    http.set_transport_factory(None)
    for hook in hooks:
        hook()
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)
        get_settings.cache_clear()
        http.set_transport_factory(None)
        for hook in hooks:
            hook()


@contextmanager
def in_process_stack(fixtures: Path) -> Iterator[Any]:
    """moto in-process with the three resources, every source pointed at the fake upstream, families in-process.

    Yields the running ``FakeUpstream`` (its ``count`` says how many requests reached it).
    """
    import moto

    from scholar.core.config import get_settings
    from scholar.local import dispatch
    from scholar.store import aws
    from tests.aws_tables import create_artifact_bucket, create_cache_table, create_task_table
    from tests.fakes.upstream import FakeUpstream

    bench_aws_env(
        SCHOLAR_CACHE_TABLE="bench-cache", SCHOLAR_TASK_TABLE="bench-tasks", SCHOLAR_ARTIFACT_BUCKET="bench-artifacts",
        SCHOLAR_LOCAL_DISPATCH="1", SCHOLAR_PACE_SCALE="0",
    )
    dispatch.install()
    with moto.mock_aws(), FakeUpstream(fixtures) as fake:
        os.environ["SCHOLAR_UPSTREAM_PROXY_BASE"] = fake.base_url
        get_settings.cache_clear()
        aws.reset_clients()
        create_cache_table(aws.dynamodb(), "bench-cache")
        create_task_table(aws.dynamodb(), "bench-tasks")
        create_artifact_bucket(aws.s3(), "bench-artifacts")
        yield fake


def run_from_command_line(main: Callable[[Path, int, float], None], doc: str | None, fixtures: Path, runs: int,
                          latency_s: float) -> None:
    """``python -m benchmarks.<name> [--runs N] [--latency S]``: a latency bench run on its own."""
    import argparse  # only a bench run as a script parses arguments

    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0] if doc else None)
    parser.add_argument("--runs", type=int, default=runs)
    parser.add_argument("--latency", type=float, default=latency_s)
    args = parser.parse_args()
    main(fixtures, args.runs, args.latency)

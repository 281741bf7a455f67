"""Health figures: what recording a call costs (issue 13).

A cached get_paper through the papers Lambda handler in-process (moto in-process): once with usage
recording as deployed (the record built, per-source metrics emitted, one BatchWriteItem to the
UsageTable), once with recording switched off (the call's ``recording`` replaced by a no-op). The
difference is the overhead; the metrics' EMF lines go to a null stream, as Lambda's stdout would
take them. ``python -m benchmarks health``.
"""

from __future__ import annotations

import contextlib
import io
import os
import statistics
from collections.abc import Iterator
from pathlib import Path

from benchmarks.common import bench_aws_env, report, timed

PNAS = "10.1073/pnas.1414271111"


class _NoCall:
    async def bind(self, coro):
        return await coro

    def ended(self, outcome):
        return outcome


@contextlib.contextmanager
def _not_recorded(family: str, tool: str, principal: str) -> Iterator[_NoCall]:
    yield _NoCall()


def cached_call_overhead(fixtures: Path, repeat: int = 300) -> None:
    import moto

    from functions.papers.app import lambda_handler
    from scholar.core.config import get_settings
    from scholar.runtime import family
    from scholar.runtime.context import LocalContext
    from scholar.store import aws
    from scholar.store.usage import UsageStore
    from tests.aws_tables import create_cache_table, create_task_table, create_usage_table
    from tests.fakes.upstream import FakeUpstream

    bench_aws_env(
        SCHOLAR_CACHE_TABLE="bench-cache",
        SCHOLAR_TASK_TABLE="bench-tasks",
        SCHOLAR_USAGE_TABLE="bench-usage",
        SCHOLAR_PACE_SCALE="0",
    )
    with moto.mock_aws(), FakeUpstream(fixtures) as fake, contextlib.redirect_stdout(io.StringIO()) as sink:
        os.environ["SCHOLAR_UPSTREAM_PROXY_BASE"] = fake.base_url
        get_settings.cache_clear()
        aws.reset_clients()
        for create, name in (
            (create_cache_table, "bench-cache"),
            (create_task_table, "bench-tasks"),
            (create_usage_table, "bench-usage"),
        ):
            create(aws.dynamodb(), name)
        ctx = LocalContext(function_name="scholar-bench-papers")
        event = {"tool": "get_paper", "arguments": {"identifier": PNAS}, "principal": "bench", "request_id": "b"}
        assert lambda_handler(event, ctx)["ok"]

        def call() -> None:
            lambda_handler(event, ctx)
            sink.seek(0)
            sink.truncate()  # the EMF lines: Lambda ships them to CloudWatch, here they are dropped

        real = family.recording

        def bare_call() -> None:
            family.recording = _not_recorded
            try:
                call()
            finally:
                family.recording = real

        real_put = UsageStore.put

        def unwritten_call() -> None:
            UsageStore.put = lambda self, rows: None  # record and metrics, but no write
            try:
                call()
            finally:
                UsageStore.put = real_put

        # Interleaved, so drift on a shared machine (other load, moto's growing tables) hits all alike.
        recorded, bare, unwritten = [], [], []
        for _ in range(repeat // 10):
            recorded += timed(call, 10, 1)
            bare += timed(bare_call, 10, 1)
            unwritten += timed(unwritten_call, 10, 1)
    report("cached get_paper, papers handler, usage recorded (moto)", recorded)
    report("cached get_paper, papers handler, not recorded (moto)", bare)
    report("cached get_paper, recorded but not written (no BatchWriteItem)", unwritten)
    modes = (("recording overhead on a cached call", recorded), ("of which record and metrics", unwritten))
    for label, values in modes:
        overhead = statistics.median(values) - statistics.median(bare)
        print(f"{label + ' (median difference)':<58} {overhead:8.2f} ms", flush=True)


def main(fixtures: Path) -> None:
    cached_call_overhead(fixtures, repeat=int(os.environ.get("SCHOLAR_BENCH_REPEAT", "300")))

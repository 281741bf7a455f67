"""Blocking calls inside coroutines (issue 14, item 5): the cost of a synchronous boto3 call under ``gather``.

N cached ``get_paper`` lookups run concurrently (``asyncio.gather`` on the process loop) while every DynamoDB
call is delayed by ``--latency-ms`` (a client wrapper standing in for the network round trip; the in-process
moto call adds its own time). Every store call of a coroutine goes through ``scholar.core.aio.off_loop``
(tests/unit/test_blocking_calls.py keeps it so), so the lookups overlap; before that change each call held
the event loop and they ran one after another (concurrency 0.98 of 10 on 2026-12-01). Printed: one lookup
alone, the N together, and the concurrency actually obtained (N × one / together: 1.0 = fully serialised,
N = fully concurrent; moto in-process and the GIL keep it below N). The last line is the same fan-out at the
store itself, the call made inline and through ``off_loop``.

``python -m benchmarks.blocking_bench [--lookups N] [--latency-ms MS]``
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from pathlib import Path
from typing import Any

from benchmarks.common import in_process_stack

REPO = Path(__file__).resolve().parents[1]
PNAS = "10.1073/pnas.1414271111"
LOOKUPS = 10
LATENCY_MS = 20.0


class SlowClient:
    """A boto3 client whose every call first sleeps ``delay_s`` (synchronously, as a network wait would)."""

    def __init__(self, client: Any, delay_s: float) -> None:
        self._client = client
        self._delay_s = delay_s

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._client, name)
        if not callable(attr):
            return attr

        def slow(*args: Any, **kwargs: Any) -> Any:
            time.sleep(self._delay_s)
            return attr(*args, **kwargs)

        return slow


async def _inline(fn: Any, *args: Any) -> Any:
    return fn(*args)  # what a coroutine calling the store directly does: the loop waits


def _ms(fn: Any) -> float:
    began = time.perf_counter()
    fn()
    return (time.perf_counter() - began) * 1000


def main(fixtures: Path, lookups: int = LOOKUPS, latency_ms: float = LATENCY_MS) -> None:
    from scholar.core import aio
    from scholar.services.paper_lookup import get_paper
    from scholar.store import aws
    from scholar.store.cache import Cache

    print(f"== blocking store calls under gather ({lookups} lookups, {latency_ms:g} ms per DynamoDB call) ==",
          flush=True)
    with in_process_stack(fixtures):
        cache = Cache(client=SlowClient(aws.dynamodb(), latency_ms / 1000), memory=False)  # every get reaches DynamoDB
        aio.run(get_paper(PNAS, cache=cache))  # fills the cache

        async def together() -> None:
            await asyncio.gather(*(get_paper(PNAS, cache=cache) for _ in range(lookups)))

        one = statistics.median(_ms(lambda: aio.run(get_paper(PNAS, cache=cache))) for _ in range(5))
        many = statistics.median(_ms(lambda: aio.run(together())) for _ in range(3))

        async def reads(off: bool) -> None:  # hit or miss, each read is one DynamoDB round trip (memory off)
            call = aio.off_loop if off else _inline
            await asyncio.gather(*(call(cache.get, "alias", PNAS) for _ in range(lookups)))

        inline = statistics.median(_ms(lambda: aio.run(reads(False))) for _ in range(3))
        off = statistics.median(_ms(lambda: aio.run(reads(True))) for _ in range(3))
    print(f"{'one cached get_paper':<58} {one:8.1f} ms", flush=True)
    print(f"{f'{lookups} together (asyncio.gather)':<58} {many:8.1f} ms   concurrency obtained "
          f"{lookups * one / many:4.2f} of {lookups} (1.00 = serialised by blocking calls)", flush=True)
    print(f"{f'{lookups} cache reads under gather: inline / aio.off_loop':<58} {inline:8.1f} ms / {off:6.1f} ms   "
          f"{inline / off:4.2f}x", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--lookups", type=int, default=LOOKUPS)
    parser.add_argument("--latency-ms", type=float, default=LATENCY_MS)
    args = parser.parse_args()
    main(Path(os.environ.get("SCHOLAR_FIXTURES_DIR", REPO.parent / "shared" / "fixtures")), args.lookups,
         args.latency_ms)

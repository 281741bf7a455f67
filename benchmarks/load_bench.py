"""Concurrent load through the local HTTP server (issue #16): N clients × M calls, cached and uncached.

Phases, each with ``CLIENTS`` threads making ``CALLS`` tools/call requests over loopback to the local server
(uvicorn → gateway → moto Lambda → family → moto DynamoDB), while the fake upstream answers every request
after ``LATENCY_S`` of injected latency:

- cached get_paper (warmed once): no upstream request may be made;
- cached get_book of an edition Google Books does not hold: its 404 is negatively cached, so the cached
  phase no longer runs at Google Books' pace (the gap issue #16 item 9 measured: p50 1.5 s under 8 clients);
- uncached search_papers (a distinct query per call): one upstream request each, under the latency.

Printed per phase: calls, errors (HTTP ≠ 200, JSON-RPC errors or ``isError``), p50, p95, wall time and the
upstream requests it caused. Pacing is off (SCHOLAR_PACE_SCALE=0): the real paces would set the uncached
figures. Bounded: ``SCHOLAR_BENCH_CLIENTS`` (default 8) × ``SCHOLAR_BENCH_CALLS`` (default 25) per phase.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from benchmarks.common import percentile

REPO = Path(__file__).resolve().parents[1]
PNAS = "10.1073/pnas.1414271111"
GATSBY_EDITION = "OL23109860M"  # recorded at Open Library (ISBN 9780743273565); Google Books answers 404 for it
LATENCY_S = 0.1
HEADERS = {"accept": "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25"}

Call = Callable[[int], tuple[str, dict[str, Any]]]


def _bounded(name: str, default: int, cap: int) -> int:
    return max(1, min(cap, int(os.environ.get(name) or default)))


def _one(client: httpx.Client, url: str, tool: str, arguments: dict[str, Any]) -> tuple[float, bool]:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
    began = time.perf_counter()
    response = client.post(url, json=body)
    elapsed = (time.perf_counter() - began) * 1000
    ok = response.status_code == 200 and "result" in response.json() and not response.json()["result"].get("isError")
    return elapsed, ok


def phase(name: str, url: str, make: Call, fake: Any, source: str, clients: int, calls: int) -> None:
    """Run ``clients`` × ``calls`` requests concurrently and print errors, p50, p95, wall and upstream requests."""
    before, before_all = fake.count(source=source), fake.count()

    def worker(index: int) -> list[tuple[float, bool]]:
        with httpx.Client(trust_env=False, timeout=60, headers=HEADERS) as client:
            return [_one(client, url, *make(index * calls + i)) for i in range(calls)]

    began = time.perf_counter()
    with ThreadPoolExecutor(max_workers=clients) as pool:
        results = [r for batch in pool.map(worker, range(clients)) for r in batch]
    wall = time.perf_counter() - began
    times = [t for t, _ in results]
    errors = sum(1 for _, ok in results if not ok)
    asked, asked_all = fake.count(source=source) - before, fake.count() - before_all
    print(f"  {name:<52} n={len(results):<4} errors={errors:<3} p50 {percentile(times, 50):8.1f} ms   "
          f"p95 {percentile(times, 95):8.1f} ms   wall {wall:6.2f} s   upstream requests {asked_all} "
          f"({source} {asked})", flush=True)


def main(fixtures: Path) -> None:
    from scholar.local.server import LocalServer
    from scholar.store import aws
    from tests.fakes.upstream import FakeUpstream

    clients = _bounded("SCHOLAR_BENCH_CLIENTS", 8, 32)
    calls = _bounded("SCHOLAR_BENCH_CALLS", 25, 200)
    print(f"== load == ({clients} clients × {calls} calls per phase, {LATENCY_S * 1000:.0f} ms upstream latency)",
          flush=True)
    with FakeUpstream(fixtures) as fake:
        # Every tool listed: the phases call tools outside the default profile (search_papers, get_book).
        env = {"SCHOLAR_UPSTREAM_PROXY_BASE": fake.base_url, "SCHOLAR_PACE_SCALE": "0", "SCHOLAR_PROFILE": "all"}
        with LocalServer(template=REPO / "template.yaml", extra_env=env) as server:
            aws.reset_clients()
            fake.set_latency(LATENCY_S)
            with httpx.Client(trust_env=False, timeout=60, headers=HEADERS) as warm:
                _one(warm, server.url, "get_paper", {"identifier": PNAS})
                _one(warm, server.url, "get_book", {"identifier": GATSBY_EDITION})
            phase("cached get_paper", server.url, lambda i: ("get_paper", {"identifier": PNAS}), fake, "s2",
                  clients, calls)
            phase("cached get_book (Google Books 404 negatively cached)", server.url,
                  lambda i: ("get_book", {"identifier": GATSBY_EDITION}), fake, "google_books", clients, calls)
            phase("uncached search_papers (a distinct query per call)", server.url,
                  lambda i: ("search_papers", {"query": f"load test {i}", "limit": 10}), fake, "s2", clients, calls)

"""Research under real latency (issue #25, items 3 and 4), on the local stack through the SDK's client.

Latency injected at the fake upstream per source, as the public APIs answer (the issue's figures; this machine
cannot reach the public APIs to measure them): S2 400 ms, OpenAlex 300 ms, Crossref 1,200 ms, arXiv's API 800 ms,
Europe PMC 500 ms, INSPIRE-HEP 400 ms; every other host (arxiv.org PDFs, Unpaywall …) 300 ms. Pacing is on at the
registry's published paces (S2 1 request/s, arXiv's API one per 3 s …), shared through the local CacheTable.

1. ``search``: 20 consecutive, distinct questions (the fake answers every query with its recorded page, so each
   question is a fresh fan-out, never a cache hit), after one warm-up question: p50 / p90 against the 1.5 s bar,
   how many were answered with every source, and how often expansion ran. Then the same 20 questions asked one
   source at a time (``sources=[s]``, one call after another): the ratio of the two p50s.
2. The review (tests.review_corpus): search → read_paper pages 1–2 (queued, polled once with ``wait_s``) → BibTeX of
   the top two → library_add × 2: calls, characters and each call's time.

Run: ``python -m benchmarks review``.
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path
from typing import Any

from benchmarks.common import percentile

REPO = Path(__file__).resolve().parents[1]
LATENCY_S = {"s2": 0.4, "openalex": 0.3, "crossref": 1.2, "arxiv_api": 0.8, "europepmc": 0.5, "inspire": 0.4}
OTHER_LATENCY_S = 0.3
BAR_S = 1.5
SOURCES = tuple(LATENCY_S)
QUESTIONS = (
    "copper thin film oxide layers tensile properties", "graph neural networks for molecule property prediction",
    "reinforcement learning from human feedback reward models", "CRISPR off-target effects in human cells",
    "lysyl oxidase collagen cross-linking in engineered tissue", "dark matter direct detection xenon experiments",
    "transformer models for protein structure prediction", "microplastics in freshwater ecosystems",
    "quantum error correction surface codes", "federated learning privacy guarantees",
    "mRNA vaccine lipid nanoparticle delivery", "neutrino oscillation measurements at reactors",
    "large language model agents for literature search", "coral reef bleaching and ocean warming",
    "perovskite solar cell stability", "automated test generation for REST APIs",
    "gut microbiome and depression", "gravitational wave detection of neutron star mergers",
    "soil carbon sequestration in croplands", "explainable machine learning in clinical decision support",
)


def _line(name: str, value: str) -> None:
    print(f"  {name:<58} {value}", flush=True)


async def _searches(client: Any, sources: tuple[str, ...] | None) -> tuple[list[float], list[dict[str, Any]]]:
    times, answers = [], []
    for question in QUESTIONS:
        began = time.perf_counter()
        if sources is None:
            result = await client.call_tool("search", {"query": question, "limit": 10})
            answers.append(result.structured_content)
        else:
            for source in sources:
                await client.call_tool("search", {"query": question, "limit": 10, "sources": [source]})
        times.append(time.perf_counter() - began)
    return times, answers


def _report_searches(concurrent: list[float], answers: list[dict[str, Any]], serial: list[float]) -> None:
    p50, p90 = statistics.median(concurrent), percentile(concurrent, 90)
    _line(f"search, {len(QUESTIONS)} consecutive questions, all sources at once",
          f"p50 {p50:5.2f} s   p90 {p90:5.2f} s   bar p50 {BAR_S:g} s ({'ok' if p50 <= BAR_S else 'OVER'})")
    whole = sum(1 for a in answers if not a.get("sources_late") and not a.get("partial"))
    expanded = sum(1 for a in answers if a.get("expansion") and not any(
        "expansion" in f["message"] or f["message"].startswith(("references", "citations", "recommendations"))
        for f in a.get("failed_sources", [])))
    late: dict[str, int] = {}
    for a in answers:
        for name in a.get("sources_late", []):
            late[name] = late.get(name, 0) + 1
    _line("  answered with every source / expansion ran", f"{whole}/{len(answers)}   {expanded}/{len(answers)}")
    _line("  sources named late (times)", ", ".join(f"{k} {v}" for k, v in sorted(late.items())) or "none")
    s50 = statistics.median(serial)
    _line("same questions, one source at a time", f"p50 {s50:5.2f} s   p90 {percentile(serial, 90):5.2f} s")
    _line("  ratio (one at a time / all at once, p50)", f"{s50 / p50:.2f}x")


def _report_review(review: Any) -> None:
    from tests.review_corpus import CALL_BAR, CHARS_BAR

    _line("review: calls", f"{len(review.calls)}   (bar {CALL_BAR})")
    _line("review: characters of results", f"{review.chars:,}   (bar {CHARS_BAR:,})")
    for call in review.calls:
        _line(f"  {call.tool}", f"{call.seconds * 1000:8.0f} ms   {call.chars:6,} chars")


def main(fixtures: Path) -> None:
    import anyio
    from mcp import Client

    from benchmarks.research_bench import install_search_routes
    from scholar.local.server import LocalServer
    from scholar.store import aws
    from tests.fakes.upstream import FakeUpstream
    from tests.review_corpus import install, run_review

    print("== review (issue #25: ids everywhere, search under real latency, a review in six calls) ==", flush=True)
    os.environ.pop("SCHOLAR_RERANK_URL", None)
    with FakeUpstream(fixtures) as fake:
        env = {"SCHOLAR_UPSTREAM_PROXY_BASE": fake.base_url, "SCHOLAR_PACE_SCALE": "1",
               "SCHOLAR_SEARCH_BUDGET_SCALE": "1", "SCHOLAR_RETRY_BUDGET_S": "1"}
        with LocalServer(template=REPO / "template.yaml", extra_env=env) as server:
            aws.reset_clients()
            install_search_routes(fake, fixtures)
            fake.set_latency(OTHER_LATENCY_S, per_source=LATENCY_S)

            async def measure() -> tuple[list[float], list[dict[str, Any]], list[float], Any]:
                async with Client(server.url) as client:
                    await client.call_tool("search", {"query": "warm-up question", "limit": 10})
                    concurrent, answers = await _searches(client, None)
                    serial, _ = await _searches(client, SOURCES)
                    fake.reset()
                    install(fake)
                    fake.set_latency(OTHER_LATENCY_S, per_source=LATENCY_S)
                    review = await run_review(client)
                return concurrent, answers, serial, review

            concurrent, answers, serial, review = anyio.run(measure)
    _report_searches(concurrent, answers, serial)
    _report_review(review)


if __name__ == "__main__":
    import sys

    from benchmarks.__main__ import main as run_all

    sys.exit(run_all(["review", *sys.argv[1:]]))
